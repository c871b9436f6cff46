// Sprite management: the upload (PUT/DELETE .../styles/{st}/sprite) and the draft sprite for previews
// (the public sprite files are in routes/public/sprites.ts). Composed by the styles module, which owns
// the style records the sprites belong to.
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { requireOrgAccess } from "../../http/auth";
import { NotFound } from "../../errors";
import { DraftFileParams, ErrorEnvelope, SpriteQuery, SpriteResult, StyleParams } from "./styles.model";
import { isSpriteFile } from "../../domain/sprites/store";
import { spriteFromUpload } from "../../http/sprite-upload";
import { openApiResponses } from "../../http/openapi-responses";
import { withRouteFacts } from "../../http/route-facts";

const TAGS = ["Styles"];

export function spritesModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, styles, spriteFiles: serveFile } = services;
  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "sprites" })
    .use(authPlugin)
    .put(
      "/api/v1/orgs/:org/styles/:style/sprite",
      async ({ params, query, caller, request }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { keyScope: "styles:write" });
        styles.get(org, params.style);
        const { set, source } = await spriteFromUpload(request, query);
        styles.setSprite(org, params.style, set);
        return { icons: Object.keys(set["1x"].index).sort(), source, width: set["1x"].width, height: set["1x"].height };
      },
      {
        scope: "styles:write",
        parse: "none",
        params: StyleParams,
        query: SpriteQuery,
        response: { 200: SpriteResult, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope },
        detail: {
          tags: TAGS,
          summary: "Replace the draft sprite",
          requestBody: {
            required: true,
            content: {
              "application/zip": { schema: { type: "string", format: "binary", description: "a zip of SVG icons" } },
              "image/svg+xml": { schema: { type: "string", format: "binary", description: "one SVG icon, named by ?name=" } },
              "multipart/form-data": {
                schema: { type: "object", properties: { files: { type: "array", items: { type: "string", format: "binary" }, description: "SVG files, one zip, or sprite.json + sprite.png (and sprite@2x.json + sprite@2x.png), under any field names" } } },
              },
            },
          },
          description:
            "Body: a zip of SVG icons (application/zip), one SVG (image/svg+xml with ?name=), or multipart/form-data with SVG files, one zip, or a ready sprite.json + sprite.png pair (optionally sprite@2x.json + sprite@2x.png). SVGs must be self-contained (no external references, <image>, DOCTYPE or entities); no icon may be named __proto__ (400); at most 500 icons, 1 MiB per SVG, 2048 px per side, 64 MiB per upload. Published versions keep the sprite they were published with.",
        },
      },
    )
    .delete(
      "/api/v1/orgs/:org/styles/:style/sprite",
      ({ params, caller, set }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { keyScope: "styles:write" });
        styles.removeSprite(org, params.style);
        set.status = 204;
        return undefined;
      },
      {
        scope: "styles:write",
        params: StyleParams,
        response: { 204: t.Void(), 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope },
        detail: { tags: TAGS, summary: "Remove the draft sprite (published versions keep theirs)" },
      },
    )
    .get(
      "/api/v1/orgs/:org/styles/:style/draft/:file",
      ({ params, caller, request, set }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { keyScope: "styles:write" });
        const row = styles.get(org, params.style);
        if (!isSpriteFile(params.file) || !row.draftSpritePath) throw new NotFound("No such draft sprite file");
        return serveFile(request, set.headers as Record<string, string>, row.draftSpritePath, params.file, "private, no-cache", `${params.org}/${params.style} (draft)`);
      },
      {
        scope: "styles:write",
        params: DraftFileParams,
        detail: {
          tags: TAGS,
          summary: "Draft sprite files (sprite.json, sprite.png, sprite@2x.json, sprite@2x.png) for previews",
          responses: openApiResponses({
            200: [["application/json", "image/png"], "sprite.json / sprite@2x.json (application/json) or sprite.png / sprite@2x.png (image/png)"],
            304: "Not modified (If-None-Match matched the ETag)",
            400: ErrorEnvelope,
            401: ErrorEnvelope,
            403: ErrorEnvelope,
            404: ErrorEnvelope,
            429: ErrorEnvelope,
            503: ErrorEnvelope,
          }),
        },
      },
    ));
}

// Sprite routes: the management upload (PUT/DELETE .../styles/{st}/sprite), the draft sprite for
// previews, and the public sprite files of published versions. Composed by the styles module, which
// owns the style records the sprites belong to.
import { Elysia, t } from "elysia";
import { existsSync, readFileSync } from "node:fs";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { requireOrgAccess } from "../../http/auth";
import { NotFound } from "../../errors";
import { etagOf, styleNotFound } from "../../domain/styles/service";
import { DraftFileParams, ErrorEnvelope, PublicSpriteParams, SpriteQuery, SpriteResult, StyleParams } from "./styles.model";
import { isSpriteFile, type SpriteFile } from "../../domain/sprites/store";
import { mayRead, viewerOf } from "../../read/style-access";
import { spriteFromUpload } from "../../domain/sprites/upload";
import { ifNoneMatchHits } from "../../http/conditional";

const TAGS = ["Styles"];

export function spritesModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, styles } = services;
  // Sprite directories never change once written (every upload and every version gets a new one),
  // so a file's ETag is computed once per path.
  const etags = new Map<string, string>();
  const etagFor = (path: string) => {
    let tag = etags.get(path);
    if (!tag) etags.set(path, (tag = etagOf(readFileSync(path))));
    return tag;
  };

  function serveFile(request: Request, headers: Record<string, string>, dir: string, file: SpriteFile, cacheControl: string) {
    const path = styles.sprites.path(dir, file);
    if (!existsSync(path)) throw new NotFound("This style has no sprite", "STYLE_NOT_FOUND");
    const etag = etagFor(path);
    const out: Record<string, string> = {
      ...headers,
      "content-type": file.endsWith(".json") ? "application/json; charset=utf-8" : "image/png",
      "cache-control": cacheControl,
      etag,
    };
    if (ifNoneMatchHits(request, etag)) return new Response(null, { status: 304, headers: out });
    return new Response(Bun.file(path), { headers: out });
  }

  return new Elysia({ name: "sprites" })
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
          description:
            "Body: a zip of SVG icons (application/zip), one SVG (image/svg+xml with ?name=), or multipart/form-data with SVG files, one zip, or a ready sprite.json + sprite.png pair (optionally sprite@2x.json + sprite@2x.png). SVGs must be self-contained (no external references, <image>, DOCTYPE or entities); at most 500 icons, 1 MiB per SVG, 2048 px per side, 64 MiB per upload. Published versions keep the sprite they were published with.",
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
        response: { 204: t.Void(), 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: { tags: TAGS, summary: "Remove the draft sprite (published versions keep theirs)" },
      },
    )
    .get(
      "/api/v1/orgs/:org/styles/:style/draft/:file",
      ({ params, caller, request, set }) => {
        const org = requireOrgAccess(ctx.db, params.org, caller, { keyScope: "styles:write" });
        const row = styles.get(org, params.style);
        if (!isSpriteFile(params.file) || !row.draftSpritePath) throw new NotFound("No such draft sprite file");
        return serveFile(request, set.headers as Record<string, string>, row.draftSpritePath, params.file, "private, no-cache");
      },
      {
        scope: "styles:write",
        params: DraftFileParams,
        detail: { tags: TAGS, summary: "Draft sprite files (sprite.json, sprite.png, sprite@2x.json, sprite@2x.png) for previews" },
      },
    )
    .get(
      "/styles/v1/:owner/:style/:file",
      ({ params, auth, request, set }) => {
        if (!isSpriteFile(params.file)) throw styleNotFound();
        const viewer = viewerOf(auth, request);
        const resolved = styles.resolvePublic(params.owner, params.style);
        if (!mayRead(resolved, viewer)) throw styleNotFound();
        if (!resolved.spritePath) throw new NotFound("This style version has no sprite", "STYLE_NOT_FOUND");
        const cacheControl = resolved.visibility === "private" ? "private" : resolved.stable ? "public, max-age=60" : "public, max-age=31536000, immutable";
        return serveFile(request, set.headers as Record<string, string>, resolved.spritePath, params.file, cacheControl);
      },
      {
        params: PublicSpriteParams,
        response: { 404: ErrorEnvelope },
        detail: {
          tags: TAGS,
          summary: "Sprite of the published style ({style}) or of one version ({style}@{version}): sprite.json, sprite.png, sprite@2x.json, sprite@2x.png",
        },
      },
    );
}


// GET /styles/v1/{owner}/{style}[@{version}]/{file}: the sprite of a published style version, readable
// by whoever may read the style.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { NotFound } from "../../errors";
import { styleNotFound } from "../../domain/styles/service";
import { isSpriteFile } from "../../domain/sprites/store";
import { mayRead, viewerOf } from "../../read/style-access";
import { ErrorEnvelope, PublicSpriteParams } from "./styles.model";

export function publicSpritesModule(services: Services) {
  const { auth, styles, spriteFiles } = services;
  return new Elysia({ name: "public-sprites" }).get(
    "/styles/v1/:owner/:style/:file",
    ({ params, request, set }) => {
      if (!isSpriteFile(params.file)) throw styleNotFound();
      const viewer = viewerOf(auth, request);
      const resolved = styles.resolvePublic(params.owner, params.style);
      if (!mayRead(resolved, viewer)) throw styleNotFound();
      if (!resolved.spritePath) throw new NotFound("This style version has no sprite", "STYLE_NOT_FOUND");
      const cacheControl = resolved.visibility === "private" ? "private" : resolved.stable ? "public, max-age=60" : "public, max-age=31536000, immutable";
      return spriteFiles(request, set.headers as Record<string, string>, resolved.spritePath, params.file, cacheControl);
    },
    {
      params: PublicSpriteParams,
      response: { 404: ErrorEnvelope },
      detail: {
        tags: ["Styles"],
        summary: "Sprite of the published style ({style}) or of one version ({style}@{version}): sprite.json, sprite.png, sprite@2x.json, sprite@2x.png",
      },
    },
  );
}

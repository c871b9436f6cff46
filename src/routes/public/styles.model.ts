// Path parameters and answers of the public style and sprite routes.
import { t } from "elysia";

export { ErrorEnvelope } from "../management/orgs.model";

export const PublicStyleParams = t.Object({
  owner: t.String({ description: "organization slug" }),
  style: t.String({ description: "style slug, or {style}@{version} for one immutable version" }),
});
export const PublicSpriteParams = t.Object({
  owner: t.String(),
  style: t.String({ description: "style slug, or {style}@{version}" }),
  file: t.String({ description: "sprite.json, sprite.png, sprite@2x.json or sprite@2x.png" }),
});

export const StyleDocument = t.Unknown({ description: "MapLibre style JSON with absolute URLs" });

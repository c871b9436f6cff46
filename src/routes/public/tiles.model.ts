import { t } from "elysia";

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";

export const TileJsonParams = t.Object({
  owner: t.String({ maxLength: 200, description: "organization slug" }),
  name: t.String({ maxLength: 300, description: "`{tileset}.json` (stable, the published version) or `{tileset}@{version}.json`" }),
});

export const TileParams = t.Object({
  owner: t.String({ maxLength: 200, description: "organization slug" }),
  name: t.String({ maxLength: 300, description: "`{tileset}@{version}`" }),
  z: t.String({ maxLength: 3 }),
  x: t.String({ maxLength: 12 }),
  y: t.String({ maxLength: 20, description: "`{y}.{ext}`; ext mvt (alias pbf), png, jpg or webp, matching the archive" }),
});

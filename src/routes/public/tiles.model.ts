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
  z: t.String({ maxLength: 20 }),
  x: t.String({ maxLength: 20 }),
  y: t.String({ maxLength: 20, description: "`{y}.{ext}`; ext mvt (alias pbf), png, jpg or webp, matching the archive" }),
});

/** The TileJSON 3.0.0 document the TileJSON routes answer (documentation: answers are served as built). */
export const TileJson = t.Object(
  {
    tilejson: t.Literal("3.0.0"),
    name: t.String(),
    version: t.String({ description: "`{n}.0.0` for tileset version n" }),
    scheme: t.Literal("xyz"),
    tiles: t.Array(t.String(), { description: "versioned tile URLs, also in the stable TileJSON" }),
    minzoom: t.Integer(),
    maxzoom: t.Integer(),
    bounds: t.Tuple([t.Number(), t.Number(), t.Number(), t.Number()]),
    center: t.Tuple([t.Number(), t.Number(), t.Number()]),
    format: t.Union([t.Literal("pbf"), t.Literal("png"), t.Literal("jpg"), t.Literal("webp")]),
    description: t.Optional(t.String()),
    attribution: t.Optional(t.String()),
    vector_layers: t.Optional(
      t.Array(t.Object({ id: t.String(), fields: t.Record(t.String(), t.String()), minzoom: t.Optional(t.Integer()), maxzoom: t.Optional(t.Integer()), description: t.Optional(t.String()) }), {
        description: "vector tilesets: each layer with its fields and their types",
      }),
    ),
    encoding: t.Optional(t.Union([t.Literal("terrarium"), t.Literal("mapbox")], { description: "raster-DEM tilesets: how heights are encoded" })),
    tileSize: t.Optional(t.Integer({ description: "raster-DEM tilesets: tile size in pixels" })),
  },
  { description: "TileJSON 3.0.0 document" },
);

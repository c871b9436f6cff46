import { t } from "elysia";

export const ErrorEnvelope = t.Object(
  { error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }) },
  { description: "error envelope" },
);

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

export const TileJson = t.Object(
  {
    tilejson: t.Literal("3.0.0"),
    name: t.String(),
    version: t.String(),
    scheme: t.Literal("xyz"),
    tiles: t.Array(t.String(), { description: "versioned tile URL templates, absolute" }),
    minzoom: t.Integer(),
    maxzoom: t.Integer(),
    bounds: t.Array(t.Number()),
    center: t.Array(t.Number()),
    format: t.String(),
    description: t.Optional(t.String()),
    attribution: t.Optional(t.String()),
    vector_layers: t.Optional(t.Array(t.Record(t.String(), t.Unknown()))),
    encoding: t.Optional(t.Union([t.Literal("terrarium"), t.Literal("mapbox")], { description: "raster-DEM tilesets only: the RGB encoding of the heights, for a `raster-dem` source" })),
    tileSize: t.Optional(t.Integer({ description: "raster-DEM tilesets only: tile width in pixels (a MapLibre extension of TileJSON; 256 for DEMs built here)" })),
  },
  { description: "TileJSON 3.0.0" },
);

import { t } from "elysia";
import { SLUG_PATTERN } from "../../domain/orgs/slug";
import { MAX_ZOOM } from "../../tiles/recipe";

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";

const Visibility = t.Union([t.Literal("public"), t.Literal("private")], { description: "private tilesets are readable by org members and keys with maps:read" });

export const OrgParams = t.Object({ org: t.String({ maxLength: 200, description: "organization slug" }) });
export const TilesetParams = t.Object({ org: t.String({ maxLength: 200 }), ts: t.String({ maxLength: 200, description: "tileset slug" }) });
export const VersionParams = t.Object({
  org: t.String({ maxLength: 200 }),
  ts: t.String({ maxLength: 200 }),
  n: t.Integer({ minimum: 1, maximum: 2147483647, description: "version number" }),
});

export const CreateTilesetBody = t.Object(
  {
    slug: t.String({ maxLength: 200, description: `URL name, pattern ${SLUG_PATTERN}` }),
    name: t.Optional(t.String({ maxLength: 200 })),
    description: t.Optional(t.String({ maxLength: 2000 })),
    attribution: t.Optional(t.String({ maxLength: 1000, description: "HTML allowed by MapLibre's attribution control" })),
    visibility: t.Optional(Visibility),
  },
  { additionalProperties: false },
);

export const UpdateTilesetBody = t.Object(
  {
    name: t.Optional(t.String({ maxLength: 200 })),
    description: t.Optional(t.String({ maxLength: 2000 })),
    attribution: t.Optional(t.String({ maxLength: 1000 })),
    visibility: t.Optional(Visibility),
  },
  { additionalProperties: false },
);

export const PublishBody = t.Object({ version: t.Integer({ minimum: 1, maximum: 2147483647 }) }, { additionalProperties: false });

export const RecipeQuery = t.Object({
  layer: t.Optional(t.String({ maxLength: 64, description: "vector layer name (default: the tileset slug)" })),
  // Numbers are checked by the recipe validator so its messages name the option.
  minzoom: t.Optional(t.String({ maxLength: 10, description: `integer 0-${MAX_ZOOM}, default 0` })),
  maxzoom: t.Optional(t.String({ maxLength: 10, description: `integer 0-${MAX_ZOOM}, default from the data extent (6-14)` })),
  simplification: t.Optional(t.String({ maxLength: 10, description: "simplification tolerance in tile pixels 0-100, default 3; 0 keeps every vertex" })),
  include: t.Optional(t.String({ maxLength: 4000, description: "comma-separated attributes to keep (all others dropped)" })),
  exclude: t.Optional(t.String({ maxLength: 4000, description: "comma-separated attributes to drop" })),
  rank: t.Optional(t.String({ maxLength: 64, description: "numeric attribute: higher values are kept first when points are thinned or a tile sheds features" })),
  point_spacing: t.Optional(t.String({ maxLength: 10, description: "points: below maxzoom keep one point per cell of this many pixels (0-256, default 1; 0 keeps every point)" })),
  tiny: t.Optional(t.String({ maxLength: 10, description: "lines and polygons under a pixel at a zoom: drop (default) or keep" })),
  buffer: t.Optional(t.String({ maxLength: 10, description: "tile buffer in pixels of 256, 0-128, default 4" })),
  tile_bytes: t.Optional(t.String({ maxLength: 10, description: "largest gzipped tile in bytes (1024-50000000, default 500000); features are shed until a tile fits" })),
  output: t.Optional(t.String({ maxLength: 10, description: "archive written for source data: mbtiles (default) or pmtiles" })),
  types: t.Optional(t.String({ maxLength: 4000, description: 'JSON object: attribute conversions, e.g. {"population":"number"}' })),
  filter: t.Optional(t.String({ maxLength: 16000, description: 'JSON: keep only matching features (legacy MapLibre filter), e.g. [">=","population",1000]' })),
  cluster: t.Optional(t.String({ maxLength: 200, description: 'JSON object: cluster points below a zoom, e.g. {"radius":40,"maxzoom":12}' })),
  layers: t.Optional(t.String({ maxLength: 64000, description: 'JSON object: layer settings per file name (or path in a zip), e.g. {"places.csv":{"layer":"towns","maxzoom":12}}' })),
  recipe: t.Optional(t.String({ maxLength: 64000, description: "the whole recipe as a JSON object (see README, Recipes); named parameters override it" })),
  encoding: t.Optional(t.String({ maxLength: 20, description: "raster DEM: `terrarium` or `mapbox` (Terrain-RGB). Marks an MBTiles/PMTiles of PNG tiles as elevation; for GeoTIFF and .hgt the encoding to build (default terrarium)" })),
  filename: t.Optional(t.String({ maxLength: 200, description: "the file's name, used in messages and as a format hint (.hgt files need it: the name gives their position)" })),
});

export const Tileset = t.Object({
  owner: t.String(),
  slug: t.String(),
  name: t.String(),
  description: t.String(),
  attribution: t.String(),
  visibility: Visibility,
  published_version: t.Union([t.Integer(), t.Null()]),
  tilejson_url: t.Union([t.String(), t.Null()], { description: "stable TileJSON URL, when published" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

const VectorLayer = t.Object(
  { id: t.String(), fields: t.Record(t.String(), t.String()), minzoom: t.Optional(t.Number()), maxzoom: t.Optional(t.Number()), description: t.Optional(t.String()) },
  { additionalProperties: true },
);

export const Version = t.Object({
  version: t.Integer(),
  state: t.Union([t.Literal("uploading"), t.Literal("queued"), t.Literal("processing"), t.Literal("ready"), t.Literal("failed")]),
  progress: t.Number({ description: "percent, 0-100" }),
  error: t.Union([t.String(), t.Null()], { description: "why processing failed: file, line or feature, what is wrong" }),
  warnings: t.Array(t.String(), { description: "features skipped or repaired, and similar notes" }),
  published: t.Boolean({ description: "whether this is the published version now" }),
  published_at: t.Union([t.String({ format: "date-time" }), t.Null()], {
    description:
      "when this version was first published (a version already ready when the server was upgraded to keep this counts as published when it became ready); null while it never was, and until then its versioned URLs answer only to the organization (a member's session or a key with maps:read), with Cache-Control: private",
  }),
  source_format: t.Union([t.String(), t.Null()], { description: "geojson, ndjson, csv, shapefile, flatgeobuf, geopackage, mbtiles, pmtiles, geotiff or hgt (several files: joined with +). A zip is opened while processing: until then it reads shapefile, and once ready the formats found inside (a zip of one GeoJSON file: geojson)" }),
  archive_format: t.Union([t.String(), t.Null()], { description: "mbtiles or pmtiles, once ready" }),
  recipe: t.Record(t.String(), t.Unknown()),
  format: t.Union([t.String(), t.Null()], { description: "tile format: pbf, png, jpg or webp" }),
  layers: t.Array(VectorLayer),
  bounds: t.Union([t.Array(t.Number()), t.Null()]),
  center: t.Union([t.Array(t.Number()), t.Null()]),
  minzoom: t.Union([t.Integer(), t.Null()]),
  maxzoom: t.Union([t.Integer(), t.Null()]),
  encoding: t.Union([t.Literal("terrarium"), t.Literal("mapbox"), t.Null()], { description: "raster-DEM tilesets: the RGB encoding of the heights; null otherwise" }),
  stats: t.Object({
    features: t.Integer(),
    features_skipped: t.Integer(),
    features_repaired: t.Integer(),
    features_filtered: t.Integer({ description: "left out by the recipe filter" }),
    dropped_by_size: t.Record(t.String(), t.Integer(), { description: "feature placements left out of tiles over the byte limit, by zoom" }),
    features_by_layer: t.Record(t.String(), t.Integer(), { description: "features kept per vector layer (input features; clusters not counted)" }),
    tiles: t.Integer(),
    bytes: t.Integer(),
    seconds: t.Union([t.Number(), t.Null()]),
    phase: t.Union([t.String(), t.Null()], { description: "while processing: reading, indexing, tiling, writing (validating for uploaded archives)" }),
    rate: t.Union([t.Number(), t.Null()], { description: "while processing: features/s when reading, tiles/s when tiling" }),
    rate_unit: t.Union([t.String(), t.Null()]),
    eta_seconds: t.Union([t.Number(), t.Null()], { description: "while processing: seconds left at the pace so far" }),
  }),
  tilejson_url: t.Union([t.String(), t.Null()], { description: "versioned TileJSON URL, once ready" }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

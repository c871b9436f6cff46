// One interface in front of every tile archive (martin's `Source`): the HTTP layer asks for facts
// (for TileJSON) and tiles, and never learns whether an MBTiles or a PMTiles file answers.
import { gunzipSync } from "node:zlib";

export type TileFormat = "pbf" | "png" | "jpg" | "webp";

export interface VectorLayer {
  id: string;
  fields: Record<string, string>;
  minzoom?: number;
  maxzoom?: number;
  description?: string;
}

/** What an archive says about itself; the TileJSON is built from these. */
export interface TileFacts {
  format: TileFormat;
  minzoom: number;
  maxzoom: number;
  /** [west, south, east, north] in degrees */
  bounds: [number, number, number, number];
  /** [lon, lat, zoom] */
  center: [number, number, number];
  vector_layers: VectorLayer[];
  /** vector tilesets: each layer's feature count and geometry kind (see TileStats) */
  tilestats?: TileStats;
  /** raster-DEM tilesets: how heights are packed into the PNG pixels (MapLibre's raster-dem `encoding`) */
  encoding?: "terrarium" | "mapbox";
  /** raster-DEM tilesets: tile width in pixels, when known (MapLibre reads `tileSize` from the TileJSON) */
  tile_size?: number;
  attribution?: string;
  name?: string;
  description?: string;
  /**
   * The tileset's name, description and attribution when this version became ready. Its versioned
   * TileJSON keeps them (it is served as immutable); the stable TileJSON follows later edits.
   */
  tileset?: TilesetWords;
}

/** A geometry kind as tilestats name it: MultiPoint counts as Point, and so on. */
export type GeometryKind = "Point" | "LineString" | "Polygon";
const KINDS: readonly string[] = ["Point", "LineString", "Polygon"];

/**
 * The part of tippecanoe's `tilestats` (mapbox-geostats) that desktop GIS reads: GDAL (ogrinfo, ogr2ogr,
 * QGIS) takes a layer's geometry type from it, and without it shows every layer as "Unknown (any)".
 * `geometry` is set only for a layer of one kind (GDAL itself warns that a majority kind misleads).
 * Attribute statistics are left out: they can list a thousand values per attribute.
 */
export interface TileStats {
  layerCount: number;
  layers: { layer: string; count: number; geometry?: GeometryKind }[];
}

/** The longest layer name tilestats keep (tippecanoe's and ours are short words). */
const MAX_LAYER_NAME = 256;

/** The tilestats an archive's metadata carries (tippecanoe's, or ours), cut down to TileStats; undefined when none are usable. */
export function tileStatsFrom(raw: unknown): TileStats | undefined {
  const layers = (raw as { layers?: unknown } | null)?.layers;
  if (!Array.isArray(layers)) return undefined;
  const kept: TileStats["layers"] = [];
  // Uploaded metadata is anyone's: each name once and no longer than a layer name is in practice, so a
  // json key of many megabytes cannot make every TileJSON of the version that large.
  const seen = new Set<string>();
  for (const l of layers.slice(0, 1000)) {
    const { layer, count, geometry } = (l ?? {}) as Record<string, unknown>;
    if (typeof layer !== "string" || !layer || layer.length > MAX_LAYER_NAME || seen.has(layer)) continue;
    seen.add(layer);
    kept.push({ layer, count: typeof count === "number" && Number.isFinite(count) && count >= 0 ? Math.floor(count) : 0, ...(typeof geometry === "string" && KINDS.includes(geometry) ? { geometry: geometry as GeometryKind } : {}) });
  }
  return kept.length ? { layerCount: kept.length, layers: kept } : undefined;
}

/**
 * The vector_layers an archive's metadata carries, cut down to what a TileJSON names (id, fields of
 * string types, zooms, description). Uploaded metadata is anyone's: spread as it came, an extra key
 * nesting thousands of arrays deep failed the import as an internal error (the facts could not be
 * stored), a field typed other than by a string made the version unreadable through the API, and
 * huge lists or strings went into every TileJSON of the version.
 */
export function vectorLayersFrom(raw: unknown): VectorLayer[] {
  if (!Array.isArray(raw)) return [];
  const out: VectorLayer[] = [];
  for (const l of raw.slice(0, 1000)) {
    if (!l || typeof l !== "object") continue;
    const { id, fields, minzoom, maxzoom, description } = l as Record<string, unknown>;
    if (typeof id !== "string" || id.length > MAX_LAYER_NAME) continue;
    const entries = fields && typeof fields === "object" && !Array.isArray(fields) ? Object.entries(fields).slice(0, 1000) : [];
    // fromEntries defines a "__proto__" field as a field, where assigning it would set the prototype.
    const layer: VectorLayer = { id, fields: Object.fromEntries(entries.filter(([k, v]) => k.length <= MAX_LAYER_NAME && typeof v === "string" && v.length <= 1000)) };
    const zoom = (z: unknown) => typeof z === "number" && Number.isInteger(z) && z >= 0 && z <= 30;
    if (zoom(minzoom)) layer.minzoom = minzoom as number;
    if (zoom(maxzoom)) layer.maxzoom = maxzoom as number;
    if (typeof description === "string") layer.description = description.slice(0, 1000);
    out.push(layer);
  }
  return out;
}

export interface TilesetWords {
  name: string;
  description: string;
  attribution: string;
}

export interface Tile {
  data: Uint8Array;
  /** how `data` is stored: gzip-compressed or plain */
  encoding: "gzip" | "identity";
}

export interface TileSource {
  readonly facts: TileFacts;
  /** the tile, or null when the archive holds none at that address */
  getTile(z: number, x: number, y: number): Tile | null | Promise<Tile | null>;
  close(): void;
}

export const CONTENT_TYPES: Record<TileFormat, string> = {
  pbf: "application/vnd.mapbox-vector-tile",
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
};

/** URL extensions accepted for each stored format (mvt and pbf are the same thing). */
export const EXTENSIONS: Record<string, TileFormat> = { mvt: "pbf", pbf: "pbf", png: "png", jpg: "jpg", jpeg: "jpg", webp: "webp" };

/** What a tile (or a known miss) costs in a memory cache, with its key and entry. */
export const tileBytes = (tile: Tile | null) => (tile?.data.length ?? 0) + 128;

export const isGzip = (data: Uint8Array) => data.length > 2 && data[0] === 0x1f && data[1] === 0x8b;

const WORLD: [number, number, number, number] = [-180, -85.0511287798066, 180, 85.0511287798066];

/** Normalizes bounds from any archive: finite, ordered, clamped to Web Mercator's range. */
export function cleanBounds(b: unknown): [number, number, number, number] {
  if (!Array.isArray(b) || b.length !== 4 || !b.every((v) => typeof v === "number" && Number.isFinite(v))) return [...WORLD];
  const [w, s, e, n] = b as number[];
  const out: [number, number, number, number] = [
    Math.max(-180, Math.min(w!, e!)),
    Math.max(WORLD[1], Math.min(s!, n!)),
    Math.min(180, Math.max(w!, e!)),
    Math.min(WORLD[3], Math.max(s!, n!)),
  ];
  return out;
}

/** Tile column/row range covering bounds at zoom z (inclusive). */
export function tileRange(bounds: [number, number, number, number], z: number): { minX: number; maxX: number; minY: number; maxY: number } {
  const n = 2 ** z;
  const xOf = (lon: number) => Math.min(n - 1, Math.max(0, Math.floor(((lon + 180) / 360) * n)));
  const yOf = (lat: number) => {
    const clamped = Math.max(WORLD[1], Math.min(WORLD[3], lat));
    const r = (clamped * Math.PI) / 180;
    return Math.min(n - 1, Math.max(0, Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n)));
  };
  return { minX: xOf(bounds[0]), maxX: xOf(bounds[2]), minY: yOf(bounds[3]), maxY: yOf(bounds[1]) };
}

/**
 * True when z/x/y lies inside the archive's zoom range: a tile missing there is "empty" (204), wherever
 * it lies against the bounds. The bounds are advice for clients (MapLibre asks for no tile outside
 * them), not a wall: GDAL (ogr2ogr, QGIS) reads a zoom level one column and row past the east and south
 * bounds and stops with exit 1 on the 404s those got, and TileServer GL, martin and go-pmtiles all
 * answer 204 for a missing tile inside the zoom range.
 */
export function tileInRange(facts: TileFacts, z: number): boolean {
  return z >= facts.minzoom && z <= facts.maxzoom;
}

/**
 * The most a stored tile may unzip to (vector tiles are rarely over 1 MiB; tippecanoe stops at 500 KiB).
 * An archive is its uploader's: a 200 KiB tile of gzipped zeros unzips to 200 MiB.
 */
export const MAX_UNZIPPED_TILE = 32 * 1024 * 1024;

/** A stored gzip tile unzipped, or null when its gzip is damaged or unzips past MAX_UNZIPPED_TILE. */
export function gunzippedTileOrNull(data: Uint8Array): Uint8Array | null {
  try {
    return gunzipSync(data, { maxOutputLength: MAX_UNZIPPED_TILE });
  } catch {
    return null;
  }
}

// Processing options for source data, with the defaults chosen from the data itself. A recipe has
// version-level settings and layer settings; `layers` overrides the layer settings per input file.
import { filterProblem, type Filter } from "./filter";

export type AttributeType = "string" | "number" | "boolean";

export interface LayerRecipe {
  /** vector layer name; default: the file name (one file: the tileset slug) */
  layer?: string;
  minzoom?: number;
  maxzoom?: number;
  /** simplification tolerance in tile pixels (0 keeps every vertex); default 3 */
  simplification?: number;
  /** keep only these attributes */
  include?: string[];
  /** drop these attributes */
  exclude?: string[];
  /** convert attributes to a type; values that do not convert are left out */
  types?: Record<string, AttributeType>;
  /** keep only features passing this filter (legacy MapLibre filter syntax, see filter.ts) */
  filter?: Filter;
  /** numeric attribute: higher values are kept first when points are thinned or tiles shed features */
  rank?: string;
  /** points: at zooms below maxzoom keep one point per cell of this many pixels; 0 keeps all. Default 1 */
  point_spacing?: number;
  /** lines and polygons smaller than a pixel at a zoom: left out there ("drop", default) or kept */
  tiny?: "drop" | "keep";
  /** points: below `maxzoom`, points closer than `radius` pixels become one feature with a point_count */
  cluster?: ClusterRecipe;
}

export interface ClusterRecipe {
  /** cell size in pixels of a 256-pixel tile; default 40 */
  radius?: number;
  /** first zoom where every point shows on its own; default the layer's maxzoom */
  maxzoom?: number;
}

export type OutputFormat = "mbtiles" | "pmtiles";

export interface Recipe extends LayerRecipe {
  /** tile buffer in pixels (of 256); default 4 */
  buffer?: number;
  /** largest gzipped tile in bytes; features are shed until a tile fits; default 500 000 */
  tile_bytes?: number;
  /** archive written for source data; default mbtiles */
  output?: OutputFormat;
  /** raster DEM: the RGB encoding of imported tiles, or the one to build (default terrarium) */
  encoding?: "terrarium" | "mapbox";
  /** layer settings per input file name (with or without its extension; in a zip, its path there too) */
  layers?: Record<string, LayerRecipe>;
}

export const MAX_ZOOM = 16;
export const DEFAULT_TILE_BYTES = 500_000;
export const DEFAULT_BUFFER = 4;
export const DEFAULT_POINT_SPACING = 1;
export const DEFAULT_CLUSTER_RADIUS = 40;
// Letters of any script (a GeoPackage table "Länder 2024" keeps its ä): MVT layer names are UTF-8.
export const LAYER_NAME = /^[\p{L}_][\p{L}\p{N}_-]{0,63}$/u;
const TYPES = new Set(["string", "number", "boolean"]);
/** Settings of one layer (the recipe's own, or under `layers`), and of the whole version: the docs list them all. */
export const LAYER_KEYS = new Set(["layer", "minzoom", "maxzoom", "simplification", "include", "exclude", "types", "filter", "rank", "point_spacing", "tiny", "cluster"]);
export const VERSION_KEYS = new Set(["buffer", "tile_bytes", "output", "encoding", "layers"]);

function layerProblem(r: LayerRecipe): string | null {
  for (const k of ["minzoom", "maxzoom"] as const) {
    const v = r[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > MAX_ZOOM)) return `${k} must be an integer from 0 to ${MAX_ZOOM}`;
  }
  if (r.minzoom !== undefined && r.maxzoom !== undefined && r.minzoom > r.maxzoom) return "minzoom must not be above maxzoom";
  if (r.simplification !== undefined && !(Number.isFinite(r.simplification) && r.simplification >= 0 && r.simplification <= 100))
    return "simplification must be a number from 0 to 100";
  if (r.layer !== undefined && !LAYER_NAME.test(r.layer)) return "layer must start with a letter (of any script) or underscore and hold up to 64 letters, digits, _ or -";
  for (const k of ["include", "exclude"] as const)
    if (r[k] !== undefined && !(Array.isArray(r[k]) && r[k].every((a) => typeof a === "string"))) return `${k} must be an array of attribute names`;
  if (r.include?.length && r.exclude?.length) return "give include or exclude, not both";
  if (r.types !== undefined) {
    if (!r.types || typeof r.types !== "object" || Array.isArray(r.types)) return 'types must be an object like {"population": "number"}';
    for (const [k, v] of Object.entries(r.types)) if (!TYPES.has(v as string)) return `types.${k.slice(0, 64)} must be "string", "number" or "boolean"`;
  }
  if (r.filter !== undefined) {
    const p = filterProblem(r.filter);
    if (p) return `filter: ${p}`;
  }
  if (r.rank !== undefined && (typeof r.rank !== "string" || !r.rank)) return "rank must be an attribute name";
  if (r.point_spacing !== undefined && !(Number.isFinite(r.point_spacing) && r.point_spacing >= 0 && r.point_spacing <= 256))
    return "point_spacing must be a number of pixels from 0 to 256";
  if (r.tiny !== undefined && r.tiny !== "drop" && r.tiny !== "keep") return 'tiny must be "drop" or "keep"';
  if (r.cluster !== undefined) {
    const c = r.cluster;
    if (!c || typeof c !== "object" || Array.isArray(c)) return 'cluster must be an object like {"radius": 40, "maxzoom": 12}';
    const unknown = Object.keys(c).find((k) => k !== "radius" && k !== "maxzoom");
    if (unknown) return `cluster: unknown setting '${unknown.slice(0, 64)}' (radius and maxzoom are known)`;
    if (c.radius !== undefined && !(typeof c.radius === "number" && Number.isFinite(c.radius) && c.radius >= 1 && c.radius <= 256)) return "cluster.radius must be a number of pixels from 1 to 256";
    if (c.maxzoom !== undefined && !(Number.isInteger(c.maxzoom) && c.maxzoom >= 0 && c.maxzoom <= MAX_ZOOM)) return `cluster.maxzoom must be an integer from 0 to ${MAX_ZOOM}`;
  }
  return null;
}

/** A misspelt setting's likely meaning: the known one it is but for case, `_` and `-` (max_zoom: maxzoom). */
function meant(key: string, known: Iterable<string>): string {
  const bare = (k: string) => k.toLowerCase().replace(/[_-]/g, "");
  for (const k of known) if (bare(k) === bare(key)) return ` (did you mean '${k}'?)`;
  return "";
}

/** Returns a problem with the recipe, or null. Used by the API (400) and the CLI. */
export function recipeProblem(r: Recipe): string | null {
  // A misspelt setting would otherwise build with the default silently (the API refuses one in the
  // query or fields before this; a recipe file given to the CLI meets it here).
  const unknownKey = Object.keys(r).find((k) => !LAYER_KEYS.has(k) && !VERSION_KEYS.has(k));
  if (unknownKey !== undefined) return `setting '${unknownKey.slice(0, 64)}' is unknown${meant(unknownKey, [...LAYER_KEYS, ...VERSION_KEYS])}; see the README's recipe section`;
  const own = layerProblem(r);
  if (own) return own;
  if (r.buffer !== undefined && !(Number.isInteger(r.buffer) && r.buffer >= 0 && r.buffer <= 128)) return "buffer must be an integer number of pixels from 0 to 128";
  if (r.tile_bytes !== undefined && !(Number.isInteger(r.tile_bytes) && r.tile_bytes >= 1024 && r.tile_bytes <= 50_000_000))
    return "tile_bytes must be an integer from 1024 to 50000000";
  if (r.output !== undefined && r.output !== "mbtiles" && r.output !== "pmtiles") return 'output must be "mbtiles" or "pmtiles"';
  if (r.encoding !== undefined && r.encoding !== "terrarium" && r.encoding !== "mapbox") return "encoding must be terrarium or mapbox (the RGB packing of raster-DEM tiles)";
  if (r.layers !== undefined) {
    if (!r.layers || typeof r.layers !== "object" || Array.isArray(r.layers)) return 'layers must be an object keyed by file name, e.g. {"roads.geojson": {"maxzoom": 14}}';
    for (const [file, lr] of Object.entries(r.layers)) {
      if (!lr || typeof lr !== "object" || Array.isArray(lr)) return `layers.${file.slice(0, 64)} must be an object`;
      const unknown = Object.keys(lr).find((k) => !LAYER_KEYS.has(k));
      if (unknown) return `layers.${file.slice(0, 64)}: unknown setting '${unknown.slice(0, 64)}'${meant(unknown, LAYER_KEYS)}`;
      const p = layerProblem({ ...r, ...lr, layers: undefined } as Recipe);
      if (p) return `layers.${file.slice(0, 64)}: ${p}`;
    }
  }
  return null;
}

/**
 * The settings of the layer made from one input file: the recipe's own, overridden by the `layers` entry
 * of the first of `names` (most telling first: a zip entry's path, then the plain file name) that has
 * one, with or without its extension; `key` is that entry's key. The recipe's own `layer` name only
 * applies when there is one file.
 */
export function layerRecipe(r: Recipe, names: string[], onlyFile: boolean): { settings: LayerRecipe; key?: string } {
  const own: LayerRecipe = {};
  for (const k of LAYER_KEYS) if (r[k as keyof LayerRecipe] !== undefined) (own as Record<string, unknown>)[k] = r[k as keyof LayerRecipe];
  if (!onlyFile) delete own.layer;
  const key = layerKeys(names).find((k) => r.layers !== undefined && Object.hasOwn(r.layers, k));
  return key === undefined ? { settings: own } : { settings: { ...own, ...r.layers![key] }, key };
}

/** The `layers` keys that pick an input known by these names: each with and without its extension. */
export function layerKeys(names: string[]): string[] {
  return names.flatMap((n) => [n, n.replace(/\.[^./]*$/, "")]);
}

/** A layer name from a slug or file name: letters, digits, _ and -, starting with a letter. */
export function layerNameFrom(name: string): string {
  return cleanLayerName(name.replace(/\.[^.]*$/, ""));
}

/** A layer name from a name without an extension to drop (a GeoPackage table's). */
export function cleanLayerName(name: string): string {
  const base = name.normalize("NFC").replace(/[^\p{L}\p{N}_-]+/gu, "_").replace(/^[^\p{L}_]+/u, "");
  return Array.from(base || "layer").slice(0, 64).join("");
}

/** Max zoom from the data extent: roughly 6 zoom levels of detail below the zoom that fits the whole. */
export function defaultMaxzoom(bounds: [number, number, number, number]): number {
  const span = Math.max(bounds[2] - bounds[0], (bounds[3] - bounds[1]) * 2, 1e-6);
  const fits = Math.log2(360 / span);
  return Math.max(6, Math.min(14, Math.floor(fits) + 6));
}

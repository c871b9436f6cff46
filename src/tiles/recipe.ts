// Processing options for source data, with the defaults chosen from the data itself.

export interface Recipe {
  /** vector layer name; default: the tileset slug */
  layer?: string;
  minzoom?: number;
  maxzoom?: number;
  /** geojson-vt simplification tolerance in tile pixels (0 keeps every vertex); default 3 */
  simplification?: number;
  /** keep only these attributes */
  include?: string[];
  /** drop these attributes */
  exclude?: string[];
  /** raster DEM: the RGB encoding of imported tiles, or the one to build (default terrarium) */
  encoding?: "terrarium" | "mapbox";
}

export const MAX_ZOOM = 16;
export const LAYER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** Returns a problem with the recipe, or null. Used by the API (400) and the CLI. */
export function recipeProblem(r: Recipe): string | null {
  for (const k of ["minzoom", "maxzoom"] as const) {
    const v = r[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 0 || v > MAX_ZOOM)) return `${k} must be an integer from 0 to ${MAX_ZOOM}`;
  }
  if (r.minzoom !== undefined && r.maxzoom !== undefined && r.minzoom > r.maxzoom) return "minzoom must not be above maxzoom";
  if (r.simplification !== undefined && !(Number.isFinite(r.simplification) && r.simplification >= 0 && r.simplification <= 100))
    return "simplification must be a number from 0 to 100";
  if (r.layer !== undefined && !LAYER_NAME.test(r.layer)) return "layer must start with a letter or underscore and hold up to 64 letters, digits, _ or -";
  if (r.include?.length && r.exclude?.length) return "give include or exclude, not both";
  if (r.encoding !== undefined && r.encoding !== "terrarium" && r.encoding !== "mapbox") return "encoding must be terrarium or mapbox (the RGB packing of raster-DEM tiles)";
  return null;
}

/** A layer name from a slug or file name: letters, digits, _ and -, starting with a letter. */
export function layerNameFrom(name: string): string {
  const base = name.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_-]+/g, "_").replace(/^[^A-Za-z_]+/, "");
  return (base || "layer").slice(0, 64);
}

/** Max zoom from the data extent: roughly 6 zoom levels of detail below the zoom that fits the whole. */
export function defaultMaxzoom(bounds: [number, number, number, number]): number {
  const span = Math.max(bounds[2] - bounds[0], (bounds[3] - bounds[1]) * 2, 1e-6);
  const fits = Math.log2(360 / span);
  return Math.max(6, Math.min(14, Math.floor(fits) + 6));
}

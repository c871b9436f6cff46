// hillshade: relief shading of a raster-dem source, computed per DEM tile (hillshade-shade.ts, MapLibre's
// "standard" method) into an image placed as raster tiles are.
import type { HillshadeLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import { Color } from "@maplibre/maplibre-gl-style-spec";
import { paddedHeights } from "../dem-tiles";
import type { DrawContext } from "../draw-context";
import { shadeHillshade, type HillshadePaint, type PremultipliedColor } from "../hillshade-shade";
import { num, prop } from "../style-eval";
import { drawDemTileImages } from "./dem-tile-images";

export function drawHillshade(layer: HillshadeLayerSpecification, ctx: DrawContext): void {
  const paint = hillshadePaint(layer, ctx);
  // MapLibre skips the layer's offscreen pass at exaggeration 0: nothing is drawn
  if (paint.intensity === 0) return;
  const tiles = ctx.demTiles(layer.source);
  const images = tiles.map((tile) => {
    const { z, y } = tile.id;
    const size = tile.dem.size;
    const grid = { size, padded: paddedHeights(tile, tiles), z, north: tileLatitude(y, z), south: tileLatitude(y + 1, z) };
    return { id: tile.id, size, rgba: shadeHillshade(grid, paint) };
  });
  drawDemTileImages(ctx, images);
}

/**
 * The layer's light and colours. Newer styles may give arrays (several lights, for the "multidirectional"
 * method); the standard method MapLibre draws uses the first of each, and so does this renderer for every
 * hillshade-method (the others are not drawn differently here).
 */
function hillshadePaint(layer: HillshadeLayerSpecification, ctx: DrawContext): HillshadePaint {
  const { zoom } = ctx;
  const degrees = Number(first(prop(layer, "paint", "hillshade-illumination-direction", zoom)) ?? 335);
  const viewport = prop(layer, "paint", "hillshade-illumination-anchor", zoom) !== "map";
  const direction = ((degrees + (viewport ? ctx.cam.view.bearing : 0)) * Math.PI) / 180;
  return {
    intensity: num(layer, "paint", "hillshade-exaggeration", zoom),
    direction,
    shadow: premultiplied(first(prop(layer, "paint", "hillshade-shadow-color", zoom))),
    highlight: premultiplied(first(prop(layer, "paint", "hillshade-highlight-color", zoom))),
    accent: premultiplied(first(prop(layer, "paint", "hillshade-accent-color", zoom))),
  };
}

/** The first of an evaluated NumberArray/ColorArray, or the value itself. */
function first(value: unknown): unknown {
  const values = (value as { values?: unknown[] } | null)?.values;
  return Array.isArray(values) ? values[0] : Array.isArray(value) ? value[0] : value;
}

function premultiplied(value: unknown): PremultipliedColor {
  const c = value instanceof Color ? value : Color.parse(typeof value === "string" ? value : undefined);
  return c ? [c.r, c.g, c.b, c.a] : [0, 0, 0, 0];
}

/** Latitude (degrees) of the top edge of tile row `y` at zoom `z` (Web Mercator). */
function tileLatitude(y: number, z: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** z))) * 180) / Math.PI;
}

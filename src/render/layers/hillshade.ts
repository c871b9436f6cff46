// hillshade: relief shading of a raster-dem source, computed per DEM tile (hillshade-shade.ts, MapLibre's
// methods) into an image placed as raster tiles are.
import type { HillshadeLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import { Color } from "@maplibre/maplibre-gl-style-spec";
import { Lru } from "../../lru";
import { paddedHeights, paddedKey } from "../dem-tiles";
import type { DrawContext } from "../draw-context";
import { shadeHillshade, type HillshadeMethod, type HillshadePaint, type PremultipliedColor } from "../hillshade-shade";
import { num, prop } from "../style-eval";
import { drawTileImages, resamplingOf } from "./tile-images";
import { fromUnitSquare } from "../../tiles/readers/mercator";

/**
 * Shaded tiles kept across renders, keyed by everything that determines their pixels (the paint, the
 * tile's zoom and row, its heights and its neighbours'): shading a 256-px tile costs about 11 ms, and
 * neighbouring raster tiles, or static images of nearby views, shade the same DEM tiles again.
 */
const shaded = new Lru<Uint8Array>({ maxBytes: 32 * 1024 * 1024 });

export function drawHillshade(layer: HillshadeLayerSpecification, ctx: DrawContext): void {
  const paint = hillshadePaint(layer, ctx);
  // MapLibre skips the layer's offscreen pass at exaggeration 0: nothing is drawn
  if (paint.intensity === 0) return;
  const paintKey = JSON.stringify(paint);
  const tiles = ctx.demTiles(layer.source);
  const images = tiles.map((tile) => {
    const { z, y } = tile.id;
    const size = tile.dem.size;
    const key = `${paintKey}|${z}/${y}|${paddedKey(tile, tiles)}`;
    let rgba = shaded.get(key);
    if (rgba === undefined) {
      const grid = { size, padded: paddedHeights(tile, tiles), z, north: tileLatitude(y, z), south: tileLatitude(y + 1, z) };
      rgba = shadeHillshade(grid, paint);
      shaded.set(key, rgba, rgba.byteLength);
    }
    return { id: tile.id, size, rgba };
  });
  drawTileImages(ctx, images, resamplingOf(layer, ctx.zoom));
}

/**
 * The layer's method, lights and colours. Direction, altitude, highlight and shadow may each be arrays
 * (several lights, for "multidirectional"): as MapLibre does, shorter ones repeat their last value, and
 * the shader is built for as many lights as there are highlight colours.
 */
function hillshadePaint(layer: HillshadeLayerSpecification, ctx: DrawContext): HillshadePaint {
  const { zoom } = ctx;
  const list = (name: string) => values(prop(layer, "paint", name, zoom));
  const directions = list("hillshade-illumination-direction").map(Number);
  const altitudes = list("hillshade-illumination-altitude").map(Number);
  const highlights = list("hillshade-highlight-color").map(premultiplied);
  const shadows = list("hillshade-shadow-color").map(premultiplied);
  const bearing = prop(layer, "paint", "hillshade-illumination-anchor", zoom) !== "map" ? ctx.cam.view.bearing : 0;
  const at = <T>(items: T[], i: number, fallback: T): T => items[Math.min(i, items.length - 1)] ?? fallback;
  const lights = Array.from({ length: Math.max(1, highlights.length) }, (_, i) => ({
    direction: ((at(directions, i, 335) + bearing) * Math.PI) / 180,
    altitude: (at(altitudes, i, 45) * Math.PI) / 180,
    highlight: at(highlights, i, [1, 1, 1, 1] as PremultipliedColor),
    shadow: at(shadows, i, [0, 0, 0, 1] as PremultipliedColor),
  }));
  return {
    method: (prop(layer, "paint", "hillshade-method", zoom) as HillshadeMethod | undefined) ?? "standard",
    intensity: num(layer, "paint", "hillshade-exaggeration", zoom),
    accent: premultiplied(prop(layer, "paint", "hillshade-accent-color", zoom)),
    lights,
  };
}

/** An evaluated NumberArray/ColorArray's values, or the single value as one. */
function values(value: unknown): unknown[] {
  const inner = (value as { values?: unknown[] } | null)?.values;
  return Array.isArray(inner) ? inner : Array.isArray(value) ? value : value === undefined ? [] : [value];
}

function premultiplied(value: unknown): PremultipliedColor {
  const c = value instanceof Color ? value : Color.parse(typeof value === "string" ? value : undefined);
  return c ? [c.r, c.g, c.b, c.a] : [0, 0, 0, 0];
}

/** Latitude (degrees) of the top edge of tile row `y` at zoom `z` (Web Mercator). */
const tileLatitude = (y: number, z: number) => fromUnitSquare(0, y / 2 ** z)[1];

// color-relief: a raster-dem source coloured by elevation, per DEM tile (color-relief-ramp.ts) into an
// image placed as raster tiles are.
import type { ColorReliefLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import { colorRamp, colorReliefPixels, type ColorRamp, type StopColor } from "../color-relief-ramp";
import type { DemEncoding } from "../../tiles/dem/encoding";
import type { DrawContext } from "../draw-context";
import { num, propertyExpression } from "../style-eval";
import { drawTileImages, resamplingOf } from "./tile-images";
import { Lru } from "../../lru";

export function drawColorRelief(layer: ColorReliefLayerSpecification, ctx: DrawContext): void {
  const tiles = ctx.demTiles(layer.source);
  if (!tiles.length) return;
  // MapLibre builds the ramp once, packing its stops with the first tile's encoding
  const ramp = layerRamp(layer, ctx.zoom, tiles[0]!.encoding);
  if (!ramp) return;
  const opacity = num(layer, "paint", "color-relief-opacity", ctx.zoom);
  if (!(opacity > 0)) return;
  const rampKey = `${opacity}|${ramp.elevations.join(",")}|${ramp.colors.join(",")}`;
  drawTileImages(
    ctx,
    tiles.map((tile) => {
      const key = `${rampKey}|${tile.key}`;
      let rgba = coloured.get(key);
      if (rgba === undefined) {
        rgba = colorReliefPixels(tile.dem.heights, ramp, opacity);
        coloured.set(key, rgba, rgba.byteLength);
      }
      return { id: tile.id, size: tile.dem.size, rgba };
    }),
    resamplingOf(layer, ctx.zoom),
  );
}

/** Coloured tiles kept across renders, keyed by the ramp, the opacity and the tile's heights (as shaded hillshade tiles are). */
const coloured = new Lru<Uint8Array>({ maxBytes: 16 * 1024 * 1024 });

interface InterpolateExpression {
  operator?: string;
  labels?: number[];
}

/**
 * The ramp of the layer's colour, or null where MapLibre's ramp is transparent: it reads stops only from
 * a top-level interpolate (also -hcl and -lab); a step, a match or a constant colour draws nothing there.
 */
function layerRamp(layer: ColorReliefLayerSpecification, zoom: number, encoding: DemEncoding): ColorRamp | null {
  if (layer.paint?.["color-relief-color"] === undefined) return null;
  const expr = propertyExpression(layer, "paint", "color-relief-color");
  const top = (expr as unknown as { _styleExpression?: { expression?: InterpolateExpression } } | undefined)?._styleExpression?.expression;
  if (!expr || !top?.operator?.startsWith("interpolate") || !top.labels?.length) return null;
  // the colour at each stop is the whole expression at that elevation (its input may scale it)
  const stops = top.labels.map((elevation) => ({ elevation, color: expr.evaluate({ zoom, elevation } as never) as StopColor }));
  // a single stop is widened to two of the same colour, 1 m apart
  if (stops.length === 1) stops.push({ elevation: stops[0]!.elevation + 1, color: stops[0]!.color });
  return colorRamp(stops, encoding);
}

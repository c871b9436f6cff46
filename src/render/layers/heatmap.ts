// heatmap: point features summed into a density (heatmap-weight, -radius, -intensity) coloured by
// heatmap-color at heatmap-opacity (heatmap-density.ts), laid on as one image of the view's pixels at
// the layer's place in the drawing order.
import type { HeatmapLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { addKernel, colorizeDensity, densityGrid, heatmapRamp, type PremultipliedColor } from "../heatmap-density";
import { num, passesFilter, propertyExpression } from "../style-eval";

export function drawHeatmap(layer: HeatmapLayerSpecification, ctx: DrawContext): void {
  const { zoom } = ctx;
  const opacity = num(layer, "paint", "heatmap-opacity", zoom);
  if (!(opacity > 0)) return;
  const { width, height, pixelRatio } = ctx.cam.view;
  const grid = densityGrid(width, height, pixelRatio);
  if (!grid) return;
  const intensity = num(layer, "paint", "heatmap-intensity", zoom);
  // A line or polygon puts a kernel on each of its vertices, as MapLibre does (and as it draws circles):
  // those its tile holds, which MapLibre reads too.
  for (const f of ctx.features(layer)) {
    if (!passesFilter(layer, zoom, f)) continue;
    const points = f.vertices();
    if (!points.length) continue;
    const weight = num(layer, "paint", "heatmap-weight", zoom, f);
    const radius = num(layer, "paint", "heatmap-radius", zoom, f);
    for (const [x, y] of points) addKernel(grid, x, y, radius, weight * intensity);
  }
  // drawn even where no point is: a ramp opaque at density 0 colours the whole view, as in MapLibre
  ctx.svg.image(colorizeDensity(grid, layerRamp(layer), opacity, Math.round(width * pixelRatio), Math.round(height * pixelRatio)));
}

/** The layer's colour ramp: heatmap-color (its default where unset) at densities 0..1. */
function layerRamp(layer: HeatmapLayerSpecification): Uint8Array {
  const expr = propertyExpression(layer, "paint", "heatmap-color");
  const transparent = { r: 0, g: 0, b: 0, a: 0 };
  return heatmapRamp((density) => {
    try {
      return (expr?.evaluate({ heatmapDensity: density } as never) as PremultipliedColor | undefined) ?? transparent;
    } catch {
      return transparent;
    }
  });
}

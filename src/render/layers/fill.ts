// fill: polygons with colour, opacity, explicit outline colour and sprite patterns; fill-sort-key order.
import type { FillLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import type { RenderFeature } from "../features";
import { pathData } from "../geometry";
import { patternFill } from "../pattern";
import { num, passesFilter, prop, svgColor } from "../style-eval";
import { Batches } from "../svg";
import { sortByKey } from "./sort";

export function drawFill(layer: FillLayerSpecification, ctx: DrawContext): void {
  const { zoom } = ctx;
  const features = sortByKey(
    layer,
    "fill-sort-key",
    ctx.features(layer).filter((f) => f.type === 3 && passesFilter(layer, zoom, f)),
    zoom,
  );
  const fills = new Batches<{ fill: string; opacity: number }>();
  const outlines = new Batches<{ stroke: string; opacity: number }>();
  const antialias = prop(layer, "paint", "fill-antialias", zoom) !== false;
  const outlineSet = layer.paint?.["fill-outline-color"] !== undefined && antialias;
  // without antialiasing MapLibre draws hard pixel edges; resvg's crisp edges are those, and cheaper
  const edges = antialias ? "" : ` shape-rendering="crispEdges"`;
  for (const f of features) {
    const polygons = f.polygons();
    if (!polygons.length) continue;
    const opacity = num(layer, "paint", "fill-opacity", zoom, f);
    if (opacity <= 0) continue;
    const d = pathData(polygons.flat(), true);
    const patternName = prop(layer, "paint", "fill-pattern", zoom, f);
    const pattern = patternName ? patternFill(ctx, String(patternName)) : null;
    if (pattern) {
      fills.add(`p${pattern}|${opacity}`, { fill: `url(#${pattern})`, opacity }, d);
      continue;
    }
    const color = svgColor(prop(layer, "paint", "fill-color", zoom, f));
    if (color.alpha > 0) fills.add(`${color.rgb}|${color.alpha * opacity}`, { fill: color.rgb, opacity: color.alpha * opacity }, d);
    if (outlineSet) addOutline(outlines, layer, f, zoom, opacity);
  }
  for (const { style, data } of fills.entries()) {
    ctx.svg.body.push(`<path d="${data}" fill="${style.fill}" fill-opacity="${style.opacity}"${edges}/>`);
  }
  for (const { style, data } of outlines.entries()) {
    ctx.svg.body.push(`<path d="${data}" fill="none" stroke="${style.stroke}" stroke-opacity="${style.opacity}" stroke-width="1"/>`);
  }
}

function addOutline(
  outlines: Batches<{ stroke: string; opacity: number }>,
  layer: FillLayerSpecification,
  f: RenderFeature,
  zoom: number,
  opacity: number,
): void {
  const color = svgColor(prop(layer, "paint", "fill-outline-color", zoom, f));
  if (color.alpha <= 0) return;
  // outlines follow the polygon rings as open lines, so where a tile cut a polygon no edge is drawn
  const alpha = color.alpha * opacity;
  outlines.add(`${color.rgb}|${alpha}`, { stroke: color.rgb, opacity: alpha }, pathData(f.lines(), false));
}

// fill-extrusion seen from straight above (static views have no pitch): the roofs, in
// fill-extrusion-color, with the layer's fill-extrusion-opacity applied once to the whole layer as
// MapLibre does (overlapping buildings do not darken each other). Patterns and lighting are not drawn.
import type { FillExtrusionLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { pathData } from "../geometry";
import { num, passesFilter, prop, svgColor } from "../style-eval";
import { Batches } from "../svg";

export function drawFillExtrusion(layer: FillExtrusionLayerSpecification, ctx: DrawContext): void {
  const { zoom } = ctx;
  const opacity = num(layer, "paint", "fill-extrusion-opacity", zoom);
  if (opacity <= 0) return;
  const roofs = new Batches<{ fill: string; alpha: number }>();
  for (const f of ctx.features(layer)) {
    if (f.type !== 3 || !passesFilter(layer, zoom, f)) continue;
    const polygons = f.polygons();
    if (!polygons.length) continue;
    const color = svgColor(prop(layer, "paint", "fill-extrusion-color", zoom, f));
    if (color.alpha > 0) roofs.add(`${color.rgb}|${color.alpha}`, { fill: color.rgb, alpha: color.alpha }, pathData(polygons.flat(), true));
  }
  const parts: string[] = [];
  for (const { style, data } of roofs.entries()) parts.push(`<path d="${data}" fill="${style.fill}" fill-opacity="${style.alpha}"/>`);
  if (parts.length) ctx.svg.body.push(`<g opacity="${opacity}">${parts.join("")}</g>`);
}

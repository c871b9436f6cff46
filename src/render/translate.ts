// fill-, line-, circle- and fill-extrusion-translate: the layer drawn shifted by an offset in pixels,
// which turns with the map unless its *-translate-anchor is "viewport" (as in MapLibre).
import type { LayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "./draw-context";
import { prop } from "./style-eval";
import { n } from "./svg";

const TRANSLATED: Record<string, string> = { fill: "fill", line: "line", circle: "circle", "fill-extrusion": "fill-extrusion" };

/** Runs `draw` and wraps what it added to the SVG in the layer's translation, if it has one. */
export function withTranslate(layer: LayerSpecification, ctx: DrawContext, draw: () => void): void {
  const prefix = TRANSLATED[layer.type];
  const start = ctx.svg.body.length;
  draw();
  if (!prefix || ctx.svg.body.length === start) return;
  const value = prop(layer, "paint", `${prefix}-translate`, ctx.zoom);
  if (!Array.isArray(value)) return;
  let [dx, dy] = [Number(value[0]) || 0, Number(value[1]) || 0];
  if (dx === 0 && dy === 0) return;
  if (prop(layer, "paint", `${prefix}-translate-anchor`, ctx.zoom) !== "viewport") {
    const { cos, sin } = ctx.cam;
    [dx, dy] = [cos * dx - sin * dy, sin * dx + cos * dy];
  }
  const parts = ctx.svg.body.splice(start);
  ctx.svg.body.push(`<g transform="translate(${n(dx)} ${n(dy)})">`, ...parts, "</g>");
}

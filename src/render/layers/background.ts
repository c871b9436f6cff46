// background: one rectangle over the whole view, colour or sprite pattern.
import type { BackgroundLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { patternFill } from "../pattern";
import { num, prop, svgColor } from "../style-eval";

export function drawBackground(layer: BackgroundLayerSpecification, ctx: DrawContext): void {
  const opacity = num(layer, "paint", "background-opacity", ctx.zoom);
  const { width, height } = ctx.cam.view;
  const patternName = prop(layer, "paint", "background-pattern", ctx.zoom);
  const pattern = patternName ? patternFill(ctx, String(patternName)) : null;
  if (pattern) {
    ctx.svg.body.push(`<rect width="${width}" height="${height}" fill="url(#${pattern})" opacity="${opacity}"/>`);
    return;
  }
  const color = svgColor(prop(layer, "paint", "background-color", ctx.zoom));
  const alpha = color.alpha * opacity;
  if (alpha <= 0) return;
  ctx.svg.body.push(`<rect width="${width}" height="${height}" fill="${color.rgb}" fill-opacity="${alpha}"/>`);
}

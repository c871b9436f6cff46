// circle: radius, colour, opacity, blur, stroke drawn outside the radius as MapLibre does; circle-sort-key.
import type { CircleLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { num, passesFilter, prop, straightColor, svgColor } from "../style-eval";
import { n } from "../svg";
import { sortByKey } from "./sort";

export function drawCircle(layer: CircleLayerSpecification, ctx: DrawContext): void {
  const { zoom } = ctx;
  const { width, height } = ctx.cam.view;
  const features = sortByKey(
    layer,
    "circle-sort-key",
    ctx.features(layer).filter((f) => passesFilter(layer, zoom, f)),
    zoom,
  );
  const out = ctx.svg.body;
  for (const f of features) {
    const points = f.vertices();
    if (!points.length) continue;
    const radius = num(layer, "paint", "circle-radius", zoom, f);
    const opacity = num(layer, "paint", "circle-opacity", zoom, f);
    const fill = svgColor(prop(layer, "paint", "circle-color", zoom, f));
    const strokeWidth = num(layer, "paint", "circle-stroke-width", zoom, f);
    const stroke = svgColor(prop(layer, "paint", "circle-stroke-color", zoom, f));
    const strokeAlpha = stroke.alpha * num(layer, "paint", "circle-stroke-opacity", zoom, f);
    const fillAlpha = fill.alpha * opacity;
    const outer = radius + strokeWidth;
    if (outer <= 0 || (fillAlpha <= 0 && (strokeWidth <= 0 || strokeAlpha <= 0))) continue;
    const blur = num(layer, "paint", "circle-blur", zoom, f);
    const soft =
      blur > 0 ? blurredCircle(ctx, straightColor(prop(layer, "paint", "circle-color", zoom, f)), opacity, straightColor(prop(layer, "paint", "circle-stroke-color", zoom, f)), num(layer, "paint", "circle-stroke-opacity", zoom, f), radius, strokeWidth, blur) : null;
    for (const [x, y] of points) {
      if (x < -outer || y < -outer || x > width + outer || y > height + outer) continue;
      if (soft) {
        out.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(outer)}" fill="url(#${soft})"/>`);
        continue;
      }
      if (fillAlpha > 0 && radius > 0) out.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius)}" fill="${fill.rgb}" fill-opacity="${fillAlpha}"/>`);
      if (strokeWidth > 0 && strokeAlpha > 0) {
        out.push(
          `<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius + strokeWidth / 2)}" fill="none" stroke="${stroke.rgb}" stroke-opacity="${strokeAlpha}" stroke-width="${n(strokeWidth)}"/>`,
        );
      }
    }
  }
}

const smoothstep = (t: number) => {
  const c = Math.max(0, Math.min(1, t));
  return c * c * (3 - 2 * c);
};

/** Stops of a blurred circle's gradient, from the centre to the outer edge. */
const BLUR_STOPS = 24;

/**
 * A blurred circle as MapLibre's circle shader draws it, as a radial gradient over the circle with its
 * stroke: at e (0 centre, 1 outer edge) the opacity is smoothstep((1 - e) / blur), and the stroke colour
 * blends in by smoothstep over `blur` before the fill radius, both as premultiplied colours.
 */
function blurredCircle(ctx: DrawContext, fill: [number, number, number, number], fillOpacity: number, stroke: [number, number, number, number], strokeOpacity: number, radius: number, strokeWidth: number, blur: number): string {
  const inner = strokeWidth > 0 ? radius / (radius + strokeWidth) : 1;
  const fa = fill[3] * fillOpacity;
  const sa = stroke[3] * strokeOpacity;
  const stops: string[] = [];
  for (let i = 0; i <= BLUR_STOPS; i++) {
    const e = i / BLUR_STOPS;
    const opacity = smoothstep((1 - e) / blur);
    const c = strokeWidth < 0.01 ? 0 : smoothstep((e - inner + blur) / blur);
    const alpha = (1 - c) * fa + c * sa;
    const channel = (k: number) => (alpha > 0 ? Math.round(((1 - c) * fill[k]! * fa + c * stroke[k]! * sa) / alpha) : 0);
    stops.push(`<stop offset="${n(e)}" stop-color="rgb(${channel(0)},${channel(1)},${channel(2)})" stop-opacity="${n(opacity * alpha)}"/>`);
  }
  const body = stops.join("");
  return ctx.svg.defOnce(`circle-blur:${body}`, (id) => `<radialGradient id="${id}">${body}</radialGradient>`);
}

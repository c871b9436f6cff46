// circle: radius, colour, opacity, stroke drawn outside the radius as MapLibre does; circle-sort-key.
import type { CircleLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { num, passesFilter, prop, svgColor } from "../style-eval";
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
    const points = f.points();
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
    for (const [x, y] of points) {
      if (x < -outer || y < -outer || x > width + outer || y > height + outer) continue;
      if (fillAlpha > 0 && radius > 0) out.push(`<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius)}" fill="${fill.rgb}" fill-opacity="${fillAlpha}"/>`);
      if (strokeWidth > 0 && strokeAlpha > 0) {
        out.push(
          `<circle cx="${n(x)}" cy="${n(y)}" r="${n(radius + strokeWidth / 2)}" fill="none" stroke="${stroke.rgb}" stroke-opacity="${strokeAlpha}" stroke-width="${n(strokeWidth)}"/>`,
        );
      }
    }
  }
}

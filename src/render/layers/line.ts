// line: width, colour or sprite pattern, opacity, blur, dash array (in line widths), cap, join, miter
// limit, gap width (casing drawn as two parallel lines) and offset; line-sort-key order.
import type { LineLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { pathData, type Ring } from "../geometry";
import { offsetLine } from "../offset";
import { THIN_LINE_DEVICE_PX, thinLineOutline } from "../thin-line";
import { num, passesFilter, prop, svgColor } from "../style-eval";
import { Batches, n } from "../svg";
import { layoutZoom } from "../view";
import { drawPatternLine } from "../line-pattern";
import { blurFilter } from "../blur-filter";
import { sortByKey } from "./sort";

interface LineStyle {
  color: string;
  opacity: number;
  width: number;
  dash: string;
  /** Gaussian blur (px) of line-blur, 0 for none */
  blur: number;
}

/**
 * MapLibre fades a blurred line from full opacity at `blur` px inside its edge to nothing at the edge
 * (linearly). Drawn here as a narrower stroke whose edge sits mid-fade, blurred by the Gaussian of that
 * ramp's spread (a ramp of b px is an edge smoothed by a b-px box: sigma b/sqrt(12)). A blur wider than
 * half the line never reaches full opacity in MapLibre: the stroke is then half as wide and as faint.
 */
function blurred(width: number, blur: number, alpha: number): { width: number; alpha: number; sigma: number } {
  if (blur <= 0) return { width, alpha, sigma: 0 };
  if (blur <= width / 2) return { width: width - blur, alpha, sigma: blur / Math.sqrt(12) };
  return { width: width / 2, alpha: (alpha * width) / (2 * blur), sigma: blur / Math.sqrt(12) };
}

export function drawLine(layer: LineLayerSpecification, ctx: DrawContext): void {
  const { zoom } = ctx;
  const features = sortByKey(
    layer,
    "line-sort-key",
    ctx.features(layer).filter((f) => f.type !== 1 && passesFilter(layer, zoom, f)),
    zoom,
  );
  const cap = String(prop(layer, "layout", "line-cap", zoom) ?? "butt");
  const joinValue = String(prop(layer, "layout", "line-join", zoom) ?? "miter");
  const join = joinValue === "fakeround" ? "round" : joinValue;
  const miterLimit = num(layer, "layout", "line-miter-limit", zoom) || 2;
  const batches = new Batches<LineStyle>();
  const thinBatches = new Batches<LineStyle>();
  const pixelRatio = ctx.cam.view.pixelRatio;
  for (const f of features) {
    const lines = f.lines();
    if (!lines.length) continue;
    const width = num(layer, "paint", "line-width", zoom, f);
    const opacity = num(layer, "paint", "line-opacity", zoom, f);
    // A pattern replaces the colour; one the sprite lacks draws nothing, as in MapLibre.
    const patternName = prop(layer, "paint", "line-pattern", zoom, f);
    const pattern = patternName ? ctx.sprite.get(String(patternName)) : null;
    if (patternName && !pattern) continue;
    const color = pattern ? { rgb: "pattern", alpha: 1 } : svgColor(prop(layer, "paint", "line-color", zoom, f));
    const blur = blurred(width, num(layer, "paint", "line-blur", zoom, f), color.alpha * opacity);
    const alpha = blur.alpha;
    if (width <= 0 || alpha <= 0) continue;
    const dashArray = prop(layer, "paint", "line-dasharray", zoom, f);
    const dash = Array.isArray(dashArray) && dashArray.length >= 2 && dashArray.every((v) => typeof v === "number" && v >= 0) && dashArray.some((v) => v > 0)
      ? (dashArray as number[]).map((v) => n(v * width)).join(" ")
      : "";
    const gap = num(layer, "paint", "line-gap-width", zoom, f);
    const offset = num(layer, "paint", "line-offset", zoom, f);
    // with a gap, MapLibre draws two lines of `width` either side of the gap (road casings)
    const offsets = gap > 0 ? [offset - gap / 2 - width / 2, offset + gap / 2 + width / 2] : [offset];
    if (pattern) {
      // along the line (line-dasharray does not apply to a pattern, as in MapLibre); the repeat is
      // measured with the width at the tile's zoom, at which MapLibre lays the line out
      const tileScale = 2 ** (zoom - layoutZoom(zoom));
      const period = ((pattern.width * num(layer, "paint", "line-width", layoutZoom(zoom), f)) / pattern.height) * tileScale;
      const filter = blur.sigma ? ` filter="url(#${blurFilter(ctx.svg, blur.sigma)})"` : "";
      const strokeAttributes = ` stroke-linecap="${cap}" stroke-linejoin="${join}" stroke-miterlimit="${miterLimit}"${filter}`;
      for (const o of offsets) {
        const at = (l: Ring) => (o === 0 ? l : offsetLine(l, o));
        const shape = pathData(lines.map(at), false);
        drawPatternLine(ctx.svg, pattern, { shape, whole: f.labelLines().map(at), width: blur.width, period, opacity: alpha, strokeAttributes });
      }
      continue;
    }
    const style = { color: color.rgb, opacity: alpha, width: blur.width, dash, blur: blur.sigma };
    const key = `${color.rgb}|${alpha}|${blur.width}|${dash}|${blur.sigma}`;
    const thin = !dash && !blur.sigma && width * pixelRatio <= THIN_LINE_DEVICE_PX;
    for (const o of offsets) {
      const drawn: Ring[] = o === 0 ? lines : lines.map((l) => offsetLine(l, o));
      if (thin) thinBatches.add(key, style, pathData(drawn.map((l) => thinLineOutline(l, width, cap)), true));
      else batches.add(key, style, pathData(drawn, false));
    }
  }
  for (const { style, data } of thinBatches.entries()) {
    ctx.svg.body.push(`<path d="${data}" fill="${style.color}" fill-opacity="${style.opacity}"/>`);
  }
  for (const { style, data } of batches.entries()) {
    const filter = style.blur ? ` filter="url(#${blurFilter(ctx.svg, style.blur)})"` : "";
    ctx.svg.body.push(
      `<path d="${data}" fill="none" stroke="${style.color}" stroke-opacity="${style.opacity}" stroke-width="${n(style.width)}" ` +
        `stroke-linecap="${cap}" stroke-linejoin="${join}" stroke-miterlimit="${miterLimit}"${style.dash ? ` stroke-dasharray="${style.dash}"` : ""}${filter}/>`,
    );
  }
}

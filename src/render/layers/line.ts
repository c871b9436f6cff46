// line: width, colour, opacity, dash array (in line widths), cap, join, miter limit, gap width (casing
// drawn as two parallel lines) and offset; line-sort-key order.
import type { LineLayerSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { DrawContext } from "../draw-context";
import { pathData, type Ring } from "../geometry";
import { offsetLine } from "../offset";
import { THIN_LINE_DEVICE_PX, thinLineOutline } from "../thin-line";
import { num, passesFilter, prop, svgColor } from "../style-eval";
import { Batches, n } from "../svg";
import { sortByKey } from "./sort";

interface LineStyle {
  color: string;
  opacity: number;
  width: number;
  dash: string;
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
    const color = svgColor(prop(layer, "paint", "line-color", zoom, f));
    const alpha = color.alpha * opacity;
    if (width <= 0 || alpha <= 0) continue;
    const dashArray = prop(layer, "paint", "line-dasharray", zoom, f);
    const dash = Array.isArray(dashArray) && dashArray.length >= 2 && dashArray.every((v) => typeof v === "number" && v >= 0) && dashArray.some((v) => v > 0)
      ? (dashArray as number[]).map((v) => n(v * width)).join(" ")
      : "";
    const gap = num(layer, "paint", "line-gap-width", zoom, f);
    const offset = num(layer, "paint", "line-offset", zoom, f);
    // with a gap, MapLibre draws two lines of `width` either side of the gap (road casings)
    const offsets = gap > 0 ? [offset - gap / 2 - width / 2, offset + gap / 2 + width / 2] : [offset];
    const style = { color: color.rgb, opacity: alpha, width, dash };
    const key = `${color.rgb}|${alpha}|${width}|${dash}`;
    const thin = !dash && width * pixelRatio <= THIN_LINE_DEVICE_PX;
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
    ctx.svg.body.push(
      `<path d="${data}" fill="none" stroke="${style.color}" stroke-opacity="${style.opacity}" stroke-width="${n(style.width)}" ` +
        `stroke-linecap="${cap}" stroke-linejoin="${join}" stroke-miterlimit="${miterLimit}"${style.dash ? ` stroke-dasharray="${style.dash}"` : ""}/>`,
    );
  }
}

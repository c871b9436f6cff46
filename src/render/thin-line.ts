// Thin solid lines drawn as filled outlines instead of SVG strokes: resvg's stroker costs about twice as
// much per segment as filling, and country borders or contours have thousands of segments. At a width of
// a couple of device pixels the join and cap shapes are below what can be seen, so the outline is the
// line offset half a width to each side (mitred joins, square ends for round/square caps).
import type { Ring } from "./geometry";
import { offsetLine } from "./offset";

/** Widest line, in device pixels, that is filled as an outline rather than stroked. */
export const THIN_LINE_DEVICE_PX = 2;

export function thinLineOutline(line: Ring, width: number, cap: string): Ring {
  const points = cap === "butt" ? line : extendEnds(line, width / 2);
  const left = offsetLine(points, -width / 2);
  const right = offsetLine(points, width / 2);
  const ring = left.slice();
  for (let i = right.length - 2; i >= 0; i -= 2) ring.push(right[i]!, right[i + 1]!);
  return ring;
}

function extendEnds(line: Ring, by: number): Ring {
  const out = line.slice();
  const n = line.length;
  const stretch = (end: number, towards: number) => {
    const dx = line[end]! - line[towards]!;
    const dy = line[end + 1]! - line[towards + 1]!;
    const len = Math.hypot(dx, dy);
    if (len === 0) return;
    out[end] = line[end]! + (dx / len) * by;
    out[end + 1] = line[end + 1]! + (dy / len) * by;
  };
  stretch(0, 2);
  stretch(n - 2, n - 4);
  return out;
}

// Glyph outlines as closed polylines in pixel units (y up, origin at the glyph's pen position).
// Curves are flattened finely enough (FLATNESS_PX) that the polyline stays within a small fraction of
// a pixel of the true outline at the 24 px size the SDF is built for.
import type { PathCommand } from "opentype.js";

/** Maximum distance, in output pixels, between a flattened curve and the curve itself. */
const FLATNESS_PX = 0.02;

export interface Polylines {
  /** x0, y0, x1, y1, ... for every contour back to back */
  points: Float64Array;
  /** index (in points, i.e. 2 * vertex) where each contour starts; contours are implicitly closed */
  starts: number[];
  length: number;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

class PointBuffer {
  data = new Float64Array(512);
  length = 0;
  push(x: number, y: number): void {
    if (this.length + 2 > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = x;
    this.data[this.length++] = y;
  }
}

/** Flattens opentype.js path commands (font units, y up) scaled by `scale` into closed polylines. */
export function flattenPath(commands: PathCommand[], scale: number): Polylines {
  const buf = new PointBuffer();
  const starts: number[] = [];
  let cx = 0;
  let cy = 0;
  let open = false;
  const begin = (x: number, y: number) => {
    starts.push(buf.length);
    buf.push(x, y);
    open = true;
  };
  for (const c of commands) {
    switch (c.type) {
      case "M":
        cx = c.x! * scale;
        cy = c.y! * scale;
        begin(cx, cy);
        break;
      case "L": {
        const x = c.x! * scale;
        const y = c.y! * scale;
        if (!open) begin(cx, cy);
        buf.push(x, y);
        cx = x;
        cy = y;
        break;
      }
      case "Q": {
        if (!open) begin(cx, cy);
        const x1 = c.x1! * scale, y1 = c.y1! * scale, x = c.x! * scale, y = c.y! * scale;
        // The second difference bounds the distance between the curve and its chords: n segments
        // deviate at most |p0 - 2p1 + p2| / (4 n^2).
        const dd = Math.hypot(cx - 2 * x1 + x, cy - 2 * y1 + y);
        const n = Math.max(1, Math.ceil(Math.sqrt(dd / (4 * FLATNESS_PX))));
        for (let i = 1; i < n; i++) {
          const t = i / n, u = 1 - t;
          buf.push(u * u * cx + 2 * u * t * x1 + t * t * x, u * u * cy + 2 * u * t * y1 + t * t * y);
        }
        buf.push(x, y);
        cx = x;
        cy = y;
        break;
      }
      case "C": {
        if (!open) begin(cx, cy);
        const x1 = c.x1! * scale, y1 = c.y1! * scale, x2 = c.x2! * scale, y2 = c.y2! * scale, x = c.x! * scale, y = c.y! * scale;
        const dd = Math.max(Math.hypot(cx - 2 * x1 + x2, cy - 2 * y1 + y2), Math.hypot(x1 - 2 * x2 + x, y1 - 2 * y2 + y));
        const n = Math.max(1, Math.ceil(Math.sqrt((3 * dd) / (4 * FLATNESS_PX))));
        for (let i = 1; i < n; i++) {
          const t = i / n, u = 1 - t;
          const a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, e = t * t * t;
          buf.push(a * cx + b * x1 + d * x2 + e * x, a * cy + b * y1 + d * y2 + e * y);
        }
        buf.push(x, y);
        cx = x;
        cy = y;
        break;
      }
      case "Z":
        if (open) {
          const s = starts[starts.length - 1]!;
          cx = buf.data[s]!;
          cy = buf.data[s + 1]!;
        }
        open = false;
        break;
    }
  }
  let xMin = Infinity, yMin = Infinity, xMax = -Infinity, yMax = -Infinity;
  const p = buf.data;
  for (let i = 0; i < buf.length; i += 2) {
    const x = p[i]!, y = p[i + 1]!;
    if (x < xMin) xMin = x;
    if (x > xMax) xMax = x;
    if (y < yMin) yMin = y;
    if (y > yMax) yMax = y;
  }
  return { points: p, starts, length: buf.length, xMin, yMin, xMax, yMax };
}

// line-offset and line-gap-width: a polyline moved sideways by `d` px (positive = right of the direction
// of travel, as in MapLibre), using the averaged normal at each vertex (miter, capped for sharp turns).
import type { Ring } from "./geometry";

export function offsetLine(line: Ring, d: number): Ring {
  const count = line.length / 2;
  if (count < 2) return line;
  const out: Ring = [];
  for (let i = 0; i < count; i++) {
    const [px, py] = normal(line, Math.max(0, i - 1), Math.max(1, i));
    const [nx, ny] = normal(line, Math.min(i, count - 2), Math.min(i + 1, count - 1));
    let mx = px + nx;
    let my = py + ny;
    const len = Math.hypot(mx, my);
    if (len < 1e-6) {
      mx = nx;
      my = ny;
    } else {
      mx /= len;
      my /= len;
    }
    // the miter grows as 1/cos(half the turn); cap it so hairpins do not shoot off
    const cos = mx * nx + my * ny;
    const scale = d / Math.max(cos, 0.5);
    out.push(line[i * 2]! + mx * scale, line[i * 2 + 1]! + my * scale);
  }
  return out;
}

/** Unit normal pointing right of the segment a->b on screen (y down). */
function normal(line: Ring, a: number, b: number): [number, number] {
  const dx = line[b * 2]! - line[a * 2]!;
  const dy = line[b * 2 + 1]! - line[a * 2 + 1]!;
  const len = Math.hypot(dx, dy) || 1;
  return [-dy / len, dx / len];
}

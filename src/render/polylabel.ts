// Where a polygon gets its label: a point well inside it (a coarse pole of inaccessibility: the grid
// point farthest from every edge, refined once around the best cell), as MapLibre labels polygons.
import type { Ring } from "./geometry";

export function labelPoint(polygon: Ring[]): [number, number] | null {
  const outer = polygon[0];
  if (!outer || outer.length < 6) return null;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < outer.length; i += 2) {
    minX = Math.min(minX, outer[i]!);
    maxX = Math.max(maxX, outer[i]!);
    minY = Math.min(minY, outer[i + 1]!);
    maxY = Math.max(maxY, outer[i + 1]!);
  }
  let best: [number, number] | null = null;
  let bestDistance = 0;
  let cx = (minX + maxX) / 2;
  let cy = (minY + maxY) / 2;
  let w = maxX - minX;
  let h = maxY - minY;
  for (let pass = 0; pass < 2; pass++) {
    const steps = 8;
    for (let i = 0; i <= steps; i++) {
      for (let j = 0; j <= steps; j++) {
        const x = cx - w / 2 + (w * i) / steps;
        const y = cy - h / 2 + (h * j) / steps;
        const d = signedDistance(x, y, polygon);
        if (d > bestDistance) {
          bestDistance = d;
          best = [x, y];
        }
      }
    }
    if (!best) return null;
    [cx, cy] = best;
    w /= steps / 2;
    h /= steps / 2;
  }
  return best;
}

/** Distance to the nearest edge, positive inside the polygon (holes excluded), else 0. */
function signedDistance(x: number, y: number, polygon: Ring[]): number {
  let inside = false;
  let min = Infinity;
  for (const ring of polygon) {
    const n = ring.length;
    for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
      const ax = ring[i]!;
      const ay = ring[i + 1]!;
      const bx = ring[j]!;
      const by = ring[j + 1]!;
      if (ay > y !== by > y && x < ((bx - ax) * (y - ay)) / (by - ay) + ax) inside = !inside;
      min = Math.min(min, segmentDistance(x, y, ax, ay, bx, by));
    }
  }
  return inside ? min : 0;
}

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

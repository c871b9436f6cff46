// Where a polygon gets its label: its pole of inaccessibility, the point inside it farthest from every
// edge (holes included), as MapLibre labels polygons. Found to within PRECISION px by splitting square
// cells of the bounding box, most promising first (a cell's promise: its centre's distance plus its
// half-diagonal, the farthest any point in it can be), and dropping cells that cannot beat the best by
// more than the precision. A coarse grid (as this once was) put labels up to several px off, which moved
// their collision boxes: a small island's label missed the next label's box and showed cut off.
import type { Ring } from "./geometry";

/** How close to the true pole, in px: finer than MapLibre's own search at the label's size. */
const PRECISION = 0.5;
/** A bound on the cells looked at, for a polygon of very many tiny wiggles. */
const MAX_CELLS = 4000;

interface Cell {
  x: number;
  y: number;
  /** half the cell's side */
  h: number;
  /** signed distance of the centre to the polygon (negative outside) */
  d: number;
  /** the most any point of the cell can have */
  max: number;
}

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
  const size = Math.min(maxX - minX, maxY - minY);
  if (!(size > 0)) return null;
  const cell = (x: number, y: number, h: number): Cell => {
    const d = signedDistance(x, y, polygon);
    return { x, y, h, d, max: d + h * Math.SQRT2 };
  };
  const queue = new CellQueue();
  for (let x = minX; x < maxX; x += size) for (let y = minY; y < maxY; y += size) queue.push(cell(x + size / 2, y + size / 2, size / 2));
  // The centroid and the box's centre are good first guesses: most cells are then dropped at once.
  let best = cell(...centroid(outer, minX, minY, maxX, maxY), 0);
  const middle = cell((minX + maxX) / 2, (minY + maxY) / 2, 0);
  if (middle.d > best.d) best = middle;
  for (let seen = 0; queue.size && seen < MAX_CELLS; seen++) {
    const c = queue.pop()!;
    if (c.d > best.d) best = c;
    if (c.max - best.d <= PRECISION) continue;
    const h = c.h / 2;
    queue.push(cell(c.x - h, c.y - h, h));
    queue.push(cell(c.x + h, c.y - h, h));
    queue.push(cell(c.x - h, c.y + h, h));
    queue.push(cell(c.x + h, c.y + h, h));
  }
  return best.d > 0 ? [best.x, best.y] : null;
}

/** The outer ring's area centroid (its box's centre for a ring of no area). */
function centroid(ring: Ring, minX: number, minY: number, maxX: number, maxY: number): [number, number] {
  let area = 0;
  let x = 0;
  let y = 0;
  const n = ring.length;
  for (let i = 0, j = n - 2; i < n; j = i, i += 2) {
    const f = ring[i]! * ring[j + 1]! - ring[j]! * ring[i + 1]!;
    x += (ring[i]! + ring[j]!) * f;
    y += (ring[i + 1]! + ring[j + 1]!) * f;
    area += f * 3;
  }
  return area === 0 ? [(minX + maxX) / 2, (minY + maxY) / 2] : [x / area, y / area];
}

/** Distance to the nearest edge of any ring, positive inside the polygon (holes excluded), negative outside. */
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
  return inside ? min : -min;
}

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** A binary max-heap of cells by their promise. */
class CellQueue {
  private readonly cells: Cell[] = [];

  get size(): number {
    return this.cells.length;
  }

  push(c: Cell): void {
    const a = this.cells;
    a.push(c);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]!.max >= c.max) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = c;
  }

  pop(): Cell | undefined {
    const a = this.cells;
    const top = a[0];
    const last = a.pop();
    if (!a.length || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let big = i;
      let bigMax = last.max;
      if (l < a.length && a[l]!.max > bigMax) [big, bigMax] = [l, a[l]!.max];
      if (r < a.length && a[r]!.max > bigMax) big = r;
      if (big === i) break;
      a[i] = a[big]!;
      i = big;
    }
    a[i] = last;
    return top;
  }
}

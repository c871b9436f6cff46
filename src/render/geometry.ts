// Clipping and simplification that keep the SVG small: features are cut to the part of their tile that
// can be seen (polygons as polygons, lines and polygon outlines as open lines, so tile seams never show),
// then transformed to screen pixels and simplified to ~0.5 px (Douglas-Peucker).
import { apply, type Affine } from "./view";

export type Ring = number[]; // x0, y0, x1, y1, ...

export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** Sutherland-Hodgman against an axis-aligned box; the ring stays closed implicitly. */
export function clipPolygon(ring: Ring, box: Box): Ring {
  let out = ring;
  for (let edge = 0; edge < 4 && out.length >= 6; edge++) {
    const input = out;
    out = [];
    const n = input.length / 2;
    for (let i = 0; i < n; i++) {
      const px = input[((i + n - 1) % n) * 2]!;
      const py = input[((i + n - 1) % n) * 2 + 1]!;
      const cx = input[i * 2]!;
      const cy = input[i * 2 + 1]!;
      const pIn = inside(px, py, edge, box);
      const cIn = inside(cx, cy, edge, box);
      if (cIn) {
        if (!pIn) out.push(...intersect(px, py, cx, cy, edge, box));
        out.push(cx, cy);
      } else if (pIn) out.push(...intersect(px, py, cx, cy, edge, box));
    }
  }
  return out.length >= 6 ? out : [];
}

function inside(x: number, y: number, edge: number, b: Box): boolean {
  return edge === 0 ? x >= b.minX : edge === 1 ? x <= b.maxX : edge === 2 ? y >= b.minY : y <= b.maxY;
}

function intersect(x0: number, y0: number, x1: number, y1: number, edge: number, b: Box): [number, number] {
  if (edge < 2) {
    const x = edge === 0 ? b.minX : b.maxX;
    return [x, y0 + ((y1 - y0) * (x - x0)) / (x1 - x0)];
  }
  const y = edge === 2 ? b.minY : b.maxY;
  return [x0 + ((x1 - x0) * (y - y0)) / (y1 - y0), y];
}

/** Cuts a polyline to a box (Liang-Barsky per segment); returns the visible runs. */
export function clipLine(line: Ring, box: Box): Ring[] {
  const runs: Ring[] = [];
  let run: Ring = [];
  for (let i = 0; i + 3 < line.length; i += 2) {
    const seg = clipSegment(line[i]!, line[i + 1]!, line[i + 2]!, line[i + 3]!, box);
    if (!seg) {
      if (run.length) runs.push(run);
      run = [];
      continue;
    }
    const [ax, ay, bx, by, cutEnd] = seg;
    // a segment lying on the box's right or bottom edge belongs to the neighbouring tile (which has it on
    // its left or top edge): drawing it in both would double a translucent line
    if ((ax === bx && ax === box.maxX) || (ay === by && ay === box.maxY)) {
      if (run.length) runs.push(run);
      run = [];
      continue;
    }
    if (!run.length) run.push(ax, ay);
    run.push(bx, by);
    if (cutEnd) {
      runs.push(run);
      run = [];
    }
  }
  if (run.length >= 4) runs.push(run);
  return runs.filter((r) => r.length >= 4);
}

function clipSegment(x0: number, y0: number, x1: number, y1: number, b: Box): [number, number, number, number, boolean] | null {
  const dx = x1 - x0;
  const dy = y1 - y0;
  let t0 = 0;
  let t1 = 1;
  const checks: [number, number][] = [
    [-dx, x0 - b.minX],
    [dx, b.maxX - x0],
    [-dy, y0 - b.minY],
    [dy, b.maxY - y0],
  ];
  for (const [p, q] of checks) {
    if (p === 0) {
      if (q < 0) return null;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 > t1) return null;
    }
  }
  return [x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, t1 < 1];
}

/** Transforms to screen px, dropping vertices closer than `tolerance` px to the last one kept. */
export function toScreen(ring: Ring, m: Affine, tolerance: number, closed: boolean): Ring {
  const out: Ring = [];
  const n = ring.length;
  let lx = Infinity;
  let ly = Infinity;
  for (let i = 0; i < n; i += 2) {
    const [x, y] = apply(m, ring[i]!, ring[i + 1]!);
    const last = i === n - 2;
    if (!last && Math.abs(x - lx) < tolerance && Math.abs(y - ly) < tolerance) continue;
    out.push(x, y);
    lx = x;
    ly = y;
  }
  const simplified = out.length > 6 ? douglasPeucker(out, tolerance) : out;
  return simplified.length >= (closed ? 6 : 4) ? simplified : [];
}

/** Ramer-Douglas-Peucker: keeps the vertices that move the line by more than `tolerance` px. */
function douglasPeucker(points: Ring, tolerance: number): Ring {
  const n = points.length / 2;
  const keep = new Uint8Array(n);
  keep[0] = 1;
  keep[n - 1] = 1;
  const stack: number[] = [0, n - 1];
  const tol2 = tolerance * tolerance;
  while (stack.length) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    const ax = points[first * 2]!;
    const ay = points[first * 2 + 1]!;
    const dx = points[last * 2]! - ax;
    const dy = points[last * 2 + 1]! - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let worstD = tol2;
    for (let i = first + 1; i < last; i++) {
      const px = points[i * 2]! - ax;
      const py = points[i * 2 + 1]! - ay;
      let d: number;
      if (len2 === 0) d = px * px + py * py;
      else {
        const t = Math.max(0, Math.min(1, (px * dx + py * dy) / len2));
        d = (px - t * dx) ** 2 + (py - t * dy) ** 2;
      }
      if (d > worstD) {
        worstD = d;
        worst = i;
      }
    }
    if (worst > 0) {
      keep[worst] = 1;
      stack.push(first, worst, worst, last);
    }
  }
  const out: Ring = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(points[i * 2]!, points[i * 2 + 1]!);
  return out;
}

/** Twice the signed area (positive = clockwise on screen, y down). */
export function signedArea(ring: Ring): number {
  let sum = 0;
  const n = ring.length;
  for (let i = 0, j = n - 2; i < n; j = i, i += 2) sum += (ring[j]! - ring[i]!) * (ring[i + 1]! + ring[j + 1]!);
  return sum;
}

/** Groups rings into polygons (exterior then holes) by winding, as MapLibre's classifyRings. */
export function classifyRings(rings: Ring[]): Ring[][] {
  const polygons: Ring[][] = [];
  let current: Ring[] | null = null;
  let exteriorSign = 0;
  for (const ring of rings) {
    const area = signedArea(ring);
    if (area === 0) continue;
    const sign = Math.sign(area);
    if (exteriorSign === 0) exteriorSign = sign;
    if (sign === exteriorSign || !current) {
      current = [ring];
      polygons.push(current);
    } else current.push(ring);
  }
  return polygons;
}

const fmt = (v: number) => String(Math.round(v * 10) / 10);

/** SVG path data for rings (closed) or lines (open). */
export function pathData(rings: Ring[], closed: boolean): string {
  let d = "";
  for (const r of rings) {
    d += `M${fmt(r[0]!)} ${fmt(r[1]!)}`;
    for (let i = 2; i < r.length; i += 2) d += `L${fmt(r[i]!)} ${fmt(r[i + 1]!)}`;
    if (closed) d += "Z";
  }
  return d;
}

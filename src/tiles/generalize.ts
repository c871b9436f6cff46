// Coarser copies of large lines and polygons for the low zooms, made while reading. A low-zoom tile
// reaches a large share of the data (zoom 0: all of it), and the tiler reads at most a share of the
// memory budget of feature text per tile: with only the full-resolution text, a world of Natural Earth
// 1:10m countries (24 MB) lost half its countries at zoom 0 at the default budget. Each copy is simplified
// (Douglas-Peucker in Web Mercator) at half the tolerance the tiler itself uses at the deepest zoom the
// copy serves, and its coordinates rounded far below that tolerance, so the tiles drawn from it are what
// the full text would have given; the tiler simplifies each tile further as it always did.
import type { Geometry, Position } from "geojson";
import { toUnitSquare } from "./readers/mercator";

/** The deepest zoom each copy serves: zooms 0-3 read the first, 4-6 the second, 7-9 the third, deeper ones the full text. */
export const GENERALIZED_ZOOMS = [3, 6, 9] as const;

/** Features with less text than this are left as they are: their copies would save little. */
export const MIN_TEXT = 2048;
/** A copy is kept only when it is at most this share of the text it is made from. */
const WORTH = 0.8;
/** The tile extent the tiler encodes with; tolerances are in its units. */
const EXTENT = 4096;

/** The copy's tolerance in the unit square: half the tiler's at the copy's deepest zoom. */
const toleranceAt = (zoom: number, tolerancePx: number) => tolerancePx / (2 ** (zoom + 1) * EXTENT);

/** Digits kept for longitude/latitude: a 1e-6 degree step is under a hundredth of the finest tolerance above. */
const round = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * The geometry text each of GENERALIZED_ZOOMS reads for one feature, or null for the full text, for the
 * levels `wanted` (the others read the next finer copy): a copy is made from the next finer one (a large
 * feature is walked once at full resolution) and kept when it is at most WORTH of that one's size, else its
 * zooms read the finer one. Null for points and small features.
 */
export function generalizedTexts(geometry: Geometry, text: number, tolerancePx: number, wanted: readonly boolean[] = GENERALIZED_ZOOMS.map(() => true)): (string | null)[] | null {
  if (text < MIN_TEXT || geometry.type === "Point" || geometry.type === "MultiPoint" || geometry.type === "GeometryCollection") return null;
  const copies: (string | null)[] = GENERALIZED_ZOOMS.map(() => null);
  let from: Geometry = geometry;
  let fromText = text;
  for (let i = GENERALIZED_ZOOMS.length - 1; i >= 0; i--) {
    copies[i] = copies[i + 1] ?? null;
    if (!wanted[i]) continue;
    const simpler = simplifyGeometry(from, toleranceAt(GENERALIZED_ZOOMS[i]!, tolerancePx));
    const json = JSON.stringify(simpler);
    // Not worth its own copy: these zooms read the finer one (or the full text).
    if (json.length > fromText * WORTH) continue;
    copies[i] = json;
    from = simpler;
    fromText = json.length;
  }
  return copies.some((c) => c !== null) ? copies : null;
}

function simplifyGeometry(g: Geometry, tolerance: number): Geometry {
  const sq = tolerance * tolerance;
  switch (g.type) {
    case "LineString":
      return { type: "LineString", coordinates: simplifyLine(g.coordinates, sq) };
    case "MultiLineString":
      return { type: "MultiLineString", coordinates: g.coordinates.map((l) => simplifyLine(l, sq)) };
    case "Polygon":
      return { type: "Polygon", coordinates: g.coordinates.map((r) => simplifyRing(r, sq)) };
    case "MultiPolygon":
      return { type: "MultiPolygon", coordinates: g.coordinates.map((p) => p.map((r) => simplifyRing(r, sq))) };
    default:
      return g;
  }
}

/** A line's kept positions (its ends always), rounded. */
function simplifyLine(line: Position[], sq: number): Position[] {
  if (line.length <= 2) return line.map(rounded);
  const keep = douglasPeucker(projected(line), sq);
  return line.filter((_, i) => keep[i]).map(rounded);
}

/**
 * A ring's kept positions, closed. A ring smaller than the tolerance keeps a triangle of its first
 * position, the one farthest from it and the one farthest from both: it stays a ring (the tiler drops or
 * keeps it by its own rules at each zoom), and no hole or island turns into a line.
 */
function simplifyRing(ring: Position[], sq: number): Position[] {
  if (ring.length <= 4) return ring.map(rounded);
  const points = projected(ring);
  const keep = douglasPeucker(points, sq);
  let kept = 0;
  for (const k of keep) if (k) kept++;
  if (kept < 4) {
    const far = farthestFrom(points, (p) => distSq(p, points[0]!));
    const third = farthestFrom(points, (p) => segmentDistSq(p, points[0]!, points[far]!));
    // All on one line (or one point): nothing to make a triangle of; the ring stays as it came.
    if (far === 0 || third === 0 || third === far || far === ring.length - 1 || third === ring.length - 1) return ring.map(rounded);
    keep.fill(false);
    keep[0] = keep[far] = keep[third] = keep[ring.length - 1] = true;
  }
  return ring.filter((_, i) => keep[i]).map(rounded);
}

const rounded = (p: Position): Position => [round(p[0]!), round(p[1]!)];

const projected = (line: Position[]): [number, number][] => line.map((p) => toUnitSquare(p[0]!, p[1]!));

function farthestFrom(points: [number, number][], dist: (p: [number, number]) => number): number {
  let best = 0;
  let bestD = -1;
  for (let i = 0; i < points.length; i++) {
    const d = dist(points[i]!);
    if (d > bestD) [best, bestD] = [i, d];
  }
  return best;
}

/** Douglas-Peucker with an explicit stack (a long line must not overflow the call stack): which positions stay. */
function douglasPeucker(points: [number, number][], sq: number): boolean[] {
  const keep = new Array<boolean>(points.length).fill(false);
  keep[0] = keep[points.length - 1] = true;
  const stack: number[] = [0, points.length - 1];
  while (stack.length) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    let index = -1;
    let max = sq;
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistSq(points[i]!, points[first]!, points[last]!);
      if (d > max) [index, max] = [i, d];
    }
    if (index < 0) continue;
    keep[index] = true;
    stack.push(first, index, index, last);
  }
  return keep;
}

const distSq = (p: [number, number], q: [number, number]) => (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2;

function segmentDistSq(p: [number, number], a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = dx * dx + dy * dy;
  if (len === 0) return distSq(p, a);
  const t = Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len));
  return distSq(p, [a[0] + t * dx, a[1] + t * dy]);
}

/**
 * How big a line or polygon is, in the unit square, for the tiler's order of importance (bigger first):
 * the square root of a polygon's area, a line's length. A bounding box says little of either: a group of
 * small islands spread over an ocean (or both sides of the antimeridian) outranked Germany by it.
 */
export function shapeSize(g: Geometry): number {
  switch (g.type) {
    case "LineString":
      return lineLength(g.coordinates);
    case "MultiLineString":
      return g.coordinates.reduce((s, l) => s + lineLength(l), 0);
    case "Polygon":
      return Math.sqrt(polygonArea(g.coordinates));
    case "MultiPolygon":
      return Math.sqrt(g.coordinates.reduce((s, p) => s + polygonArea(p), 0));
    default:
      return 0;
  }
}

function lineLength(line: Position[]): number {
  const p = projected(line);
  let sum = 0;
  for (let i = 1; i < p.length; i++) sum += Math.sqrt(distSq(p[i - 1]!, p[i]!));
  return sum;
}

/** The outer ring's area less the holes'. */
function polygonArea(rings: Position[][]): number {
  let area = 0;
  rings.forEach((ring, i) => {
    const p = projected(ring);
    let twice = 0;
    for (let k = 0, j = p.length - 1; k < p.length; j = k++) twice += (p[j]![0] - p[k]![0]) * (p[j]![1] + p[k]![1]);
    area += (i === 0 ? 1 : -1) * Math.abs(twice / 2);
  });
  return Math.max(0, area);
}

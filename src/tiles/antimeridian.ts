// Lines and rings that jump across the antimeridian (179° to -179°) would draw as bands across the
// whole map. They are unwrapped into continuous longitudes (179° to 181°); the tiler's wraparound then
// draws the part past 180° at the western edge of the world.
//
// 180° and -180° are one meridian: a step from 179.9° to -180° is 0.1° east, and one from 180° to -180°
// goes nowhere. Data drawn for a globe (Natural Earth as world-atlas and d3 write it) puts its points on
// the antimeridian with either sign, so those steps are unwrapped like any other. Two kinds of steps
// between the map's edges are drawn as written, since data cut for a flat map makes them on purpose:
// - lines lying entirely on the antimeridian: world boxes and bands ([-180, 60] to [180, 60]);
// - steps along a parallel beyond 85° (the top or bottom edge of a Web Mercator map), where cut data
//   closes Antarctica along -90° from 180° back to -180°.
// A ring that unwraps into a whole turn goes around a pole (Antarctica on a globe): it is closed along
// that pole's edge of the map.
import type { Geometry, Position } from "geojson";

/** Beyond this latitude a step runs along the map's top or bottom edge (Web Mercator ends at 85.05°). */
const POLE_EDGE = 85;

const alongPoleEdge = (a: Position, b: Position) => (a[1]! >= POLE_EDGE && b[1]! >= POLE_EDGE) || (a[1]! <= -POLE_EDGE && b[1]! <= -POLE_EDGE);

/** Unwraps one line in place when it jumps; returns whether it did. */
function unwrapLine(line: Position[]): boolean {
  if (line.every((p) => Math.abs(p[0]!) === 180)) return false;
  let shift = 0;
  let changed = false;
  for (let i = 1; i < line.length; i++) {
    const from = line[i - 1]![0]!;
    const step = line[i]![0]! + shift - from;
    if (!alongPoleEdge(line[i - 1]!, line[i]!)) {
      if (step > 180) shift -= 360;
      else if (step < -180) shift += 360;
    }
    if (shift) {
      line[i] = [line[i]![0]! + shift, ...line[i]!.slice(1)];
      changed = true;
    }
  }
  if (!changed) return false;
  // Keep the line on the eastern side: longitudes from -180 to 540.
  let min = Infinity;
  for (const p of line) min = Math.min(min, p[0]!);
  if (min < -180) for (let i = 0; i < line.length; i++) line[i] = [line[i]![0]! + 360, ...line[i]!.slice(1)];
  return true;
}

/**
 * Closes an unwrapped ring that ends a whole turn from where it started (it goes around a pole) along
 * the map's edge at the nearer pole; returns whether it did.
 */
function closeAroundPole(ring: Position[]): boolean {
  const first = ring[0]!;
  const last = ring[ring.length - 1]!;
  if (Math.abs(Math.abs(last[0]! - first[0]!) - 360) > 1e-9 || last[1] !== first[1]) return false;
  let sum = 0;
  for (const p of ring) sum += p[1]!;
  const pole = sum < 0 ? -90 : 90;
  ring.push([last[0]!, pole], [first[0]!, pole], [first[0]!, first[1]!]);
  return true;
}

/** Moves a hole by whole turns so it sits with its outer ring. */
function followOuter(hole: Position[], outer: Position[]): void {
  let min = Infinity;
  let max = -Infinity;
  for (const p of outer) {
    min = Math.min(min, p[0]!);
    max = Math.max(max, p[0]!);
  }
  const first = hole[0]![0]!;
  const turn = first < min - 1e-9 && first + 360 <= max + 1e-9 ? 360 : first > max + 1e-9 && first - 360 >= min - 1e-9 ? -360 : 0;
  if (turn) for (let i = 0; i < hole.length; i++) hole[i] = [hole[i]![0]! + turn, ...hole[i]!.slice(1)];
}

/** Whether a ring lies entirely beyond the map's top or bottom edge. */
const offEdge = (ring: Position[]) => ring.every((p) => p[1]! >= POLE_EDGE) || ring.every((p) => p[1]! <= -POLE_EDGE);

function polygon(rings: Position[][]): boolean {
  let changed = false;
  let aroundPole = false;
  for (const r of rings) {
    if (unwrapLine(r)) {
      changed = true;
      aroundPole = closeAroundPole(r) || aroundPole;
    }
  }
  // A globe's polygon around a pole may have a ring at the pole itself as its outer ring (world-atlas'
  // Antarctica, along -89.999°) and its coast as a hole; on a flat map that ring encloses nothing and
  // the coast closed along the map's edge is the outline.
  if (aroundPole)
    for (let i = rings.length - 1; i >= 0 && rings.length > 1; i--) if (offEdge(rings[i]!)) rings.splice(i, 1);
  if (changed) for (let i = 1; i < rings.length; i++) followOuter(rings[i]!, rings[0]!);
  return changed;
}

/** Repairs a cleaned geometry in place; returns whether anything crossed the antimeridian. */
export function repairAntimeridian(g: Geometry): boolean {
  switch (g.type) {
    case "LineString":
      return unwrapLine(g.coordinates);
    case "MultiLineString":
      return g.coordinates.map(unwrapLine).some(Boolean);
    case "Polygon":
      return polygon(g.coordinates);
    case "MultiPolygon":
      return g.coordinates.map(polygon).some(Boolean);
    case "GeometryCollection":
      return g.geometries.map(repairAntimeridian).some(Boolean);
    default:
      return false;
  }
}

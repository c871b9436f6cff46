// Lines and rings that jump across the antimeridian (179° to -179°) would draw as bands across the
// whole map. They are unwrapped into continuous longitudes (179° to 181°); the tiler's wraparound then
// draws the part past 180° at the western edge of the world.
import type { Geometry, Position } from "geojson";

/** Unwraps one line in place when it jumps; returns whether it did. */
function unwrapLine(line: Position[]): boolean {
  let shift = 0;
  let changed = false;
  for (let i = 1; i < line.length; i++) {
    const from = line[i - 1]![0]!;
    const to = line[i]![0]! + shift;
    // A step to or from exactly ±180° is data already cut at the antimeridian (or walking along it):
    // it draws right as it is.
    const onEdge = Math.abs(line[i]![0]!) === 180 || Math.abs(from - shift) === 180;
    const step = to - from;
    if (!onEdge && step > 180) shift -= 360;
    else if (!onEdge && step < -180) shift += 360;
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

function polygon(rings: Position[][]): boolean {
  let changed = false;
  for (const r of rings) changed = unwrapLine(r) || changed;
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

// JSON.parse takes GeoJSON nested to any depth, but everything after the reader recurses over a
// geometry's coordinates and collections (emptiness checks, unprojection, cleaning, bounds, the feature
// store's JSON.stringify): one Point whose coordinates are 50,000 arrays deep overflowed the call stack
// and failed the version as an internal error. A geometry nested deeper than its type allows is refused
// here instead, naming the feature, by walks that keep their own stack.
import { InvalidSource } from "../errors";

/** Levels of arrays in each type's coordinates, the innermost a position. */
const COORDINATE_DEPTH: Record<string, number> = { Point: 1, MultiPoint: 2, LineString: 2, MultiLineString: 3, Polygon: 3, MultiPolygon: 4 };
/** For a type GeoJSON does not have (skipped later, by name): no geometry nests deeper. */
const ANY_DEPTH = 4;
/** RFC 7946 advises against nesting GeometryCollections at all; a few levels are read, deeper is refused. */
export const MAX_COLLECTION_NESTING = 16;

/** Whether `coordinates` holds arrays more than `limit` levels deep (the outermost counts as 1). */
function deeperThan(coordinates: unknown, limit: number): boolean {
  if (!Array.isArray(coordinates)) return false;
  const arrays: unknown[][] = [coordinates];
  const depths: number[] = [1];
  while (arrays.length) {
    const array = arrays.pop()!;
    const depth = depths.pop()!;
    for (const x of array) {
      if (!Array.isArray(x)) continue;
      // Positions (at the limit) are never pushed: the walk holds rings, not every point.
      if (depth >= limit) return true;
      arrays.push(x);
      depths.push(depth + 1);
    }
  }
  return false;
}

const levels = (n: number) => `${n} level${n > 1 ? "s" : ""} of arrays`;

/** Throws InvalidSource (`where` names the file and feature) when `geometry` nests deeper than its type allows. */
export function refuseDeepNesting(geometry: unknown, where: () => string): void {
  const geometries: unknown[] = [geometry];
  const nesting: number[] = [1];
  while (geometries.length) {
    const g = geometries.pop();
    const level = nesting.pop()!;
    if (!g || typeof g !== "object") continue;
    const { type, coordinates, geometries: members } = g as { type?: unknown; coordinates?: unknown; geometries?: unknown };
    if (type === "GeometryCollection") {
      if (!Array.isArray(members)) continue;
      if (level > MAX_COLLECTION_NESTING) throw new InvalidSource(`${where()}: GeometryCollections are nested more than ${MAX_COLLECTION_NESTING} deep; flatten them`);
      for (const m of members) {
        geometries.push(m);
        nesting.push(level + 1);
      }
      continue;
    }
    const known = typeof type === "string" ? COORDINATE_DEPTH[type] : undefined;
    if (!deeperThan(coordinates, known ?? ANY_DEPTH)) continue;
    const name = typeof type === "string" ? type.slice(0, 60) : "geometry";
    throw new InvalidSource(
      known
        ? `${where()}: the ${name}'s coordinates are nested deeper than a ${name}'s (${levels(known)}, the innermost [longitude, latitude]); fix the geometry`
        : `${where()}: the ${name}'s coordinates are nested deeper than any geometry's (${levels(ANY_DEPTH)}); fix the geometry`,
    );
  }
}

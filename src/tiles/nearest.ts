// Where a vector tile feature comes closest to a point on the Earth: the Tilequery API's one question.
// Geometry stays in the tile's own coordinates (Web Mercator pixels of one tile) until a candidate point
// is found, so a point-in-polygon test is exact at the tile's precision; distances are great-circle
// (haversine) between longitudes and latitudes, as clients measure them.

export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres between two [lon, lat] points. */
export function haversine(a: readonly [number, number], b: readonly [number, number]): number {
  const dLat = (b[1] - a[1]) * RAD;
  const dLon = (b[0] - a[0]) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * RAD) * Math.cos(b[1] * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A tile's place and its coordinate extent (4096 for most tiles). */
export interface TileFrame {
  z: number;
  x: number;
  y: number;
  extent: number;
}

/** [lon, lat] of a point in tile coordinates. */
export function tileToLonLat(frame: TileFrame, px: number, py: number): [number, number] {
  const n = 2 ** frame.z;
  const lon = ((frame.x + px / frame.extent) / n) * 360 - 180;
  const my = Math.PI * (1 - (2 * (frame.y + py / frame.extent)) / n);
  return [lon, Math.atan(Math.sinh(my)) / RAD];
}

/** A point in tile coordinates (fractional) of [lon, lat]. */
export function lonLatToTile(frame: TileFrame, lon: number, lat: number): [number, number] {
  const n = 2 ** frame.z;
  const clamped = Math.max(-85.0511287798066, Math.min(85.0511287798066, lat)) * RAD;
  const wx = ((lon + 180) / 360) * n;
  const wy = ((1 - Math.log(Math.tan(clamped) + 1 / Math.cos(clamped)) / Math.PI) / 2) * n;
  return [(wx - frame.x) * frame.extent, (wy - frame.y) * frame.extent];
}

export interface Nearest {
  /** metres from the query point */
  distance: number;
  /** [lon, lat] of the feature's point closest to the query point (the query point inside a polygon) */
  point: [number, number];
}

type Ring = readonly { x: number; y: number }[];

/**
 * The closest point of a feature (MVT type 1 points, 2 lines, 3 polygons; geometry as
 * @mapbox/vector-tile's loadGeometry gives it) to `query` ([lon, lat]).
 */
export function nearestOnFeature(type: number, geometry: readonly Ring[], frame: TileFrame, query: [number, number]): Nearest | null {
  if (type === 3 && containsPoint(geometry, lonLatToTile(frame, query[0], query[1]))) return { distance: 0, point: [query[0], query[1]] };
  // Segments are projected on a plane tangent at the query point (metres east and north): exact enough
  // within the 10 km a query may reach, and the distance reported is the haversine of the point found.
  const cosLat = Math.cos(query[1] * RAD);
  const east = (lon: number) => {
    let d = lon - query[0];
    if (d > 180) d -= 360;
    else if (d < -180) d += 360;
    return d * RAD * EARTH_RADIUS_M * cosLat;
  };
  const north = (lat: number) => (lat - query[1]) * RAD * EARTH_RADIUS_M;
  let best: Nearest | null = null;
  const consider = (point: [number, number]) => {
    const distance = haversine(query, point);
    if (!best || distance < best.distance) best = { distance, point };
  };
  for (const ring of geometry) {
    const lonLats = ring.map((p) => tileToLonLat(frame, p.x, p.y));
    if (type === 1 || lonLats.length === 1) {
      for (const p of lonLats) consider(p);
      continue;
    }
    for (let i = 1; i < lonLats.length; i++) {
      const a = lonLats[i - 1]!;
      const b = lonLats[i]!;
      const ax = east(a[0]), ay = north(a[1]);
      const bx = east(b[0]), by = north(b[1]);
      const dx = bx - ax, dy = by - ay;
      const length2 = dx * dx + dy * dy;
      const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length2));
      consider(t === 0 ? a : t === 1 ? b : [a[0] + t * wrapped(b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
    }
  }
  return best;
}

const wrapped = (dLon: number) => (dLon > 180 ? dLon - 360 : dLon < -180 ? dLon + 360 : dLon);

/** Even-odd rule over every ring (outer rings and holes of one or several polygons). */
function containsPoint(rings: readonly Ring[], [px, py]: [number, number]): boolean {
  let inside = false;
  for (const ring of rings)
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const a = ring[i]!, b = ring[j]!;
      if (a.y > py !== b.y > py && px < ((b.x - a.x) * (py - a.y)) / (b.y - a.y) + a.x) inside = !inside;
    }
  return inside;
}

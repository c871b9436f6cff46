// Makes geometries safe for tiling: finite WGS84 coordinates, no repeated points, closed rings with
// enough points. Repairs what can be repaired and says so; returns null (skip, with a reason) otherwise.
import type { Geometry, Position } from "geojson";

/** `missing`: the feature has no shape at all (null, or empty as GeoJSON and WKB write it), which is not a fault in one. */
export type Cleaned = { geometry: Geometry; repaired?: string } | { geometry: null; reason: string; missing?: true };

const GEOMETRY_TYPES = new Set(["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]);

/** Nested arrays without a single number: `[]`, `[[]]`, as exporters write POINT EMPTY, POLYGON EMPTY and the like. */
const noPosition = (c: unknown[]): boolean => c.every((x) => Array.isArray(x) && noPosition(x));

function isEmpty(g: { type?: unknown; coordinates?: unknown; geometries?: unknown }): boolean {
  if (g.type === "GeometryCollection") return Array.isArray(g.geometries) && g.geometries.every((x) => x && typeof x === "object" && isEmpty(x));
  return Array.isArray(g.coordinates) && noPosition(g.coordinates);
}

class Bad extends Error {}

/** Checks a position; returns it as is (no copy) when it is a plain [lon, lat]. */
function position(p: unknown): Position {
  if (!Array.isArray(p) || p.length < 2) throw new Bad("a position is not an array of [longitude, latitude]");
  const lon = p[0];
  const lat = p[1];
  if (typeof lon !== "number" || typeof lat !== "number" || !Number.isFinite(lon) || !Number.isFinite(lat))
    throw new Bad(`position ${JSON.stringify(p).slice(0, 60)} is not numeric`);
  if (lon < -180 || lon > 180 || lat < -90 || lat > 90)
    throw new Bad(`position [${lon}, ${lat}] is outside longitude -180..180 / latitude -90..90 (projected coordinates? convert to WGS84)`);
  return p as Position;
}

/** Checks a line; the input array is returned as is unless repeated points had to go. */
function line(coords: unknown, notes: string[]): Position[] | null {
  if (!Array.isArray(coords)) throw new Bad("line coordinates are not an array");
  let repeated = false;
  let prev: Position | null = null;
  for (const c of coords) {
    const p = position(c);
    if (prev && prev[0] === p[0] && prev[1] === p[1]) repeated = true;
    prev = p;
  }
  if (!repeated) return coords.length >= 2 ? (coords as Position[]) : null;
  const out: Position[] = [];
  for (const p of coords as Position[]) {
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  return out.length >= 2 ? out : null;
}

function ring(coords: unknown, notes: string[]): Position[] | null {
  const pts = line(coords, notes);
  if (!pts) return null;
  const first = pts[0]!;
  const last = pts[pts.length - 1]!;
  if (first[0] !== last[0] || first[1] !== last[1]) {
    pts.push([first[0]!, first[1]!]); // may extend the input array: the cleaned geometry replaces it anyway
    notes.push("unclosed ring closed");
  }
  return pts.length >= 4 ? pts : null;
}

function polygon(coords: unknown, notes: string[]): Position[][] | null {
  if (!Array.isArray(coords)) throw new Bad("polygon coordinates are not an array of rings");
  const rings: Position[][] = [];
  for (let i = 0; i < coords.length; i++) {
    const r = ring(coords[i], notes);
    if (r) rings.push(r);
    else if (i === 0) return null; // no usable outer ring
    else notes.push("degenerate hole dropped");
  }
  return rings.length ? rings : null;
}

function clean(g: Geometry, notes: string[]): Geometry | null {
  const c = (g as { coordinates?: unknown }).coordinates;
  switch (g.type) {
    case "Point":
      return { type: "Point", coordinates: position(c) };
    case "MultiPoint": {
      if (!Array.isArray(c)) throw new Bad("MultiPoint coordinates are not an array");
      for (const p of c) position(p);
      return c.length ? { type: "MultiPoint", coordinates: c as Position[] } : null;
    }
    case "LineString": {
      const l = line(c, notes);
      return l ? { type: "LineString", coordinates: l } : null;
    }
    case "MultiLineString": {
      if (!Array.isArray(c)) throw new Bad("MultiLineString coordinates are not an array");
      const ls = c.map((x) => line(x, notes)).filter((x): x is Position[] => x !== null);
      return ls.length ? { type: "MultiLineString", coordinates: ls } : null;
    }
    case "Polygon": {
      const p = polygon(c, notes);
      return p ? { type: "Polygon", coordinates: p } : null;
    }
    case "MultiPolygon": {
      if (!Array.isArray(c)) throw new Bad("MultiPolygon coordinates are not an array");
      const ps = c.map((x) => polygon(x, notes)).filter((x): x is Position[][] => x !== null);
      return ps.length ? { type: "MultiPolygon", coordinates: ps } : null;
    }
    case "GeometryCollection": {
      if (!Array.isArray(g.geometries)) throw new Bad("GeometryCollection has no geometries array");
      const gs = g.geometries.map((x) => (x && typeof x === "object" ? clean(x, notes) : null)).filter((x): x is Geometry => x !== null);
      return gs.length ? { type: "GeometryCollection", geometries: gs } : null;
    }
    default: {
      // Never JSON.stringify an array or object here: one nested thousands of levels deep overflows the stack.
      const type = (g as { type?: unknown }).type;
      const shown = typeof type === "string" ? JSON.stringify(type.slice(0, 60)) : type && typeof type === "object" ? (Array.isArray(type) ? "(an array)" : "(an object)") : JSON.stringify(type);
      throw new Bad(`geometry type ${shown} is not a GeoJSON geometry type`);
    }
  }
}

export function cleanGeometry(g: unknown): Cleaned {
  if (g === null || g === undefined) return { geometry: null, reason: "has no geometry", missing: true };
  if (typeof g !== "object") return { geometry: null, reason: "geometry is not an object" };
  const type = (g as { type?: unknown }).type;
  if (typeof type === "string" && GEOMETRY_TYPES.has(type) && isEmpty(g)) return { geometry: null, reason: "has an empty geometry", missing: true };
  const notes: string[] = [];
  try {
    const out = clean(g as Geometry, notes);
    if (!out) return { geometry: null, reason: "geometry is empty or degenerate (too few distinct points)" };
    const uniq = [...new Set(notes)].filter((n) => n !== "repeated points removed");
    return uniq.length ? { geometry: out, repaired: uniq.join(", ") } : { geometry: out };
  } catch (err) {
    if (err instanceof Bad) return { geometry: null, reason: err.message };
    throw err;
  }
}

/** Grows bbox [w,s,e,n] by every position of g. */
export function extendBounds(bbox: [number, number, number, number], g: Geometry): void {
  const visit = (c: unknown): void => {
    if (typeof (c as number[])[0] === "number") {
      const p = c as number[];
      if (p[0]! < bbox[0]) bbox[0] = p[0]!;
      if (p[1]! < bbox[1]) bbox[1] = p[1]!;
      if (p[0]! > bbox[2]) bbox[2] = p[0]!;
      if (p[1]! > bbox[3]) bbox[3] = p[1]!;
      return;
    }
    for (const x of c as unknown[]) visit(x);
  };
  if (g.type === "GeometryCollection") for (const x of g.geometries) extendBounds(bbox, x);
  else visit(g.coordinates);
}

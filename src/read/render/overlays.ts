// Overlays of a static image, in the grammar users of Mapbox's Static Images API know:
//   pin-s|pin-l[-{label}][+{color}]({lon},{lat})
//   path[-{strokeWidth}][+{strokeColor}][-{strokeOpacity}][+{fillColor}][-{fillOpacity}]({polyline})
//   geojson({GeoJSON})                    simplestyle-spec properties: marker-color, marker-size,
//                                         marker-symbol, stroke, stroke-width, stroke-opacity, fill, fill-opacity
// several separated by commas. Every feature leaves here with validated, normalized properties, so the
// layers that draw them (overlay-style.ts) never evaluate a caller's raw values.
import type { Feature, Geometry, Position } from "geojson";
import { BadRequest } from "../../errors";
import { decodePolyline, PolylineError } from "../../polyline";

export const MAX_OVERLAY_CHARS = 8 * 1024;
export const MAX_MARKERS = 100;
const MAX_VERTICES = 20_000;
/**
 * GeometryCollections inside GeometryCollections are valid GeoJSON (RFC 7946 only advises against them);
 * this many levels are unwrapped, deeper nesting is refused (it is no map anyone draws, only a way to
 * make the parser recurse).
 */
export const MAX_COLLECTION_DEPTH = 8;

/** Properties every overlay feature carries (see overlay-style.ts for how they are drawn). */
export interface OverlayProperties {
  kind: "marker" | "shape";
  color: string;
  radius: number;
  label: string;
  icon: string;
  stroke: string;
  strokeWidth: number;
  strokeOpacity: number;
  fill: string;
  fillOpacity: number;
}

export type OverlayFeature = Feature<Geometry, OverlayProperties>;

const DEFAULT_MARKER_COLOR = "#e55e5e";
const DEFAULT_STROKE = "#555555";
const PIN_RADIUS = { s: 6, l: 9, medium: 7.5 } as const;

const HEX = /^(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

/** An overlay's name as messages quote it: a name may be kilobytes long (a colour or number of any length), a message is not. */
const quoted = (name: string) => (name.length > 40 ? `${name.slice(0, 40)}…` : name);

function bad(message: string): BadRequest {
  return new BadRequest(`overlay: ${message}`);
}

function hexColor(raw: string, what: string): string {
  if (!HEX.test(raw)) throw bad(`${what} '${raw.slice(0, 20)}' must be a hex colour of 3 or 6 digits, e.g. f00 or ff0000`);
  return `#${raw.toLowerCase()}`;
}

function number(raw: string, what: string, min: number, max: number): number {
  const n = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) throw bad(`${what} '${raw.slice(0, 20)}' must be a number from ${min} to ${max}`);
  return n;
}

function position(lon: unknown, lat: unknown, where: string): [number, number] {
  if (typeof lon !== "number" || typeof lat !== "number" || !Number.isFinite(lon) || !Number.isFinite(lat))
    throw bad(`${where}: coordinates must be numbers`);
  if (Math.abs(lon) > 180 || Math.abs(lat) > 90) throw bad(`${where}: (${lon},${lat}) is outside longitude -180..180 / latitude -90..90`);
  return [lon, lat];
}

const marker = (coordinates: [number, number], p: Partial<OverlayProperties>): OverlayFeature => ({
  type: "Feature",
  geometry: { type: "Point", coordinates },
  properties: { ...shapeDefaults(), kind: "marker", color: DEFAULT_MARKER_COLOR, radius: PIN_RADIUS.s, ...p },
});

const shapeDefaults = (): OverlayProperties => ({
  kind: "shape",
  color: DEFAULT_MARKER_COLOR,
  radius: PIN_RADIUS.s,
  label: "",
  icon: "",
  stroke: DEFAULT_STROKE,
  strokeWidth: 2,
  strokeOpacity: 1,
  fill: DEFAULT_STROKE,
  fillOpacity: 0.6,
});

/** A pin: `pin-s`, `pin-l-a+f00`, `pin-l-cafe` (a label of one or two letters or digits is written; a longer one names an icon of the style's sprite). */
function parsePin(name: string, args: string): OverlayFeature {
  const m = /^pin-([sl])(?:-([a-z0-9-]{1,40}))?(?:\+([0-9a-z]+))?$/i.exec(name);
  if (!m) throw bad(`'${quoted(name)}' is not a marker: use pin-s or pin-l, then an optional -label and +color, e.g. pin-l-a+f00(-0.1,51.5)`);
  const coords = args.split(",");
  const [lon, lat] = coords.map((c) => (/^-?\d+(?:\.\d+)?$/.test(c.trim()) ? Number(c) : NaN));
  if (coords.length !== 2) throw bad(`${quoted(name)}(${args.slice(0, 40)}) needs exactly a longitude and a latitude`);
  const label = (m[2] ?? "").toLowerCase();
  const isText = /^[a-z0-9]{1,2}$/.test(label);
  return marker(position(lon, lat, quoted(name)), {
    radius: PIN_RADIUS[m[1]!.toLowerCase() as "s" | "l"],
    color: m[3] ? hexColor(m[3], `${quoted(name)} colour`) : DEFAULT_MARKER_COLOR,
    label: isText ? label.toUpperCase() : "",
    icon: isText ? "" : label,
  });
}

/** path-5+f44-0.5+0f0-0.2(polyline): width, stroke colour, stroke opacity, fill colour, fill opacity. */
function parsePath(name: string, args: string): OverlayFeature {
  const m = /^path(?:-([0-9.]+))?(?:\+([0-9a-z]+))?(?:-([0-9.]+))?(?:\+([0-9a-z]+))?(?:-([0-9.]+))?$/i.exec(name);
  if (!m) throw bad(`'${quoted(name)}' is not a path: use path-{strokeWidth}+{strokeColor}-{strokeOpacity}+{fillColor}-{fillOpacity}({polyline}), every part optional`);
  let points: [number, number][];
  try {
    points = decodePolyline(args, 5, MAX_VERTICES);
  } catch (err) {
    if (err instanceof PolylineError) throw bad(`${quoted(name)}: invalid polyline: ${err.message}`);
    throw err;
  }
  if (points.length < 2) throw bad(`${quoted(name)}: the polyline needs at least two points`);
  const props: OverlayProperties = {
    ...shapeDefaults(),
    strokeWidth: m[1] ? number(m[1], `${quoted(name)} stroke width`, 0, 50) : 5,
    stroke: m[2] ? hexColor(m[2], `${quoted(name)} stroke colour`) : DEFAULT_STROKE,
    strokeOpacity: m[3] ? number(m[3], `${quoted(name)} stroke opacity`, 0, 1) : 1,
    fill: m[4] ? hexColor(m[4], `${quoted(name)} fill colour`) : DEFAULT_STROKE,
    fillOpacity: m[4] ? (m[5] ? number(m[5], `${quoted(name)} fill opacity`, 0, 1) : 1) : 0,
  };
  // A fill colour makes the path a polygon (closed if the caller did not close it).
  if (m[4]) {
    const ring = [...points];
    const [first, last] = [ring[0]!, ring[ring.length - 1]!];
    if (first[0] !== last[0] || first[1] !== last[1]) ring.push(first);
    return { type: "Feature", geometry: { type: "Polygon", coordinates: [ring] }, properties: props };
  }
  return { type: "Feature", geometry: { type: "LineString", coordinates: points }, properties: props };
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/**
 * Validates a GeoJSON geometry's coordinates (numbers in range, enough points); returns the vertex count.
 * `depth` counts the GeometryCollections around it.
 */
function checkGeometry(g: unknown, where: string, depth = 0): number {
  if (!isObject(g) || typeof g.type !== "string") throw bad(`${where}: a geometry needs a "type"`);
  const pos = (p: unknown, w: string) => {
    if (!Array.isArray(p) || p.length < 2) throw bad(`${w}: a position must be [longitude, latitude]`);
    position(p[0], p[1], w);
    return 1;
  };
  const list = (v: unknown, w: string, min: number, each: (x: unknown, w: string) => number) => {
    if (!Array.isArray(v) || v.length < min) throw bad(`${w}: expected an array of at least ${min}`);
    return v.reduce((n: number, x, i) => n + each(x, `${w}[${i}]`), 0);
  };
  const line = (v: unknown, w: string) => list(v, w, 2, pos);
  const ring = (v: unknown, w: string) => list(v, w, 4, pos);
  const polygon = (v: unknown, w: string) => list(v, w, 1, ring);
  const c = g.coordinates;
  const w = `${where}.coordinates`;
  switch (g.type) {
    case "Point":
      return pos(c, w);
    case "MultiPoint":
      return list(c, w, 1, pos);
    case "LineString":
      return line(c, w);
    case "MultiLineString":
      return list(c, w, 1, line);
    case "Polygon":
      return polygon(c, w);
    case "MultiPolygon":
      return list(c, w, 1, polygon);
    case "GeometryCollection":
      if (depth >= MAX_COLLECTION_DEPTH) throw bad(`${where}: GeometryCollections nested more than ${MAX_COLLECTION_DEPTH} deep are not accepted`);
      return list(g.geometries, `${where}.geometries`, 1, (x, w) => checkGeometry(x, w, depth + 1));
    default:
      throw bad(`${where}: unknown geometry type '${String(g.type).slice(0, 30)}'`);
  }
}

function simplestyle(props: Record<string, unknown>, where: string): Partial<OverlayProperties> {
  const out: Partial<OverlayProperties> = {};
  const color = (key: string) => {
    const v = props[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string") throw bad(`${where}.properties.${key} must be a colour string like "#f00"`);
    return hexColor(v.replace(/^#/, ""), `${where}.properties.${key}`);
  };
  const num = (key: string, min: number, max: number) => {
    const v = props[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !(v >= min && v <= max)) throw bad(`${where}.properties.${key} must be a number from ${min} to ${max}`);
    return v;
  };
  const set = <K extends keyof OverlayProperties>(k: K, v: OverlayProperties[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set("color", color("marker-color"));
  set("stroke", color("stroke"));
  set("fill", color("fill"));
  set("strokeWidth", num("stroke-width", 0, 50));
  set("strokeOpacity", num("stroke-opacity", 0, 1));
  set("fillOpacity", num("fill-opacity", 0, 1));
  const size = props["marker-size"];
  if (size !== undefined) {
    if (size !== "small" && size !== "medium" && size !== "large") throw bad(`${where}.properties.marker-size must be small, medium or large`);
    out.radius = size === "small" ? PIN_RADIUS.s : size === "large" ? PIN_RADIUS.l : PIN_RADIUS.medium;
  }
  const symbol = props["marker-symbol"];
  if (symbol !== undefined) {
    const s = String(symbol).toLowerCase();
    if (!/^[a-z0-9-]{1,40}$/.test(s)) throw bad(`${where}.properties.marker-symbol must be one or two letters or digits, or an icon name of the style's sprite`);
    if (/^[a-z0-9]{1,2}$/.test(s)) out.label = s.toUpperCase();
    else out.icon = s;
  }
  return out;
}

/** The points, lines and polygons of a geometry, out of GeometryCollections at any depth (checkGeometry bounds it). */
function leafGeometries(g: Geometry): Geometry[] {
  return g.type === "GeometryCollection" ? g.geometries.flatMap(leafGeometries) : [g];
}

/** Splits a GeoJSON value into features with normalized properties (points become markers). */
function parseGeojson(text: string): OverlayFeature[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw bad("geojson(...) does not hold valid JSON (URL-encode it)");
  }
  const features: { geometry: unknown; properties: Record<string, unknown>; where: string }[] = [];
  if (isObject(value) && value.type === "FeatureCollection") {
    if (!Array.isArray(value.features)) throw bad('geojson: a FeatureCollection needs a "features" array');
    value.features.forEach((f, i) => {
      if (!isObject(f) || f.type !== "Feature") throw bad(`geojson.features[${i}] is not a Feature`);
      features.push({ geometry: f.geometry, properties: isObject(f.properties) ? f.properties : {}, where: `geojson.features[${i}]` });
    });
  } else if (isObject(value) && value.type === "Feature") {
    features.push({ geometry: value.geometry, properties: isObject(value.properties) ? value.properties : {}, where: "geojson" });
  } else features.push({ geometry: value, properties: {}, where: "geojson" });

  let vertices = 0;
  const out: OverlayFeature[] = [];
  for (const f of features) {
    vertices += checkGeometry(f.geometry, `${f.where}.geometry`);
    if (vertices > MAX_VERTICES) throw bad(`geojson: more than ${MAX_VERTICES} positions`);
    const style = simplestyle(f.properties, f.where);
    // Every overlay feature is a plain geometry: the renderer draws no GeometryCollection, and `auto`
    // fits the view to coordinates, which a collection does not have.
    for (const g of leafGeometries(f.geometry as Geometry)) {
      if (g.type === "Point") out.push(marker(g.coordinates as [number, number], style));
      else if (g.type === "MultiPoint") for (const c of g.coordinates) out.push(marker(c as [number, number], style));
      else out.push({ type: "Feature", geometry: g, properties: { ...shapeDefaults(), ...style } });
    }
  }
  return out;
}

/** Top-level comma-separated `name(args)` items; args may hold commas, nested parentheses and JSON strings. */
function splitItems(text: string): { name: string; args: string }[] {
  const items: { name: string; args: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("(", i);
    if (open < 0) throw bad(`'${text.slice(i, i + 40)}' has no (...) part`);
    const name = text.slice(i, open).trim();
    let depth = 0;
    let inString = false;
    let j = open;
    for (; j < text.length; j++) {
      const ch = text[j];
      if (inString) {
        if (ch === "\\") j++;
        else if (ch === '"') inString = false;
      } else if (ch === '"' && name === "geojson") inString = true;
      else if (ch === "(") depth++;
      else if (ch === ")" && --depth === 0) break;
    }
    if (j >= text.length) throw bad(`'${quoted(name)}(...' is missing its closing parenthesis`);
    items.push({ name, args: text.slice(open + 1, j) });
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ",") throw bad(`expected ',' between overlays, found '${text.slice(i, i + 20)}'`);
      i++;
    }
  }
  return items;
}

/** Parses every overlay (the path segment and the `overlay` query parameter, already URL-decoded). */
export function parseOverlays(texts: string[]): OverlayFeature[] {
  const text = texts.filter((t) => t.length > 0).join(",");
  if (text.length > MAX_OVERLAY_CHARS) throw bad(`the overlays are ${text.length} characters long; at most ${MAX_OVERLAY_CHARS} are accepted`);
  const features: OverlayFeature[] = [];
  for (const item of splitItems(text)) {
    // An unencoded '+' in a query string arrives as a space; no overlay name has a space of its own.
    const name = item.name.replaceAll(" ", "+");
    const args = item.args;
    if (name === "geojson") features.push(...parseGeojson(args));
    else if (name.startsWith("pin-")) features.push(parsePin(name, args));
    else if (name === "path" || name.startsWith("path-") || name.startsWith("path+")) features.push(parsePath(name, args));
    else throw bad(`unknown overlay '${quoted(name)}': use geojson(...), pin-s/pin-l(...) or path(...)`);
  }
  const markers = features.filter((f) => f.properties.kind === "marker").length;
  if (markers > MAX_MARKERS) throw bad(`${markers} markers; at most ${MAX_MARKERS} are accepted`);
  return features;
}

/** Every position of the overlays, for fitting the view to them. */
export function overlayPositions(features: OverlayFeature[]): Position[] {
  const out: Position[] = [];
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === "number") out.push(c as Position);
    else if (Array.isArray(c)) for (const x of c) walk(x);
  };
  for (const f of features) if ("coordinates" in f.geometry) walk(f.geometry.coordinates);
  return out;
}

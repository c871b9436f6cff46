// What a JSON document is, told from its first bytes alone. A TopoJSON or Esri JSON file is often one
// line of hundreds of kilobytes, so its head does not parse: it is walked token by token instead, and
// the top-level members it reaches (with "type"'s value) and the keys of the first feature are kept.
// That is enough to refuse TopoJSON and Esri JSON at upload, however large or however laid out.

export type JsonKind = "topojson" | "esrijson" | { geojson: string } | { otherType: string } | null;

export interface JsonHeadShape {
  /** top-level member names met in the head, with their value when it is a string */
  members: Map<string, string | undefined>;
  /** keys of the first element of the top-level "features" array met in the head */
  firstFeatureKeys: Set<string>;
  /** the system a top-level "crs": {"type": "name", "properties": {"name": ...}} names, met in the head */
  crsName?: string;
}

interface Frame {
  array: boolean;
  /** the member name this container is the value of (top-level members only matter) */
  key: string | undefined;
  /** objects: the next string is a member name */
  expectKey: boolean;
  /** objects: the last member name read */
  lastKey: string | undefined;
  /** arrays: elements before the current one */
  items: number;
}

/** Index of the quote closing the string opened at `start`, or -1 when the text ends first. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++; // backslash: skip the escaped character
    else if (c === 0x22) return i;
  }
  return -1;
}

/** The shape of a JSON object from its head (the text may stop anywhere); null when it is not an object. */
export function jsonHeadShape(text: string): JsonHeadShape | null {
  if (!text.startsWith("{")) return null;
  const shape: JsonHeadShape = { members: new Map(), firstFeatureKeys: new Set() };
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack[stack.length - 1];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end < 0) break;
      let value: string;
      try {
        value = JSON.parse(text.slice(i, end + 1)) as string;
      } catch {
        return shape; // not JSON after all: what was seen so far is all there is
      }
      i = end;
      if (top && !top.array && top.expectKey) {
        top.expectKey = false;
        top.lastKey = value;
        if (stack.length === 1) shape.members.set(value, undefined);
        const features = stack[1];
        if (stack.length === 3 && features?.array && features.key === "features" && features.items === 0) shape.firstFeatureKeys.add(value);
      } else if (top && !top.array && stack.length === 1 && top.lastKey !== undefined) shape.members.set(top.lastKey, value);
      else if (stack.length === 3 && top && !top.array && top.lastKey === "name" && stack[1]!.key === "crs" && stack[2]!.key === "properties") shape.crsName = value;
    } else if (c === "{" || c === "[") {
      stack.push({ array: c === "[", key: top && !top.array ? top.lastKey : undefined, expectKey: c === "{", lastKey: undefined, items: 0 });
    } else if (c === "}" || c === "]") {
      stack.pop();
      if (!stack.length) break;
    } else if (c === ",") {
      if (top?.array) top.items++;
      else if (top) top.expectKey = true;
    }
  }
  return shape;
}

/** The shape of a JSON value already parsed whole. */
export function parsedShape(value: unknown): JsonHeadShape | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const members = new Map<string, string | undefined>();
  for (const [k, v] of Object.entries(value)) members.set(k, typeof v === "string" ? v : undefined);
  const first = (value as { features?: unknown }).features;
  const feature = Array.isArray(first) ? first[0] : undefined;
  const crsName = (value as { crs?: { properties?: { name?: unknown } } }).crs?.properties?.name;
  return { members, firstFeatureKeys: new Set(feature && typeof feature === "object" ? Object.keys(feature) : []), ...(typeof crsName === "string" ? { crsName } : {}) };
}

/** Esri's own members: ArcGIS REST query results and `ogr2ogr -f ESRIJSON` write them before the features. */
const ESRI_MEMBERS = ["geometryType", "spatialReference", "fieldAliases", "displayFieldName"];

/**
 * What the shape says the document is: TopoJSON, Esri JSON, GeoJSON of a type, JSON of another "type",
 * or null when the head does not tell (no top-level "type" reached).
 */
export function jsonKind(shape: JsonHeadShape, geojsonTypes: Set<string>): JsonKind {
  const type = shape.members.get("type");
  if (type === "Topology") return "topojson";
  if (type !== undefined && geojsonTypes.has(type)) return { geojson: type };
  // Esri JSON has no top-level "type"; its features carry "attributes" where GeoJSON's have "properties".
  if (!shape.members.has("type") && (ESRI_MEMBERS.some((m) => shape.members.has(m)) || shape.firstFeatureKeys.has("attributes"))) return "esrijson";
  if (type !== undefined) return { otherType: type };
  return null;
}

// GeoJSON documents (FeatureCollection streamed, Feature or bare geometry) and newline-delimited
// GeoJSON (one Feature per line, RFC 8142 record separators tolerated).
import { InvalidSource } from "../errors";
import { JsonScanError, scanFeatureCollection, type ScannedDocument } from "./json-stream";
import { readLines } from "./lines";
import { geojsonCoordinates, type GeojsonCoordinates } from "./geojson-crs";
import { unprojectGeometry } from "./mercator";
import { refuseDeepNesting } from "./geojson-nesting";
import type { RawFeature, ReadProgress } from "./types";

/** Bigger single Features or bare geometries (no "features" array to stream) are refused. */
const MAX_SINGLE_DOCUMENT = 256 * 1024 * 1024;

async function* textChunks(path: string, progress: ReadProgress): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8");
  let first = true;
  for await (const chunk of Bun.file(path).stream() as unknown as AsyncIterable<Uint8Array>) {
    progress.bytes += chunk.length;
    let text = decoder.decode(chunk, { stream: true });
    if (first && text.length) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** A GeoJSON document; FeatureCollections are streamed feature by feature (see json-stream.ts). */
export async function* readGeojson(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  const doc: ScannedDocument = { type: null, sawFeatures: false };
  let n = 0;
  // Web Mercator coordinates are unprojected; the "crs" member is looked at once, when it has been seen.
  let mercator = false;
  let crsRead: string | undefined;
  const readCrs = () => {
    if (doc.crs === undefined || doc.crs === crsRead) return;
    crsRead = doc.crs;
    const coordinates = geojsonCoordinates(doc.crs, label);
    if (doc.crsAfterFeatures && coordinates !== "lonlat")
      throw new InvalidSource(`${label}: the "crs" member (Web Mercator) comes after features already read as longitude/latitude; put "crs" before "features", as GDAL writes it, or reproject to WGS84`);
    mercator = coordinates === "mercator";
  };
  try {
    for await (const text of scanFeatureCollection(textChunks(path, progress), doc)) {
      readCrs();
      n++;
      const where = `feature ${n}`;
      let f: { type?: unknown; geometry?: unknown; properties?: unknown; id?: unknown };
      try {
        f = JSON.parse(text);
      } catch (err) {
        throw new InvalidSource(`${label}: ${where} is not valid JSON: ${(err as Error).message}`);
      }
      if (f.type !== "Feature") throw new InvalidSource(`${label}: ${where} is not a GeoJSON Feature (it needs "type": "Feature")`);
      yield { geometry: geometryOf(f.geometry, mercator, label, where), properties: propertiesOf(f.properties), where, id: f.id };
    }
  } catch (err) {
    if (err instanceof JsonScanError) throw new InvalidSource(`${label}: not valid JSON: ${err.message}`);
    throw err;
  }
  readCrs();
  if (doc.sawFeatures) {
    if (doc.type !== "FeatureCollection") throw new InvalidSource(`${label}: the JSON has a "features" array but its "type" is ${JSON.stringify(doc.type)}, not "FeatureCollection"`);
    return;
  }
  if (doc.type === "FeatureCollection") throw new InvalidSource(`${label}: FeatureCollection has no "features" array`);
  // A single Feature or a bare geometry: small by nature, parsed whole.
  if (progress.total > MAX_SINGLE_DOCUMENT)
    throw new InvalidSource(`${label}: a single GeoJSON ${doc.type ?? "object"} over ${MAX_SINGLE_DOCUMENT / 1024 / 1024} MiB is refused; send a FeatureCollection or one Feature per line`);
  let d: { type?: unknown; geometry?: unknown; properties?: unknown; id?: unknown; crs?: unknown };
  try {
    d = JSON.parse((await Bun.file(path).text()).replace(/^\uFEFF/, ""));
  } catch (err) {
    throw new InvalidSource(`${label}: not valid JSON: ${(err as Error).message}`);
  }
  const inMetres = ownCrs(d, label, d.type === "Feature" ? "feature 1" : "the geometry") === "mercator";
  if (d.type === "Feature") yield { geometry: geometryOf(d.geometry, inMetres, label, "feature 1"), properties: propertiesOf(d.properties), where: "feature 1", id: d.id };
  else if (typeof d.type === "string" && d.type !== "") yield { geometry: geometryOf(d, inMetres, label, "the geometry"), properties: {}, where: "the geometry" };
  else throw new InvalidSource(`${label}: the JSON has no GeoJSON "type" (FeatureCollection, Feature or a geometry)`);
}

/** The coordinates of a Feature or geometry that carries its own "crs" member (a document of one, or one line). */
function ownCrs(d: { crs?: unknown }, label: string, where: string): GeojsonCoordinates {
  if (!d.crs || typeof d.crs !== "object") return "lonlat";
  let text: string;
  try {
    text = JSON.stringify(d.crs);
  } catch (err) {
    // JSON.stringify recurses: a "crs" thousands of levels deep overflows it, and is no system's name.
    if (err instanceof RangeError) throw new InvalidSource(`${label}: ${where}: the "crs" member is nested too deeply to name a coordinate system`);
    throw err;
  }
  return geojsonCoordinates(text, label);
}

/** A feature's geometry as the tiler takes it: refused when nested too deeply (before anything recurses over it), unprojected when in metres. */
function geometryOf(geometry: unknown, mercator: boolean, label: string, where: string): unknown {
  refuseDeepNesting(geometry, () => `${label}: ${where}`);
  return mercator ? unprojectGeometry(geometry) : geometry;
}

function propertiesOf(p: unknown): Record<string, unknown> | null {
  return p && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : null;
}

export async function* readNdjson(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  let n = 0;
  for await (const raw of readLines(path, label, progress)) {
    n++;
    const line = raw.replaceAll("\u001e", "").trim();
    if (!line) continue;
    let f: { type?: unknown; geometry?: unknown; properties?: unknown; id?: unknown; crs?: unknown };
    try {
      f = JSON.parse(line);
    } catch {
      throw new InvalidSource(`${label}: line ${n} is not valid JSON${line.length > 0 && !line.endsWith("}") ? " (is the file truncated?)" : ""}; newline-delimited GeoJSON needs one complete Feature per line`);
    }
    if (!f || typeof f !== "object") throw new InvalidSource(`${label}: line ${n} is not a GeoJSON Feature object`);
    // A Feature on one line may be a whole GeoJSON document, "crs" and all.
    const mercator = ownCrs(f, label, `line ${n}`) === "mercator";
    if (f.type === "Feature") yield { geometry: geometryOf(f.geometry, mercator, label, `line ${n}`), properties: propertiesOf(f.properties), where: `line ${n}`, id: f.id };
    else if (typeof f.type === "string" && f.type !== "FeatureCollection") yield { geometry: geometryOf(f, mercator, label, `line ${n}`), properties: {}, where: `line ${n}` };
    else throw new InvalidSource(`${label}: line ${n} is not a GeoJSON Feature (it needs "type": "Feature")`);
  }
}

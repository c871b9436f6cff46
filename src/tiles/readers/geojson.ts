// GeoJSON documents (FeatureCollection, Feature or bare geometry) and newline-delimited GeoJSON
// (one Feature per line, RFC 8142 record separators tolerated).
import { InvalidSource } from "../errors";
import { readLines } from "./lines";
import type { RawFeature, ReadProgress } from "./types";

/** Where a JSON text stops making sense: used when JSON.parse says no more than "unexpected token". */
function jsonProblem(text: string): string {
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth < 0) return `unexpected '${text[i]}' at line ${line}`;
    }
  }
  if (inString) return `the file ends inside a string (line ${line}): it looks truncated; upload it again`;
  if (depth > 0) return `the file ends before the JSON is complete (${depth} unclosed bracket${depth > 1 ? "s" : ""} at line ${line}): it looks truncated; upload it again`;
  return "";
}

export async function* readGeojson(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  let text: string | null = await Bun.file(path).text();
  progress.bytes = progress.total;
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    const where = jsonProblem(text);
    throw new InvalidSource(`${label}: not valid JSON: ${where || (err as Error).message}`);
  }
  text = null;
  if (!doc || typeof doc !== "object") throw new InvalidSource(`${label}: the JSON is not a GeoJSON object`);
  const d = doc as { type?: unknown; features?: unknown; geometry?: unknown; properties?: unknown };
  if (d.type === "FeatureCollection") {
    if (!Array.isArray(d.features)) throw new InvalidSource(`${label}: FeatureCollection has no "features" array`);
    const features = d.features as unknown[];
    d.features = null; // let each raw feature go once it has been read
    for (let i = 0; i < features.length; i++) {
      const f = features[i] as { type?: unknown; geometry?: unknown; properties?: unknown } | null;
      features[i] = null;
      const where = `feature ${i + 1}`;
      if (!f || typeof f !== "object" || f.type !== "Feature") throw new InvalidSource(`${label}: ${where} is not a GeoJSON Feature (it needs "type": "Feature")`);
      yield { geometry: f.geometry, properties: propertiesOf(f.properties), where };
    }
  } else if (d.type === "Feature") {
    yield { geometry: d.geometry, properties: propertiesOf(d.properties), where: "feature 1" };
  } else if (typeof d.type === "string" && d.type !== "") {
    yield { geometry: doc, properties: {}, where: "the geometry" };
  } else throw new InvalidSource(`${label}: the JSON has no GeoJSON "type" (FeatureCollection, Feature or a geometry)`);
}

function propertiesOf(p: unknown): Record<string, unknown> | null {
  return p && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, unknown>) : null;
}

export async function* readNdjson(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  let n = 0;
  for await (const raw of readLines(path, progress)) {
    n++;
    const line = raw.replaceAll("\u001e", "").trim();
    if (!line) continue;
    let f: { type?: unknown; geometry?: unknown; properties?: unknown };
    try {
      f = JSON.parse(line);
    } catch {
      throw new InvalidSource(`${label}: line ${n} is not valid JSON${line.length > 0 && !line.endsWith("}") ? " (is the file truncated?)" : ""}; newline-delimited GeoJSON needs one complete Feature per line`);
    }
    if (!f || typeof f !== "object") throw new InvalidSource(`${label}: line ${n} is not a GeoJSON Feature object`);
    if (f.type === "Feature") yield { geometry: f.geometry, properties: propertiesOf(f.properties), where: `line ${n}` };
    else if (typeof f.type === "string" && f.type !== "FeatureCollection") yield { geometry: f, properties: {}, where: `line ${n}` };
    else throw new InvalidSource(`${label}: line ${n} is not a GeoJSON Feature (it needs "type": "Feature")`);
  }
}

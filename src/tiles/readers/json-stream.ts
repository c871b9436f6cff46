// An incremental scanner for one big JSON document: yields the text of each element of the top-level
// "features" array as it streams past, so a multi-gigabyte FeatureCollection never sits in memory whole.
// Only brackets, strings and top-level keys are tracked; each element is then parsed by JSON.parse.
import { endsEarlyWords } from "../../json-text";

export interface ScannedDocument {
  /** the top-level "type" value, when it is a string */
  type: string | null;
  /** whether a top-level "features" array was seen */
  sawFeatures: boolean;
  /** the JSON text of the top-level "crs" object (GeoJSON 2008, which GDAL still writes), once seen */
  crs?: string;
  /** whether "crs" came after the first feature */
  crsAfterFeatures?: boolean;
}

export class JsonScanError extends Error {}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const NEWLINE = 10;
const COMMA = 44;

/** A "crs" object names a system in a few dozen characters; more is not one. */
const MAX_CRS_TEXT = 64 * 1024;

/**
 * Streams `chunks` (text pieces) and yields the JSON text of every element of the top-level "features"
 * array; fills `doc` with what it learns about the document. Throws JsonScanError on structure it cannot
 * follow (with a line number) or when the text ends early.
 */
export async function* scanFeatureCollection(chunks: AsyncIterable<string>, doc: ScannedDocument): AsyncGenerator<string> {
  let depth = 0;
  let line = 1;
  let inString = false;
  let escaped = false;
  let started = false;
  // Strings at depth 1 are top-level keys or values: kept so "type" and "features" can be recognised.
  let stringFrom = -1;
  let stringHead = "";
  let lastString = "";
  let key: string | null = null;
  let awaitingValue = false;
  let typeValueOpen = false;
  let inFeatures = false;
  // The element being collected: its text from earlier chunks, and where it starts in this one.
  let elementHead = "";
  let elementFrom = -1;
  // The top-level "crs" object being collected, the same way.
  let inCrs = false;
  let crsHead = "";
  let crsFrom = -1;
  let yielded = false;

  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) {
          inString = false;
          if (stringFrom >= 0) {
            lastString = stringHead + chunk.slice(stringFrom, i);
            stringHead = "";
            stringFrom = -1;
            if (typeValueOpen) doc.type = lastString;
            typeValueOpen = false;
          }
        } else if (c === NEWLINE) line++;
        continue;
      }
      if (c <= 32) {
        if (c === NEWLINE) line++;
        continue;
      }
      if (inFeatures && depth === 2 && c !== OPEN_OBJECT && c !== COMMA && c !== CLOSE_ARRAY)
        throw new JsonScanError(`an element of "features" near line ${line} is not a GeoJSON Feature object`);
      if (!started) {
        if (c === OPEN_ARRAY) throw new JsonScanError("a JSON array is not GeoJSON; wrap the features in a FeatureCollection");
        if (c !== OPEN_OBJECT) throw new JsonScanError(`unexpected '${chunk[i]}' at line ${line}`);
        started = true;
      } else if (depth === 0) throw new JsonScanError(`unexpected '${chunk[i]}' after the end of the JSON at line ${line}`);
      if (depth === 1 && awaitingValue) {
        awaitingValue = false;
        typeValueOpen = key === "type" && c === QUOTE;
        if (key === "features" && c === OPEN_ARRAY) {
          inFeatures = true;
          doc.sawFeatures = true;
        }
        if (key === "crs" && c === OPEN_OBJECT) {
          inCrs = true;
          crsFrom = i;
          crsHead = "";
        }
      }
      if (c === QUOTE) {
        inString = true;
        if (depth === 1) stringFrom = i + 1;
      } else if (c === COLON) {
        if (depth === 1) {
          key = lastString;
          awaitingValue = true;
        }
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        depth++;
        if (inFeatures && depth === 3) {
          if (c !== OPEN_OBJECT) throw new JsonScanError(`an element of "features" near line ${line} is not an object`);
          elementFrom = i;
          elementHead = "";
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        if (depth < 0) throw new JsonScanError(`unexpected '${chunk[i]}' at line ${line}`);
        if (inFeatures && depth === 2) {
          const text = elementHead + chunk.slice(elementFrom, i + 1);
          elementHead = "";
          elementFrom = -1;
          yielded = true;
          yield text;
        } else if (inFeatures && depth === 1) inFeatures = false;
        else if (inCrs && depth === 1) {
          doc.crs = crsHead + chunk.slice(crsFrom, i + 1);
          doc.crsAfterFeatures = yielded;
          inCrs = false;
          crsHead = "";
          crsFrom = -1;
        }
      }
    }
    if (elementFrom >= 0) {
      elementHead += chunk.slice(elementFrom);
      elementFrom = 0;
    }
    if (stringFrom >= 0) {
      stringHead += chunk.slice(stringFrom);
      stringFrom = 0;
    }
    if (crsFrom >= 0) {
      crsHead += chunk.slice(crsFrom);
      crsFrom = 0;
      if (crsHead.length > MAX_CRS_TEXT) throw new JsonScanError(`the "crs" member is over ${MAX_CRS_TEXT / 1024} KiB: it cannot be a coordinate system's name`);
    }
  }
  if (!started) throw new JsonScanError("the file holds no JSON");
  if (inString || depth > 0) throw new JsonScanError(`${endsEarlyWords({ line, openBrackets: depth, inString })}; upload it again`);
}

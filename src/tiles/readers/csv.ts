// CSV (comma, semicolon, tab or pipe separated, RFC 4180 quoting) with longitude/latitude columns
// under common header spellings; each row becomes a Point with the other columns as properties.
import { InvalidSource } from "../errors";
import { csvDelimiter, lonLatColumns } from "../detect";
import { readLines } from "./lines";
import type { RawFeature, ReadProgress } from "./types";

/** Splits one record; returns null when a quoted field continues on the next line. */
function splitRecord(text: string, d: string): string[] | null {
  const out: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === d) {
      out.push(field);
      field = "";
    } else field += c;
  }
  if (quoted) return null;
  out.push(field);
  return out;
}

const NUMERIC = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A decimal comma ("46,95"), as spreadsheets in most of Europe export it, with semicolons between fields. */
const DECIMAL_COMMA = /^-?(?:0|[1-9]\d*),\d+$/;

/**
 * A field's number: with `decimalComma` (a semicolon-separated file, where a comma cannot separate
 * fields) "1,5" is 1.5 too; in a comma-separated file it could only be a quoted thousands separator.
 * Decimals are numbers however many digits they have (ogr2ogr writes 0.30000000000000004: the double
 * nearest to it is the value the file meant). An integer beyond 2^53 stays text, as does anything that
 * overflows a double: a 64-bit id would otherwise come back as a different id.
 */
function numberOf(v: string, decimalComma: boolean): number | null {
  const text = NUMERIC.test(v) ? v : decimalComma && DECIMAL_COMMA.test(v) ? v.replace(",", ".") : null;
  if (text === null) return null;
  const n = Number(text);
  if (!Number.isFinite(n)) return null;
  if (!/[.eE]/.test(text) && !Number.isSafeInteger(n)) return null;
  return n;
}

function value(raw: string, decimalComma: boolean): unknown {
  const v = raw.trim();
  return numberOf(v, decimalComma) ?? v;
}

export async function* readCsv(path: string, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  let header: string[] | null = null;
  let cols: { lon: number; lat: number } | null = null;
  let delimiter = ",";
  let lineNo = 0;
  let startLine = 0;
  let pending: string | null = null;
  // Rows with more fields than the header: the extra ones have no column to go to, and are most often a
  // value holding the delimiter without quotes, which also shifts the values after it.
  let overlong = 0;
  let firstOverlong = "";
  for await (const line of readLines(path, label, progress)) {
    lineNo++;
    const text: string = pending === null ? line : pending + "\n" + line;
    if (pending === null) startLine = lineNo;
    if (!header) {
      delimiter = csvDelimiter(text);
      header = splitRecord(text, delimiter) ?? [];
      cols = lonLatColumns(header);
      if (!cols) throw new InvalidSource(`${label}: line 1: the header has no longitude/latitude columns; name them lon/lng/longitude/x and lat/latitude/y`);
      header = header.map((h) => h.trim());
      continue;
    }
    const record = splitRecord(text, delimiter);
    if (record === null) {
      pending = text;
      if (text.length > 1_000_000) throw new InvalidSource(`${label}: line ${startLine}: a quoted field never ends`);
      continue;
    }
    pending = null;
    if (record.length === 1 && record[0]!.trim() === "") continue;
    const lonRaw = (record[cols!.lon] ?? "").trim();
    const latRaw = (record[cols!.lat] ?? "").trim();
    const decimalComma = delimiter === ";";
    const lon = numberOf(lonRaw, decimalComma) ?? Number(lonRaw);
    const lat = numberOf(latRaw, decimalComma) ?? Number(latRaw);
    const where = `line ${startLine}`;
    if (record.length > header.length && record.slice(header.length).some((f) => f.trim() !== "") && overlong++ === 0) firstOverlong = `${where}, with ${record.length}`;
    // Both cells empty: a row without a location (counted with features that have no geometry), not a
    // broken one.
    if (lonRaw === "" && latRaw === "") {
      yield { geometry: null, properties: null, where };
      continue;
    }
    if (lonRaw === "" || latRaw === "" || !Number.isFinite(lon) || !Number.isFinite(lat)) {
      yield { geometry: { type: "Point", coordinates: [lonRaw, latRaw] }, properties: null, where };
      continue;
    }
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < header.length; i++) {
      if (i === cols!.lon || i === cols!.lat || !header[i]) continue;
      const raw = record[i];
      if (raw !== undefined && raw !== "") properties[header[i]!] = value(raw, decimalComma);
    }
    yield { geometry: { type: "Point", coordinates: [lon, lat] }, properties, where };
  }
  if (pending !== null) throw new InvalidSource(`${label}: line ${startLine}: a quoted field is not closed before the end of the file (truncated?)`);
  if (!header) throw new InvalidSource(`${label}: the CSV file is empty`);
  if (overlong) {
    const rows = overlong === 1 ? "1 row has" : `${overlong} rows have`;
    const shown = delimiter === "\t" ? "a tab" : `"${delimiter}"`;
    progress.warnings?.push(`${label}: ${rows} more fields than the header's ${header.length} (first: ${firstOverlong}); the extra fields were left out. A value holding the delimiter (${shown}) must be in double quotes`);
  }
}

// `mapstead gazetteer import` and the admin upload: a GeoNames dump (plain .txt or .zip, streamed and
// inflated on the fly, never unpacked to disk) into a named dataset, in one transaction. Geoname rows
// (allCountries, citiesN, XX) become places; alternateNamesV2 rows become names of places already
// imported; admin1CodesASCII rows become regions, placed at their seat among the places already there. A zip entry that points outside the archive, or inflates suspiciously, is refused.
import { Unzip, UnzipInflate, type UnzipFile } from "fflate";
import { ADMIN1_COLUMNS, GEONAMES_ATTRIBUTION, GEONAME_COLUMNS, InvalidGazetteerLine, parseAdmin1Line, parseAlternateNameLine, parseGeonameLine } from "./geonames";
import type { Gazetteer } from "./gazetteer";
import { BUILTIN_DATASETS } from "./builtin";
import { listDatasets } from "./store";
import type { Database } from "bun:sqlite";
import { createDatasetWriter, type DatasetKind, type DatasetWriter, type WriteMode } from "./writer";

/** A file that cannot be imported; `line` (1-based, within `entry` for zips) when one line is at fault. */
export class InvalidGazetteerData extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly entry?: string,
  ) {
    super(message);
  }
}

export const DATASET_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RESERVED = new Set(Object.values(BUILTIN_DATASETS).map((d) => d.name));
/** Largest inflated total accepted from one zip (allCountries.txt is ~1.6 GB). */
export const MAX_INFLATED_BYTES = 16 * 1024 ** 3;
/** Text dumps compress 4-10x; far more than this is a zip bomb, not GeoNames. */
export const MAX_RATIO = 100;
const CHUNK = 1024 * 1024;

export interface ImportProgress {
  bytesRead: number;
  totalBytes: number;
  lines: number;
  places: number;
  names: number;
}

export interface ImportResult {
  dataset: string;
  kind: DatasetKind;
  mode: WriteMode;
  lines: number;
  places: number;
  names: number;
  /** alternate names whose place is in no imported GeoNames dataset; regions with no place of theirs to stand at */
  skipped: number;
  ms: number;
}

function unsafeEntryName(name: string): boolean {
  const n = name.replaceAll("\\", "/");
  return n.startsWith("/") || /^[a-zA-Z]:/.test(n) || n.split("/").some((seg) => seg === "..");
}

const wantedEntry = (name: string) => /\.txt$/i.test(name) && !/(^|\/)readme\.txt$/i.test(name) && !name.split("/").some((s) => s.startsWith("__MACOSX") || s.startsWith("._"));

export function checkDatasetName(name: string): string {
  if (!DATASET_NAME.test(name)) throw new InvalidGazetteerData(`dataset name ${JSON.stringify(name.slice(0, 70))} is invalid: use 1 to 64 lower-case letters, digits, '.', '_' or '-'`);
  if (RESERVED.has(name)) throw new InvalidGazetteerData(`dataset ${name} is built in and cannot be replaced; choose another name`);
  return name;
}

/** The files a dump can be, told apart by their number of columns. */
type DumpFormat = "geoname" | "alternate_names" | "admin1";
const FORMAT_OF_COLUMNS: Record<number, DumpFormat> = { [GEONAME_COLUMNS]: "geoname", 10: "alternate_names", 8: "alternate_names", [ADMIN1_COLUMNS]: "admin1" };
const DEFAULT_DATASET: Record<DumpFormat, string> = { geoname: "geonames", alternate_names: "alternate-names", admin1: "admin1-codes" };

/** Where each region (`CC.admin1`) is placed: its seat, else its most populous place, among those imported. */
function regionSeats(db: Database): Map<string, { lon: number; lat: number }> {
  const seats = new Map<string, { lon: number; lat: number; rank: number }>();
  for (const p of db
    .query<{ key: string; lon: number; lat: number; rank: number }, []>(
      "SELECT country_code || '.' || admin1 AS key, lon, lat, importance * 1e12 + population AS rank FROM places WHERE admin1 IS NOT NULL AND country_code IS NOT NULL AND layer IN ('locality', 'neighbourhood')",
    )
    .iterate()) {
    const best = seats.get(p.key);
    if (!best || p.rank > best.rank) seats.set(p.key, p);
  }
  return seats;
}

/**
 * Imports `path` into `dataset` (default `geonames` for places, `alternate-names` for names,
 * `admin1-codes` for regions).
 * Throws InvalidGazetteerData for files it cannot use; nothing is written then.
 */
export async function importGeonamesFile(
  gazetteer: Gazetteer,
  path: string,
  opts: { dataset?: string; mode: WriteMode; label?: string; onProgress?: (p: ImportProgress) => void; signal?: AbortSignal },
): Promise<ImportResult> {
  const started = performance.now();
  const label = opts.label ?? path.split("/").pop()!;
  if (opts.dataset !== undefined) checkDatasetName(opts.dataset);
  const file = Bun.file(path);
  const totalBytes = file.size;
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const isZip = head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5);

  return gazetteer.withWriter(async (db) => {
    let writer: DatasetWriter | null = null;
    let kind: DatasetKind | null = null;
    let format: DumpFormat | null = null;
    let seats: ReturnType<typeof regionSeats> | null = null;
    let dataset = "";
    const progress: ImportProgress = { bytesRead: 0, totalBytes, lines: 0, places: 0, names: 0 };
    let skipped = 0;
    let lastReport = 0;

    function open(columns: number, entry: string) {
      format = FORMAT_OF_COLUMNS[columns]!;
      kind = format === "alternate_names" ? "alternate_names" : "geonames";
      dataset = opts.dataset ?? DEFAULT_DATASET[format];
      const existing = listDatasets(db).find((d) => d.name === dataset);
      if (existing && existing.kind !== kind)
        throw new InvalidGazetteerData(`${entry}: dataset ${dataset} holds ${existing.kind === "geonames" ? "places" : "alternate names"}, this file holds ${kind === "geonames" ? "places" : "alternate names"}; choose another --dataset`);
      writer = createDatasetWriter(db, { name: dataset, kind, attribution: GEONAMES_ATTRIBUTION }, opts.mode);
      writer.begin();
    }

    /** One entry's (or the plain file's) lines, fed chunk by chunk. */
    function lineReader(entry: string) {
      const decoder = new TextDecoder("utf-8");
      let rest = "";
      let line = 0;
      const handle = (text: string) => {
        line++;
        if (text === "" || text.startsWith("#")) return;
        if (text.includes("\u0000")) throw new InvalidGazetteerData(`${entry} line ${line}: binary data, not a GeoNames text dump`, line, entry);
        const cols = (text.endsWith("\r") ? text.slice(0, -1) : text).split("\t");
        try {
          if (!writer) {
            if (!FORMAT_OF_COLUMNS[cols.length])
              throw new InvalidGazetteerLine(
                `has ${cols.length} tab-separated column(s); expected a GeoNames geoname row (${GEONAME_COLUMNS} columns, as in allCountries.txt or cities1000.txt), an alternateNamesV2 row (10) or an admin1CodesASCII row (4)`,
              );
            open(cols.length, entry);
          }
          if (format === "geoname") {
            writer!.addPlace(parseGeonameLine(cols));
            progress.places++;
          } else if (format === "admin1") {
            const r = parseAdmin1Line(cols);
            const seat = (seats ??= regionSeats(db)).get(`${r.country}.${r.admin1}`);
            if (seat) {
              const names = r.ascii && r.ascii !== r.name ? [{ name: r.ascii, lang: "" }] : [];
              writer!.addPlace({ extId: r.geonameId, layer: "region", name: r.name, countryCode: r.country, admin1: r.admin1, population: 0, importance: 0, lon: seat.lon, lat: seat.lat, names });
              progress.places++;
            } else skipped++;
          } else {
            const alt = parseAlternateNameLine(cols);
            if (alt && writer!.addAlternateName(alt.geonameId, alt.name)) progress.names++;
            else skipped++;
          }
          progress.lines++;
        } catch (err) {
          if (err instanceof InvalidGazetteerLine) throw new InvalidGazetteerData(`${entry} line ${line}: ${err.message}`, line, entry);
          throw err;
        }
      };
      return (chunk: Uint8Array | null) => {
        const text = rest + (chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode());
        const lines = text.split("\n");
        rest = chunk ? lines.pop()! : "";
        for (const l of lines) handle(l);
        if (!chunk && rest) handle(rest);
      };
    }

    function report(force = false) {
      if (opts.signal?.aborted) throw new Error("the import was stopped (server shutdown)");
      const now = performance.now();
      if (opts.onProgress && (force || now - lastReport > 500)) {
        lastReport = now;
        opts.onProgress({ ...progress });
      }
    }

    try {
      const reader = file.stream().getReader();
      if (isZip) {
        let inflated = 0;
        let entries = 0;
        const unzip = new Unzip((entry: UnzipFile) => {
          if (unsafeEntryName(entry.name)) throw new InvalidGazetteerData(`${label}: archive entry '${entry.name}' points outside the archive; refused`);
          if (!wantedEntry(entry.name)) return;
          if (entry.originalSize !== undefined && entry.size !== undefined && entry.originalSize > CHUNK && entry.originalSize / Math.max(1, entry.size) > MAX_RATIO)
            throw new InvalidGazetteerData(`${label}: entry '${entry.name}' claims a ${Math.round(entry.originalSize / Math.max(1, entry.size))}:1 compression ratio; refused as a possible zip bomb`);
          entries++;
          const feed = lineReader(entry.name);
          entry.ondata = (err, data, final) => {
            // fflate hands errors thrown by this handler back to it as `err`: ours pass through as they are.
            if (err instanceof InvalidGazetteerData) throw err;
            if (err) throw new InvalidGazetteerData(`${label}: entry '${entry.name}' is damaged (${err.message}); download it again`);
            inflated += data.length;
            if (inflated > MAX_INFLATED_BYTES) throw new InvalidGazetteerData(`${label}: the archive inflates to more than ${MAX_INFLATED_BYTES / 1024 ** 3} GiB; refused`);
            if (inflated > CHUNK && inflated / Math.max(1, progress.bytesRead) > MAX_RATIO) throw new InvalidGazetteerData(`${label}: entry '${entry.name}' inflates more than ${MAX_RATIO}:1; refused as a possible zip bomb`);
            feed(data);
            if (final) feed(null);
          };
          entry.start();
        });
        unzip.register(UnzipInflate);
        const push = (chunk: Uint8Array, final: boolean) => {
          try {
            unzip.push(chunk, final);
          } catch (err) {
            if (err instanceof InvalidGazetteerData) throw err;
            throw new InvalidGazetteerData(`${label}: the zip archive is damaged or truncated (${(err as Error).message}); download it again`);
          }
        };
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          progress.bytesRead += value.length;
          push(value, false);
          report();
        }
        push(new Uint8Array(0), true);
        if (!entries) throw new InvalidGazetteerData(`${label}: the zip holds no .txt dump (expected e.g. allCountries.txt, cities1000.txt or alternateNamesV2.txt)`);
      } else {
        const feed = lineReader(label);
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          progress.bytesRead += value.length;
          feed(value);
          report();
        }
        feed(null);
      }
      if (!writer) throw new InvalidGazetteerData(`${label}: no data lines found; expected a GeoNames dump (allCountries, citiesN or alternateNamesV2)`);
      const counts = (writer as DatasetWriter).commit();
      report(true);
      return { dataset, kind: kind!, mode: opts.mode, lines: progress.lines, places: counts.places, names: counts.names, skipped, ms: Math.round(performance.now() - started) };
    } catch (err) {
      (writer as DatasetWriter | null)?.rollback();
      throw err;
    }
  });
}

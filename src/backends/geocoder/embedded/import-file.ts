// `mapstead gazetteer import` and the admin upload: a GeoNames dump into a named dataset, in one
// transaction, written on a thread of its own (import-thread.ts), which another thread feeds: it reads,
// inflates and parses the file (dump-thread.ts). Geoname rows (allCountries, citiesN, XX) become
// places; alternateNamesV2 rows become names of places already imported; admin1CodesASCII rows become
// regions, placed at their seat among the places already there.
import { GEONAMES_ATTRIBUTION, importanceOf } from "./geonames";
import type { Gazetteer } from "./gazetteer";
import { BUILTIN_DATASETS } from "./builtin";
import { listDatasets, regionPeople } from "./store";
import type { Database } from "bun:sqlite";
import { unpackBatch, type Admin1Row, type AlternateName, type DumpFormat, type PackedBatch } from "./dump-batch";
import { InvalidGazetteerData } from "./dump-reader";
import { createDatasetWriter, type DatasetKind, type DatasetWriter, type PlaceRecord, type WriteMode } from "./writer";
import { importInThread } from "./import-in-thread";

export { InvalidGazetteerData } from "./dump-reader";

export const DATASET_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const RESERVED = new Set(Object.values(BUILTIN_DATASETS).map((d) => d.name));

// In the compiled binary the thread is its own entry point, kept at its path under the project root
// (scripts/build.ts finds it from the URL below); from source it is a file. Bun.main tells them apart.
const threadUrl = Bun.main.startsWith("/$bunfs/") ? "./src/backends/geocoder/embedded/dump-thread.ts" : new URL("./dump-thread.ts", import.meta.url).href;

export interface ImportProgress {
  bytesRead: number;
  totalBytes: number;
  lines: number;
  places: number;
  names: number;
  /**
   * `indexing` once every row is written and the import builds its indexes, word index and typo keys
   * and commits (minutes for allCountries, with nothing more to count), `done` after its commit.
   */
  stage: "reading" | "indexing" | "done";
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

export function checkDatasetName(name: string): string {
  if (!DATASET_NAME.test(name)) throw new InvalidGazetteerData(`dataset name ${JSON.stringify(name.slice(0, 70))} is invalid: use 1 to 64 lower-case letters, digits, '.', '_' or '-'`);
  if (RESERVED.has(name)) throw new InvalidGazetteerData(`dataset ${name} is built in and cannot be replaced; choose another name`);
  return name;
}

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

type ThreadMessage =
  | { type: "batch"; batch: PackedBatch }
  | { type: "end" }
  | { type: "invalid"; message: string; line?: number; entry?: string }
  | { type: "failed"; message: string };

/** The parsed batches of the dump at `path`, from its thread; the thread goes when the loop over them ends. */
async function* parsedInThread(path: string, label: string): AsyncGenerator<PackedBatch> {
  const worker = new Worker(threadUrl);
  const queue: ThreadMessage[] = [];
  let wake: (() => void) | null = null;
  const receive = (m: ThreadMessage) => {
    queue.push(m);
    wake?.();
  };
  worker.onmessage = (e: MessageEvent<ThreadMessage>) => receive(e.data);
  worker.onerror = (e) => receive({ type: "failed", message: String(e.message ?? e) });
  worker.addEventListener("close", () => receive({ type: "failed", message: "the thread reading the file stopped (out of memory?)" }));
  worker.postMessage({ type: "start", path, label });
  try {
    for (;;) {
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      const m = queue.shift()!;
      if (m.type === "end") return;
      if (m.type === "invalid") throw new InvalidGazetteerData(m.message, m.line, m.entry);
      if (m.type === "failed") throw new Error(m.message);
      yield m.batch;
      worker.postMessage({ type: "ack" });
    }
  } finally {
    worker.terminate();
  }
}

export interface GeonamesImportOptions {
  dataset?: string;
  mode: WriteMode;
  /** the file's name in messages (an upload's own name); default the path's last part */
  label?: string;
  onProgress?: (p: ImportProgress) => void;
  signal?: AbortSignal;
}

/**
 * Imports `path` into `dataset` (default `geonames` for places, `alternate-names` for names,
 * `admin1-codes` for regions), on a thread of its own (import-in-thread.ts): an import writes for
 * seconds to minutes, and a server of one process keeps answering meanwhile. `onWriterCpu` gets the
 * CPU time (microseconds) of the thread that wrote SQLite (for the bench).
 * Throws InvalidGazetteerData for files it cannot use; nothing is written then.
 */
export async function importGeonamesFile(gazetteer: Gazetteer, path: string, opts: GeonamesImportOptions & { onWriterCpu?: (micros: number) => void }): Promise<ImportResult> {
  if (opts.dataset !== undefined) checkDatasetName(opts.dataset);
  const label = opts.label ?? path.split("/").pop()!;
  return gazetteer.withWriteLock(() => importInThread(gazetteer.path, { kind: "geonames", path, dataset: opts.dataset, label }, opts));
}

/** The import itself, on the writing connection `db` (of the import's thread). */
export async function writeGeonamesFile(db: Database, path: string, opts: GeonamesImportOptions & { label: string }): Promise<ImportResult> {
  const started = performance.now();
  const label = opts.label;
  const totalBytes = Bun.file(path).size;
  let writer: DatasetWriter | null = null;
  let kind: DatasetKind | null = null;
  let seats: ReturnType<typeof regionSeats> | null = null;
  let people: ReturnType<typeof regionPeople> | null = null;
  let dataset = "";
  const progress: ImportProgress = { bytesRead: 0, totalBytes, lines: 0, places: 0, names: 0, stage: "reading" };
  let skipped = 0;
  let lastReport = 0;

  function open(format: DumpFormat, entry: string): DatasetWriter {
    kind = format === "alternate_names" ? "alternate_names" : "geonames";
    dataset = opts.dataset ?? DEFAULT_DATASET[format];
    const existing = listDatasets(db).find((d) => d.name === dataset);
    if (existing && existing.kind !== kind)
      throw new InvalidGazetteerData(`${entry}: dataset ${dataset} holds ${existing.kind === "geonames" ? "places" : "alternate names"}, this file holds ${kind === "geonames" ? "places" : "alternate names"}; choose another --dataset`);
    writer = createDatasetWriter(db, { name: dataset, kind, attribution: GEONAMES_ATTRIBUTION }, opts.mode);
    writer.begin();
    return writer;
  }

  function write(batch: PackedBatch) {
    const w = writer ?? open(batch.format, batch.entry);
    for (const record of unpackBatch(batch)) {
      if (batch.format === "geoname") {
        w.addPlace(record as PlaceRecord);
        progress.places++;
      } else if (batch.format === "admin1") {
        const r = record as Admin1Row;
        const key = `${r.country}.${r.admin1}`;
        const seat = (seats ??= regionSeats(db)).get(key);
        if (seat) {
          const names = r.ascii && r.ascii !== r.name ? [{ name: r.ascii, lang: "" }] : [];
          const population = (people ??= regionPeople(db)).get(key) ?? 0;
          w.addPlace({ extId: r.geonameId, layer: "region", name: r.name, countryCode: r.country, admin1: r.admin1, population, importance: importanceOf("region", "ADM1"), lon: seat.lon, lat: seat.lat, names });
          progress.places++;
        } else skipped++;
      } else {
        const alt = record as AlternateName | null;
        if (!alt || !w.addAlternateName(alt.geonameId, alt.name)) skipped++;
      }
    }
    progress.names = w.written().names;
    progress.lines += batch.lines;
    progress.bytesRead = batch.bytesRead;
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
    for await (const batch of parsedInThread(path, label)) {
      write(batch);
      report();
    }
    progress.bytesRead = totalBytes;
    progress.stage = "indexing";
    report(true);
    // The thread refuses a file without data lines: there was a batch, and a writer for it.
    const counts = (writer as unknown as DatasetWriter).commit();
    progress.stage = "done";
    report(true);
    return { dataset, kind: kind!, mode: opts.mode, lines: progress.lines, places: counts.places, names: counts.names, skipped, ms: Math.round(performance.now() - started) };
  } catch (err) {
    (writer as DatasetWriter | null)?.rollback();
    throw err;
  }
}

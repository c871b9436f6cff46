// Reads a GeoNames dump (plain .txt or .zip, streamed and inflated on the fly, never unpacked to disk)
// into packed batches of parsed lines with their names folded (dump-batch.ts): everything an import
// does before SQLite, so that it can run on a thread of its own (dump-thread.ts). The first data line
// tells the format by its number of columns; every later line must be of it. A zip entry that points
// outside the archive, or inflates suspiciously, is refused.
import { Unzip, UnzipInflate, type UnzipFile } from "fflate";
import { ADMIN1_COLUMNS, GEONAME_COLUMNS, InvalidGazetteerLine, parseAdmin1Line, parseAlternateNameLine, parseGeonameLine } from "./geonames";
import { batchPacker, type DumpFormat, type PackedBatch } from "./dump-batch";
import { foldName } from "./text";
import { distinctNames } from "./place-names";

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

/** Largest inflated total accepted from one zip (allCountries.txt is ~1.6 GB). */
const MAX_INFLATED_BYTES = 16 * 1024 ** 3;
/** Text dumps compress 4-10x; far more than this is a zip bomb, not GeoNames. */
const MAX_RATIO = 100;
const CHUNK = 1024 * 1024;

const FORMAT_OF_COLUMNS: Record<number, DumpFormat> = { [GEONAME_COLUMNS]: "geoname", 10: "alternate_names", 8: "alternate_names", [ADMIN1_COLUMNS]: "admin1" };

function unsafeEntryName(name: string): boolean {
  const n = name.replaceAll("\\", "/");
  return n.startsWith("/") || /^[a-zA-Z]:/.test(n) || n.split("/").some((seg) => seg === "..");
}

const wantedEntry = (name: string) => /\.txt$/i.test(name) && !/(^|\/)readme\.txt$/i.test(name) && !name.split("/").some((s) => s.startsWith("__MACOSX") || s.startsWith("._"));

/**
 * Reads the dump at `path` and hands `onBatch` the lines of each chunk read, parsed; `onBatch` may make
 * the reading wait (the import keeps at most a few batches ahead of the writes).
 * Throws InvalidGazetteerData for files it cannot use.
 */
export async function readDump(path: string, label: string, onBatch: (batch: PackedBatch) => void | Promise<void>): Promise<void> {
  const file = Bun.file(path);
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const isZip = head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5);
  const packer = batchPacker();
  let format: DumpFormat | null = null;
  let entryNow = label;
  let bytesRead = 0;
  let lines = 0;

  async function flush() {
    if (!format) return;
    const { texts, numbers } = packer.take();
    if (!numbers.length) return;
    await onBatch({ format, entry: entryNow, texts, numbers, lines, bytesRead });
    lines = 0;
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
        if (!format) {
          format = FORMAT_OF_COLUMNS[cols.length] ?? null;
          if (!format)
            throw new InvalidGazetteerLine(
              `has ${cols.length} tab-separated column(s); expected a GeoNames geoname row (${GEONAME_COLUMNS} columns, as in allCountries.txt or cities1000.txt), an alternateNamesV2 row (10) or an admin1CodesASCII row (4)`,
            );
        }
        if (format === "geoname") {
          const p = parseGeonameLine(cols);
          const folded = foldName(p.name);
          packer.place({ ...p, folded, names: distinctNames(folded, p.names) });
        } else if (format === "admin1") packer.admin1(parseAdmin1Line(cols));
        else {
          const alt = parseAlternateNameLine(cols);
          if (alt) alt.name.folded = foldName(alt.name.name);
          packer.alternateName(alt);
        }
        lines++;
      } catch (err) {
        if (err instanceof InvalidGazetteerLine) throw new InvalidGazetteerData(`${entry} line ${line}: ${err.message}`, line, entry);
        throw err;
      }
    };
    return (chunk: Uint8Array | null) => {
      entryNow = entry;
      const text = rest + (chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode());
      const split = text.split("\n");
      rest = chunk ? split.pop()! : "";
      for (const l of split) handle(l);
      if (!chunk && rest) handle(rest);
    };
  }

  const reader = file.stream().getReader();
  if (isZip) {
    let inflated = 0;
    let entries = 0;
    let seen = 0;
    const unzip = new Unzip((entry: UnzipFile) => {
      seen++;
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
        if (inflated > CHUNK && inflated / Math.max(1, bytesRead) > MAX_RATIO) throw new InvalidGazetteerData(`${label}: entry '${entry.name}' inflates more than ${MAX_RATIO}:1; refused as a possible zip bomb`);
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
      bytesRead += value.length;
      push(value, false);
      await flush();
    }
    push(new Uint8Array(0), true);
    await flush();
    // A file that starts like a zip but holds no entry at all is damaged (or cut short), not a zip of other files.
    if (!seen) throw new InvalidGazetteerData(`${label}: the zip archive is damaged or truncated (no file entries could be read); download it again`);
    if (!entries) throw new InvalidGazetteerData(`${label}: the zip holds no .txt dump (expected e.g. allCountries.txt, cities1000.txt or alternateNamesV2.txt)`);
  } else {
    const feed = lineReader(label);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytesRead += value.length;
      feed(value);
      await flush();
    }
    feed(null);
    await flush();
  }
  if (!format) throw new InvalidGazetteerData(`${label}: no data lines found; expected a GeoNames dump (allCountries, citiesN or alternateNamesV2)`);
}

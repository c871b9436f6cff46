// Streams the wanted entries of an uploaded zip into scratch files, chunk by chunk, so neither the
// archive nor an entry is ever held in memory whole. Entries escaping the archive are refused, and so
// are zip bombs: a declared or actual compression ratio too large, or more inflated bytes than allowed.
import { Unzip, UnzipInflate, type UnzipFile } from "fflate";
import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { InvalidSource } from "./errors";

/** Largest total of inflated bytes taken from one archive (a Shapefile's .shp and .dbf are at most 2 GiB each). */
export const MAX_UNZIPPED_BYTES = 8 * 1024 ** 3;
/** Largest compression ratio accepted past the first MiB (real shapefiles and GeoJSON compress ~3-20x). */
export const MAX_RATIO = 200;
const FIRST_MIB = 1024 * 1024;
/** The end-of-central-directory record sits in the last 22 bytes plus an archive comment of up to 64 KiB. */
const EOCD_SEARCH = 22 + 0xffff;

function unsafeName(name: string): boolean {
  const n = name.replaceAll("\\", "/");
  return n.startsWith("/") || /^[a-zA-Z]:/.test(n) || n.split("/").some((seg) => seg === "..");
}

/** macOS metadata and directories are never data. */
export const isJunk = (name: string) => name.endsWith("/") || name.split("/").some((s) => s.startsWith("__MACOSX") || s.startsWith("._"));

const damaged = (label: string, why: string) => new InvalidSource(`${label}: the zip archive is damaged or truncated (${why}); upload it again`);

/** A zip ends with its central directory: without that record the upload was cut short. */
function checkComplete(path: string, label: string): void {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, EOCD_SEARCH);
    const tail = Buffer.alloc(length);
    readSync(fd, tail, 0, length, size - length);
    if (tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])) < 0) throw damaged(label, "no end-of-archive record");
  } finally {
    closeSync(fd);
  }
}

/**
 * Inflates every entry `wanted` picks into a file named `${scratchPrefix}-${n}`; returns entry name ->
 * scratch path. Each scratch path is pushed to `scratch` as soon as it exists, so the caller can
 * remove them whatever happens.
 */
export async function extractZip(path: string, label: string, scratchPrefix: string, wanted: (name: string) => boolean, scratch: string[]): Promise<Map<string, string>> {
  checkComplete(path, label);
  const extracted = new Map<string, string>();
  const open = new Map<string, number>();
  let compressed = 0;
  let inflated = 0;
  let failure: Error | null = null;
  const unzip = new Unzip((entry: UnzipFile) => {
    if (failure) return;
    if (unsafeName(entry.name)) {
      failure = new InvalidSource(`${label}: archive entry '${entry.name}' points outside the archive; refused`);
      return;
    }
    if (isJunk(entry.name) || !wanted(entry.name)) return;
    // Sizes are declared unless the entry was written as a stream (then only the inflated bytes tell).
    const declared = entry.originalSize ?? 0;
    const ratio = declared / Math.max(1, entry.size ?? declared);
    if (declared > FIRST_MIB && ratio > MAX_RATIO) {
      failure = new InvalidSource(`${label}: entry '${entry.name}' claims a ${Math.round(ratio)}:1 compression ratio; refused as a possible zip bomb`);
      return;
    }
    const file = `${scratchPrefix}-${extracted.size}`;
    scratch.push(file);
    const fd = openSync(file, "w");
    extracted.set(entry.name, file);
    open.set(entry.name, fd);
    entry.ondata = (err, data, final) => {
      if (failure) return;
      if (err) {
        failure = damaged(label, `entry '${entry.name}': ${err.message}`);
        return;
      }
      inflated += data.length;
      if (inflated > MAX_UNZIPPED_BYTES) failure = new InvalidSource(`${label}: the archive inflates to more than ${MAX_UNZIPPED_BYTES / 1024 ** 3} GiB; refused (split the data or upload FlatGeobuf)`);
      else if (inflated > FIRST_MIB && inflated / Math.max(1, compressed) > MAX_RATIO) failure = new InvalidSource(`${label}: entry '${entry.name}' inflates more than ${MAX_RATIO}:1; refused as a possible zip bomb`);
      if (failure) return;
      writeSync(fd, data);
      if (final) {
        closeSync(fd);
        open.delete(entry.name);
      }
    };
    entry.start();
  });
  unzip.register(UnzipInflate);
  try {
    for await (const chunk of Bun.file(path).stream() as unknown as AsyncIterable<Uint8Array>) {
      compressed += chunk.length;
      try {
        unzip.push(chunk, false);
      } catch (err) {
        failure ??= damaged(label, (err as Error).message);
      }
      if (failure) throw failure;
    }
    try {
      unzip.push(new Uint8Array(0), true);
    } catch (err) {
      failure ??= damaged(label, (err as Error).message);
    }
    if (failure) throw failure;
    const [unfinished] = open.keys();
    if (unfinished !== undefined) throw damaged(label, `entry '${unfinished}' ends early`);
    return extracted;
  } finally {
    for (const fd of open.values()) closeSync(fd);
  }
}

// What is wrong with a file named on the command line, in words that point at the mistake: a typo
// (it does not exist), a directory, or a file this user may not read.
import { accessSync, constants, createReadStream, createWriteStream, mkdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { BadRequest, PayloadTooLarge } from "../errors";
import { currentUserWords } from "../os-user";

/** Null when `path` is a file this user can read. */
export function inputFileProblem(path: string): string | null {
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch {
    return `${path} cannot be reached: ${currentUserWords()} may not look into its directory`;
  }
  if (!st) return `${path} does not exist`;
  if (st.isDirectory()) return `${path} is a directory; name the file itself`;
  if (!st.isFile()) return `${path} is not a regular file`;
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return `${path} is not readable by ${currentUserWords()}`;
  }
  return null;
}

/**
 * Whether the file starts as gzip does (1f 8b, then 08 for deflate, the only method gzip defines),
 * whatever its name: two bytes alone also begin raw data (an SRTM .hgt whose first height is 8075 m).
 */
async function isGzip(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 3).arrayBuffer());
  return head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08;
}

/**
 * Copies an input file into DATA_DIR (`to`) for an import; a gzip-compressed one (big.geojson.gz) is
 * decompressed as it streams, as the HTTP upload does for Content-Encoding: gzip, and may come to at
 * most MAX_UPLOAD_MB decompressed, so a gzip bomb stops early with a clear message instead of filling
 * the disk. `name` is the file's name with the .gz the decompressed data no longer has taken off.
 */
export async function copyInputFile(from: string, to: string, maxUploadMb: number): Promise<{ bytes: number; name: string }> {
  const name = basename(from);
  if (!(await isGzip(from))) return { bytes: await Bun.write(to, Bun.file(from)), name };
  const limit = maxUploadMb * 1024 * 1024;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > limit) done(new PayloadTooLarge(`${from} decompresses to over MAX_UPLOAD_MB (${maxUploadMb} MiB); stopped there. If the data is really that large, raise MAX_UPLOAD_MB (--max-upload-mb)`));
      else done(null, chunk);
    },
  });
  mkdirSync(dirname(to), { recursive: true });
  try {
    await pipeline(createReadStream(from), createGunzip(), count, createWriteStream(to));
  } catch (err) {
    rmSync(to, { force: true });
    // zlib's own errors (Z_DATA_ERROR, Z_BUF_ERROR: "unexpected end of file") are the file's; others (a full disk) are not.
    if (!String((err as { code?: unknown }).code ?? "").startsWith("Z_")) throw err;
    throw new BadRequest(`${from} starts as gzip-compressed data but does not decompress (${(err as Error).message}); it may be truncated`);
  }
  return { bytes, name: name.replace(/\.gz$/i, "").replace(/\.tgz$/i, ".tar") || name };
}

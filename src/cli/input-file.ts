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
 * decompressed as it streams, as the HTTP upload does for Content-Encoding: gzip. The gzip files of one
 * import come to at most MAX_UPLOAD_MB decompressed together, as one HTTP upload of them would, so a gzip
 * bomb (or many small ones) stops early with a clear message instead of filling the disk:
 * `decompressedBefore` is what earlier files of the same import decompressed to. `name` is the file's
 * name with the .gz the decompressed data no longer has taken off; `decompressed` what this file
 * decompressed to (0 for a file copied as it is).
 */
export async function copyInputFile(from: string, to: string, maxUploadMb: number, decompressedBefore = 0): Promise<{ bytes: number; name: string; decompressed: number }> {
  const name = basename(from);
  if (!(await isGzip(from))) return { bytes: await Bun.write(to, Bun.file(from)), name, decompressed: 0 };
  const limit = maxUploadMb * 1024 * 1024;
  let bytes = 0;
  const over = () =>
    decompressedBefore > 0
      ? `${from} and the gzip files before it decompress to over MAX_UPLOAD_MB (${maxUploadMb} MiB) together; stopped there. If the data is really that large, raise MAX_UPLOAD_MB (--max-upload-mb)`
      : `${from} decompresses to over MAX_UPLOAD_MB (${maxUploadMb} MiB); stopped there. If the data is really that large, raise MAX_UPLOAD_MB (--max-upload-mb)`;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (decompressedBefore + bytes > limit) done(new PayloadTooLarge(over()));
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
  return { bytes, name: name.replace(/\.gz$/i, "").replace(/\.tgz$/i, ".tar") || name, decompressed: bytes };
}

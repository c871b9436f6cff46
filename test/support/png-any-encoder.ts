// A deliberately plain PNG encoder for tests of the PNG reader: any colour type and bit depth, an
// optional PLTE and tRNS, and Adam7 interlacing, which pngjs (the tests' oracle) cannot write. It
// shares no code with src/sprites/png.ts; tests first check that pngjs decodes what it writes.
import { zlibSync } from "fflate";

export const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** [x0, y0, dx, dy] of the seven Adam7 passes (PNG spec 8.2). */
export const ADAM7_PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

export interface RawImage {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  bitDepth: 1 | 2 | 4 | 8 | 16;
  /** width * height * channels samples, row by row, each 0 .. 2^bitDepth - 1 */
  samples: Uint16Array;
  /** colour type 3: RGB triples */
  palette?: Uint8Array;
  /** the tRNS payload, as written */
  trns?: Uint8Array;
  interlaced?: boolean;
}

/** The filtered scanlines, pass after pass, as the zlib stream will hold them (exported for tests that damage them). */
export function filteredData(img: RawImage): Uint8Array {
  const ch = CHANNELS[img.colorType]!;
  const passes = img.interlaced ? ADAM7_PASSES : ([[0, 0, 1, 1]] as const);
  const out: number[] = [];
  passes.forEach(([x0, y0, dx, dy], p) => {
    const xs: number[] = [];
    for (let x = x0; x < img.width; x += dx) xs.push(x);
    const ys: number[] = [];
    for (let y = y0; y < img.height; y += dy) ys.push(y);
    if (!xs.length || !ys.length) return; // an empty pass has no rows at all, not even filter bytes
    let prev: number[] | null = null;
    ys.forEach((y, r) => {
      const row = packRow(xs.flatMap((x) => [...img.samples.subarray((y * img.width + x) * ch, (y * img.width + x + 1) * ch)]), img.bitDepth);
      const filter = (r + p) % 5; // every filter type, on first rows too
      out.push(filter, ...filterRow(row, prev, filter, Math.max(1, (ch * img.bitDepth) >> 3)));
      prev = row;
    });
  });
  return new Uint8Array(out);
}

export function encodeAnyPng(img: RawImage, idat = zlibSync(filteredData(img))): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, img.width);
  v.setUint32(4, img.height);
  ihdr.set([img.bitDepth, img.colorType, 0, 0, img.interlaced ? 1 : 0], 8);
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), pngChunk("IHDR", ihdr)];
  if (img.palette) parts.push(pngChunk("PLTE", img.palette));
  if (img.trns) parts.push(pngChunk("tRNS", img.trns));
  // split in two IDAT chunks, as large files are
  const half = idat.length >> 1;
  parts.push(pngChunk("IDAT", idat.subarray(0, half)), pngChunk("IDAT", idat.subarray(half)), pngChunk("IEND", new Uint8Array(0)));
  return new Uint8Array(Buffer.concat(parts));
}

/** A chunk with its length, type and CRC-32 (computed bit by bit here, not with the reader's). */
export function pngChunk(type: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, payload.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(payload, 8);
  let c = 0xffffffff;
  for (let i = 4; i < 8 + payload.length; i++) {
    c ^= out[i]!;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  v.setUint32(8 + payload.length, (c ^ 0xffffffff) >>> 0);
  return out;
}

/** Samples packed into bytes: sub-byte ones high bits first, each row padded to a whole byte; 16-bit big-endian. */
function packRow(samples: number[], depth: number): number[] {
  if (depth === 16) return samples.flatMap((s) => [s >> 8, s & 255]);
  if (depth === 8) return samples;
  const bytes = new Array<number>(Math.ceil((samples.length * depth) / 8)).fill(0);
  samples.forEach((s, i) => {
    const bit = i * depth;
    bytes[bit >> 3]! |= s << (8 - depth - (bit % 8));
  });
  return bytes;
}

function filterRow(row: number[], prev: number[] | null, filter: number, bpp: number): number[] {
  return row.map((x, i) => {
    const a = i >= bpp ? row[i - bpp]! : 0;
    const b = prev ? prev[i]! : 0;
    const c = prev && i >= bpp ? prev[i - bpp]! : 0;
    const pred = [0, a, b, Math.floor((a + b) / 2), paeth(a, b, c)][filter]!;
    return (x - pred + 256) % 256;
  });
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

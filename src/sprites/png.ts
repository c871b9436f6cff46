// A small PNG codec for sprite sheets: encodes 8-bit RGBA, and reads any PNG far enough to prove it
// decodes (every chunk CRC, IHDR, the zlib stream and the exact scanline byte count), decoding pixels
// of any valid PNG (every colour type and bit depth, tRNS, Adam7) to RGBA8. zlib is Bun's native one,
// with fflate's for streams it refuses. Extra ancillary chunks can be written and read back (DEM tiles
// carry their no-data mask in one, see tiles/dem/nodata.ts).
import { inflateSync } from "node:zlib";
import { unzlibSync, zlibSync } from "fflate";

const SIGNATURE = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);

/** CRC-32 of bytes[start, end), as PNG chunks carry it (Bun's native one: IEEE polynomial). */
const crc32 = (bytes: Uint8Array, start: number, end: number) => Bun.hash.crc32(bytes.subarray(start, end));

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, straight (not premultiplied) alpha */
  data: Uint8Array;
}

export class PngError extends Error {}

/** An extra chunk: `type` is four letters (lowercase first = ancillary, which decoders that do not know it skip). */
export interface PngChunk {
  type: string;
  data: Uint8Array;
}

function chunk(type: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(payload, 8);
  view.setUint32(8 + payload.length, crc32(out, 4, 8 + payload.length));
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Encodes RGBA8, choosing per row the filter with the smallest sum of absolute values (libpng's
 * heuristic); `extra` chunks are written after the image data.
 */
export function encodePng(image: RgbaImage, extra: PngChunk[] = []): Uint8Array {
  const { width, height, data } = image;
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  const candidate = new Uint8Array(stride);
  const best = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const prev = row - stride;
    let bestFilter = 0;
    let bestScore = Infinity;
    for (let f = 0; f < 5; f++) {
      let score = 0;
      for (let i = 0; i < stride; i++) {
        const x = data[row + i]!;
        const a = i >= 4 ? data[row + i - 4]! : 0;
        const b = y > 0 ? data[prev + i]! : 0;
        const c = i >= 4 && y > 0 ? data[prev + i - 4]! : 0;
        const v = (f === 0 ? x : f === 1 ? x - a : f === 2 ? x - b : f === 3 ? x - ((a + b) >> 1) : x - paeth(a, b, c)) & 0xff;
        candidate[i] = v;
        score += v < 128 ? v : 256 - v;
      }
      if (score < bestScore) {
        bestScore = score;
        bestFilter = f;
        best.set(candidate);
      }
    }
    raw[y * (stride + 1)] = bestFilter;
    raw.set(best, y * (stride + 1) + 1);
  }
  return pngFile(width, height, zlibSync(raw, { level: 6 }), extra);
}

/** A complete 8-bit RGBA PNG around an IDAT payload (filtered rows, zlib-compressed); shared by both encoders. */
export function pngFile(width: number, height: number, idat: Uint8Array, extra: PngChunk[] = []): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // bit depth 8, RGBA, deflate, adaptive filtering, no interlace
  // Copied into an array of its own (not Buffer.concat, whose small results may share a pooled buffer
  // that a caller reading `.buffer` would see whole).
  const parts = [SIGNATURE, chunk("IHDR", ihdr), chunk("IDAT", idat), ...extra.map((c) => chunk(c.type, c.data)), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface PngInfo {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** One Adam7 pass (or the whole image, for a non-interlaced PNG): its first pixel and its steps. */
type Pass = readonly [x0: number, y0: number, dx: number, dy: number];
const WHOLE: readonly Pass[] = [[0, 0, 1, 1]];

/** The passes of an image with their size in pixels; Adam7 passes that hold no pixel (small images) are left out. */
function passes(info: PngInfo): { pass: Pass; index: number; width: number; height: number }[] {
  return (info.interlaced ? ADAM7 : WHOLE).flatMap((pass, index) => {
    const [x0, y0, dx, dy] = pass;
    const width = Math.ceil((info.width - x0) / dx);
    const height = Math.ceil((info.height - y0) / dy);
    return width > 0 && height > 0 ? [{ pass, index, width, height }] : [];
  });
}

function scanlineBytes(info: PngInfo, width: number): number {
  return Math.ceil((width * CHANNELS[info.colorType]! * info.bitDepth) / 8);
}

/** Filtered bytes the header promises: each pass's rows, each with its filter type byte. */
function expectedLength(info: PngInfo): number {
  return passes(info).reduce((n, p) => n + (scanlineBytes(info, p.width) + 1) * p.height, 0);
}

/** A typed array of `n` bytes, or a PngError where the header asks for more than this process can hold. */
function allocate(n: number, what: string): Uint8Array {
  try {
    return new Uint8Array(n);
  } catch {
    throw new PngError(`${what} of ${n} bytes is too large`);
  }
}

/**
 * Reads a PNG: checks the structure and that the image data inflates to exactly the bytes its header
 * promises. Returns the header, plus RGBA pixels when `pixels` is set (every colour type and bit depth,
 * tRNS transparency, Adam7 interlacing), plus the payload of the first chunk of each type named in
 * `chunks` that the file holds. Throws PngError naming the defect.
 */
export function readPng(bytes: Uint8Array, opts: { maxPixels?: number; pixels?: boolean; chunks?: string[] } = {}): PngInfo & { data?: Uint8Array; chunks?: Record<string, Uint8Array> } {
  if (bytes.length < 8 || !SIGNATURE.every((b, i) => bytes[i] === b)) throw new PngError("not a PNG file (bad signature)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let info: PngInfo | null = null;
  let palette: Uint8Array | null = null;
  let transparency: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  const kept: Record<string, Uint8Array> = {};
  let ended = false;
  let o = 8;
  while (o < bytes.length) {
    if (o + 12 > bytes.length) throw new PngError("truncated chunk");
    const length = view.getUint32(o);
    const type = String.fromCharCode(bytes[o + 4]!, bytes[o + 5]!, bytes[o + 6]!, bytes[o + 7]!);
    if (length > 0x7fffffff || o + 12 + length > bytes.length) throw new PngError(`truncated ${type} chunk`);
    if (crc32(bytes, o + 4, o + 8 + length) !== view.getUint32(o + 8 + length)) throw new PngError(`bad CRC in ${type} chunk`);
    const payload = bytes.subarray(o + 8, o + 8 + length);
    if (!info && type !== "IHDR") throw new PngError("IHDR must come first");
    if (type === "IHDR") {
      if (info || length !== 13) throw new PngError("bad IHDR chunk");
      const pv = new DataView(payload.buffer, payload.byteOffset, 13);
      info = { width: pv.getUint32(0), height: pv.getUint32(4), bitDepth: payload[8]!, colorType: payload[9]!, interlaced: payload[12] === 1 };
      if (!info.width || !info.height) throw new PngError("image has zero width or height");
      if (!DEPTHS[info.colorType]?.includes(info.bitDepth)) throw new PngError(`unsupported color type ${info.colorType} with bit depth ${info.bitDepth}`);
      if (payload[10] !== 0 || payload[11] !== 0 || payload[12]! > 1) throw new PngError("bad compression, filter or interlace method");
      if (opts.maxPixels && info.width * info.height > opts.maxPixels) throw new PngError(`image of ${info.width}x${info.height} pixels is too large`);
    } else if (type === "PLTE") palette = payload;
    else if (type === "tRNS") transparency = payload;
    else if (type === "IDAT") idat.push(payload);
    else if (opts.chunks?.includes(type)) kept[type] ??= payload;
    else if (type === "IEND") {
      ended = true;
      break;
    }
    o += 12 + length;
  }
  if (!info) throw new PngError("missing IHDR chunk");
  if (!ended) throw new PngError("missing IEND chunk (file truncated?)");
  if (!idat.length) throw new PngError("no image data (IDAT)");
  if (info.colorType === 3 && !palette) throw new PngError("palette image without PLTE chunk");
  const compressed = new Uint8Array(idat.reduce((n, c) => n + c.length, 0));
  let p = 0;
  for (const c of idat) {
    compressed.set(c, p);
    p += c.length;
  }
  const expected = expectedLength(info);
  const raw = inflateImageData(compressed, expected);
  if (raw.length !== expected) throw new PngError(`image data holds ${raw.length} bytes, the header promises ${expected}${shortPass(info, raw.length)}`);
  const chunks = opts.chunks ? { chunks: kept } : {};
  if (!opts.pixels) return { ...info, ...chunks };
  return { ...info, ...chunks, data: decodePixels(info, raw, palette, transparency) };
}

/**
 * The image data inflated, into at most the header's size. Native zlib first: about 15 times faster than
 * fflate (a 512-px RGBA tile inflates in 0.3 ms instead of 5), and it stops at that size. A stream it
 * will not take whole (one that holds more than the header promises, ends early, or fails its Adler-32
 * check) is read as before by fflate into a buffer of exactly that size, which keeps what it can: the
 * excess is dropped, as libpng drops it with a warning, and a short stream is refused below by name.
 */
function inflateImageData(compressed: Uint8Array, expected: number): Uint8Array {
  try {
    const inflated = inflateSync(compressed, { maxOutputLength: Math.max(1, expected) });
    return new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength);
  } catch {
    // read again below
  }
  const out = allocate(expected, "image data");
  try {
    return unzlibSync(compressed, { out });
  } catch {
    throw new PngError("image data does not inflate (corrupt zlib stream)");
  }
}

/** For an interlaced image whose data ends early: the pass it ends in, so the message says where. */
function shortPass(info: PngInfo, length: number): string {
  if (!info.interlaced) return "";
  let end = 0;
  for (const p of passes(info)) {
    end += (scanlineBytes(info, p.width) + 1) * p.height;
    if (length < end) return ` (the data ends in Adam7 pass ${p.index + 1})`;
  }
  return "";
}

/** Unfilters each pass on its own rows (a pass's first row has no row above it) and lays its pixels into the image. */
function decodePixels(info: PngInfo, raw: Uint8Array, palette: Uint8Array | null, trns: Uint8Array | null): Uint8Array {
  // The common cases, without the per-sample path: 8-bit RGBA rows are the pixels as they are (what this
  // codec writes, most sprite sheets and raster tiles), and 8-bit RGB (most DEM and imagery tiles) only
  // gains its alpha.
  if (!info.interlaced && info.bitDepth === 8 && info.colorType === 6) return unfilter(info, raw, 0, info.width * 4, info.height, "");
  if (!info.interlaced && info.bitDepth === 8 && info.colorType === 2 && !trns) {
    const rgb = unfilter(info, raw, 0, info.width * 3, info.height, "");
    const out = allocate(info.width * info.height * 4, "RGBA pixels");
    for (let i = 0, o = 0; i < rgb.length; i += 3, o += 4) {
      out[o] = rgb[i]!;
      out[o + 1] = rgb[i + 1]!;
      out[o + 2] = rgb[i + 2]!;
      out[o + 3] = 255;
    }
    return out;
  }
  const out = allocate(info.width * info.height * 4, "RGBA pixels");
  const channels = CHANNELS[info.colorType]!;
  const toPixel = pixelWriter(info, palette, trns);
  let offset = 0;
  for (const { pass, index, width, height } of passes(info)) {
    const [x0, y0, dx, dy] = pass;
    const stride = scanlineBytes(info, width);
    const rows = unfilter(info, raw, offset, stride, height, info.interlaced ? ` of Adam7 pass ${index + 1}` : "");
    offset += (stride + 1) * height;
    const samples = new Uint16Array(width * channels);
    for (let y = 0; y < height; y++) {
      readSamples(rows.subarray(y * stride, (y + 1) * stride), info.bitDepth, samples);
      const row = (y0 + y * dy) * info.width;
      for (let x = 0; x < width; x++) toPixel(samples, x * channels, out, (row + x0 + x * dx) * 4);
    }
  }
  return out;
}

/**
 * Undoes the filters of `height` rows of `stride` bytes starting at raw[start] (each row led by its
 * filter type byte). Filters look back one whole pixel, or one byte when pixels are smaller (PNG 9.2).
 */
function unfilter(info: PngInfo, raw: Uint8Array, start: number, stride: number, height: number, where: string): Uint8Array {
  const bpp = Math.max(1, (CHANNELS[info.colorType]! * info.bitDepth) >> 3);
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[start + y * (stride + 1)]!;
    if (filter > 4) throw new PngError(`bad filter type ${filter} on row ${y}${where}`);
    const src = start + y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const x = raw[src + i]!;
      const a = i >= bpp ? out[row + i - bpp]! : 0;
      const b = y > 0 ? out[row - stride + i]! : 0;
      const c = i >= bpp && y > 0 ? out[row - stride + i - bpp]! : 0;
      out[row + i] = (filter === 0 ? x : filter === 1 ? x + a : filter === 2 ? x + b : filter === 3 ? x + ((a + b) >> 1) : x + paeth(a, b, c)) & 0xff;
    }
  }
  return out;
}

/** Splits one unfiltered row into its samples at their own depth: packed 1/2/4-bit (high bits first), bytes, or big-endian 16-bit. */
function readSamples(row: Uint8Array, depth: number, into: Uint16Array): void {
  if (depth === 8) into.set(row.subarray(0, into.length));
  else if (depth === 16) for (let i = 0; i < into.length; i++) into[i] = (row[2 * i]! << 8) | row[2 * i + 1]!;
  else {
    const mask = (1 << depth) - 1;
    for (let i = 0; i < into.length; i++) {
      const bit = i * depth;
      into[i] = (row[bit >> 3]! >> (8 - depth - (bit & 7))) & mask;
    }
  }
}

/**
 * Writes one pixel's straight-alpha RGBA8 from its samples at the image's depth. tRNS is matched
 * against the samples before they are reduced (all 16 bits, as the spec asks). 16-bit samples reduce
 * as round(v * 255 / 65535), the nearest 8-bit value, rather than taking the high byte: both give an
 * 8-bit image widened to 16 (v * 257) back exactly, and this one is what pngjs (the tests' oracle)
 * does. 1/2/4-bit samples scale exactly to 0..255 (times 255, 85 or 17).
 */
function pixelWriter(info: PngInfo, palette: Uint8Array | null, trns: Uint8Array | null): (s: Uint16Array, i: number, out: Uint8Array, o: number) => void {
  const depth = info.bitDepth;
  const to8 = depth === 8 ? (v: number) => v : depth === 16 ? (v: number) => Math.round(v / 257) : (v: number) => v * (255 / ((1 << depth) - 1));
  const key = (k: number) => (trns![2 * k]! << 8) | trns![2 * k + 1]!;
  switch (info.colorType) {
    case 0: {
      const clear = trns && trns.length >= 2 ? key(0) : -1;
      return (s, i, out, o) => {
        const v = to8(s[i]!);
        out[o] = out[o + 1] = out[o + 2] = v;
        out[o + 3] = s[i] === clear ? 0 : 255;
      };
    }
    case 2: {
      const [r, g, b] = trns && trns.length >= 6 ? [key(0), key(1), key(2)] : [-1, -1, -1];
      return (s, i, out, o) => {
        out[o] = to8(s[i]!);
        out[o + 1] = to8(s[i + 1]!);
        out[o + 2] = to8(s[i + 2]!);
        out[o + 3] = s[i] === r && s[i + 1] === g && s[i + 2] === b ? 0 : 255;
      };
    }
    case 3:
      // an index past the palette is opaque black, as before (the spec calls it an error; kept lenient)
      return (s, i, out, o) => {
        const k = s[i]!;
        out[o] = palette![k * 3] ?? 0;
        out[o + 1] = palette![k * 3 + 1] ?? 0;
        out[o + 2] = palette![k * 3 + 2] ?? 0;
        out[o + 3] = trns && k < trns.length ? trns[k]! : 255;
      };
    case 4:
      return (s, i, out, o) => {
        out[o] = out[o + 1] = out[o + 2] = to8(s[i]!);
        out[o + 3] = to8(s[i + 1]!);
      };
    default:
      return (s, i, out, o) => {
        out[o] = to8(s[i]!);
        out[o + 1] = to8(s[i + 1]!);
        out[o + 2] = to8(s[i + 2]!);
        out[o + 3] = to8(s[i + 3]!);
      };
  }
}

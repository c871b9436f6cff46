// A small PNG codec for sprite sheets: encodes 8-bit RGBA, and reads any PNG far enough to prove it
// decodes (every chunk CRC, IHDR, the zlib stream and the exact scanline byte count), decoding pixels
// fully for non-interlaced 8-bit images. No dependency beyond fflate's zlib. Extra ancillary chunks can
// be written and read back (DEM tiles carry their no-data mask in one, see tiles/dem/nodata.ts).
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

function scanlineBytes(info: PngInfo, width: number): number {
  return Math.ceil((width * CHANNELS[info.colorType]! * info.bitDepth) / 8);
}

function expectedLength(info: PngInfo): number {
  if (!info.interlaced) return (scanlineBytes(info, info.width) + 1) * info.height;
  let total = 0;
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((info.width - x0) / dx);
    const h = Math.ceil((info.height - y0) / dy);
    if (w > 0 && h > 0) total += (scanlineBytes(info, w) + 1) * h;
  }
  return total;
}

/**
 * Reads a PNG: checks the structure and that the image data inflates to exactly the bytes its header
 * promises. Returns the header, plus RGBA pixels when `pixels` is set and the image is a
 * non-interlaced 8-bit PNG (what Mapstead writes), plus the payload of the first chunk of each type
 * named in `chunks` that the file holds. Throws PngError naming the defect.
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
  let raw: Uint8Array;
  try {
    raw = unzlibSync(compressed, { out: new Uint8Array(expected) });
  } catch {
    throw new PngError("image data does not inflate (corrupt zlib stream)");
  }
  if (raw.length !== expected) throw new PngError(`image data holds ${raw.length} bytes, the header promises ${expected}`);
  const chunks = opts.chunks ? { chunks: kept } : {};
  if (!opts.pixels || info.interlaced || info.bitDepth !== 8) return { ...info, ...chunks };
  return { ...info, ...chunks, data: toRgba(info, unfilter(info, raw), palette, transparency) };
}

function unfilter(info: PngInfo, raw: Uint8Array): Uint8Array {
  const bpp = CHANNELS[info.colorType]!;
  const stride = scanlineBytes(info, info.width);
  const out = new Uint8Array(stride * info.height);
  for (let y = 0; y < info.height; y++) {
    const filter = raw[y * (stride + 1)]!;
    if (filter > 4) throw new PngError(`bad filter type ${filter} on row ${y}`);
    const src = y * (stride + 1) + 1;
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

function toRgba(info: PngInfo, px: Uint8Array, palette: Uint8Array | null, trns: Uint8Array | null): Uint8Array {
  const n = info.width * info.height;
  const out = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) {
    let r: number, g: number, b: number, a = 255;
    switch (info.colorType) {
      case 0:
        r = g = b = px[i]!;
        break;
      case 2:
        r = px[i * 3]!;
        g = px[i * 3 + 1]!;
        b = px[i * 3 + 2]!;
        break;
      case 3: {
        const k = px[i]!;
        r = palette![k * 3] ?? 0;
        g = palette![k * 3 + 1] ?? 0;
        b = palette![k * 3 + 2] ?? 0;
        a = trns && k < trns.length ? trns[k]! : 255;
        break;
      }
      case 4:
        r = g = b = px[i * 2]!;
        a = px[i * 2 + 1]!;
        break;
      default:
        r = px[i * 4]!;
        g = px[i * 4 + 1]!;
        b = px[i * 4 + 2]!;
        a = px[i * 4 + 3]!;
    }
    out.set([r, g, b, a], i * 4);
  }
  return out;
}

// PNG encoding of rendered maps, tuned for speed: no row filter (maps are large flat areas, which deflate
// packs as well unfiltered: a filter pass in JavaScript cost more than the deflate itself) and native
// zlib at a low level, instead of trying every filter per row like the sprite sheet encoder does.
// Renders are encoded on every request, sprite sheets once.
import { deflateSync } from "node:zlib";
import type { RgbaImage } from "../sprites/png";

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const FILTER_NONE = 0;
/** zlib level 3: about as small as 6 for map images, in half the time. */
const DEFLATE_LEVEL = 3;

function chunk(type: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(payload, 8);
  view.setUint32(8 + payload.length, Bun.hash.crc32(out.subarray(4, 8 + payload.length)));
  return out;
}

/**
 * The rows with their filter bytes, reused from image to image (deflate is synchronous and keeps none of
 * it): a fresh megabyte per image cost more in page faults than copying the rows into it.
 */
let rows = new Uint8Array(0);
/** Larger images (rare, up to 64 MB at the renderer's limit) get rows of their own rather than pinning that much. */
const REUSED_ROWS_MAX_BYTES = 8 * 1024 * 1024;

export function encodeRenderPng(image: RgbaImage): Uint8Array {
  const { width, height, data } = image;
  const stride = width * 4;
  const size = (stride + 1) * height;
  if (rows.length < size && size <= REUSED_ROWS_MAX_BYTES) rows = new Uint8Array(size);
  const raw = size <= REUSED_ROWS_MAX_BYTES ? rows.subarray(0, size) : new Uint8Array(size);
  for (let y = 0; y < height; y++) {
    const from = y * stride;
    const to = y * (stride + 1);
    raw[to] = FILTER_NONE;
    raw.set(data.subarray(from, from + stride), to + 1);
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const parts = [new Uint8Array(SIGNATURE), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: DEFLATE_LEVEL })), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

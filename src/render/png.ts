// PNG encoding of rendered maps, tuned for speed: no row filter (maps are large flat areas, which deflate
// packs as well unfiltered: a filter pass in JavaScript cost more than the deflate itself) and native
// zlib at a low level, instead of trying every filter per row like the sprite sheet encoder does.
// Renders are encoded on every request, sprite sheets once.
import { deflateSync } from "node:zlib";
import { pngFile, type RgbaImage } from "../sprites/png";

const FILTER_NONE = 0;
/** zlib level 3: about as small as 6 for map images, in half the time. */
const DEFLATE_LEVEL = 3;

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
  return pngFile(width, height, deflateSync(raw, { level: DEFLATE_LEVEL }));
}

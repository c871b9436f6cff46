// Raster tiles decoded to straight-alpha RGBA, to be drawn in view space as DEM layers are
// (layers/tile-images.ts), and kept across renders by their bytes (a republished tileset is never
// served stale). PNG (any colour type, bit depth and interlacing, see sprites/png.ts), JPEG and WebP; a
// tile that cannot be decoded here is null, and its layer is drawn through resvg as before.
import jpeg from "jpeg-js";
import { Lru } from "../lru";
import type { RgbaImage } from "../sprites/png";
import { readPng } from "../sprites/png";
import { decodeWebpPixels, isWebp, webpSize } from "../tiles/dem/webp";
import { contentHash } from "./content-hash";

const decoded = new Lru<RgbaImage | null>({ maxBytes: 64 * 1024 * 1024 });
/** Raster tiles are at most this many pixels a side (a 512-px tile at @2x is 1024). */
const MAX_SIDE = 2048;

export async function decodeRasterTile(bytes: Uint8Array): Promise<RgbaImage | null> {
  const key = `${bytes.length}:${contentHash(bytes)}`;
  const known = decoded.entry(key);
  if (known !== undefined) return known.value;
  const image = await decode(bytes).catch(() => null);
  const usable = image && image.width === image.height && image.width <= MAX_SIDE && image.data.length === image.width * image.height * 4 ? image : null;
  decoded.set(key, usable, usable ? usable.data.byteLength : 64);
  return usable;
}

async function decode(bytes: Uint8Array): Promise<RgbaImage | null> {
  if (isWebp(bytes)) {
    // checked before decoding, as DEM tiles are: a forged size must not make libwebp allocate gigabytes
    const size = webpSize(bytes);
    if (!size || size.width > MAX_SIDE || size.height > MAX_SIDE) return null;
    return decodeWebpPixels(bytes);
  }
  if (bytes[0] === 0x89 && bytes[1] === 0x50) {
    const png = readPng(bytes, { pixels: true, maxPixels: MAX_SIDE * MAX_SIDE });
    return png.data ? { width: png.width, height: png.height, data: png.data } : null;
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: 4, maxMemoryUsageInMB: 64 });
    return { width: image.width, height: image.height, data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
  }
  return null;
}

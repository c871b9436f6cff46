// Which pixels of a DEM tile hold no data (a void in the source, or no source at all, as between the
// files of a mosaic). Map clients cannot be told: MapLibre's raster-dem has no no-data value, so those
// pixels keep the RGB of 0 m for hillshading and terrain. The mark is for this server's elevation API,
// which must answer "no data" there instead of a made-up 0 m.
//
// It travels inside the PNG as a private ancillary chunk `noDt` (ancillary, so every decoder that does
// not know it skips it and MapLibre draws the same pixels; safe to copy, since it describes pixel
// positions that survive a lossless re-encoding). Its payload is a zlib stream of one bit per pixel, row
// by row from the north-west corner, the first pixel in the highest bit; 1 = no data.
//
// Not the alpha channel: browsers read tile pixels back through a premultiplied canvas, where a fully
// transparent pixel loses its colour, and MapLibre then decodes it as (0,0,0): -32768 m in Terrarium,
// -10000 m in Terrain-RGB (seen in Chromium with MapLibre 6).
// Tiles without the chunk (every DEM built before it, and imported ones) have data at every pixel.
import { unzlibSync, zlibSync } from "fflate";
import type { PngChunk } from "../../sprites/png";
import { InvalidSource } from "../errors";

export const NO_DATA_CHUNK = "noDt";

/** The chunk marking the NaN heights of a square tile, or null when every pixel has data. */
export function noDataChunk(heights: ArrayLike<number>, size: number): PngChunk | null {
  const bits = new Uint8Array(Math.ceil((size * size) / 8));
  let any = false;
  for (let i = 0; i < size * size; i++)
    if (Number.isNaN(heights[i])) {
      bits[i >> 3] = bits[i >> 3]! | (0x80 >> (i & 7));
      any = true;
    }
  return any ? { type: NO_DATA_CHUNK, data: zlibSync(bits, { level: 9 }) } : null;
}

/** Sets the heights the chunk's payload marks to NaN; a payload that does not inflate to one bit per pixel is a damaged tile. */
export function applyNoData(payload: Uint8Array, heights: Float32Array, size: number, where: string): void {
  const expected = Math.ceil((size * size) / 8);
  let bits: Uint8Array;
  try {
    bits = unzlibSync(payload, { out: new Uint8Array(expected) });
  } catch {
    throw new InvalidSource(`${where}: its no-data mark (PNG chunk ${NO_DATA_CHUNK}) does not inflate`);
  }
  if (bits.length !== expected) throw new InvalidSource(`${where}: its no-data mark (PNG chunk ${NO_DATA_CHUNK}) holds ${bits.length} bytes for ${size}x${size} pixels, not ${expected}`);
  for (let i = 0; i < size * size; i++) if (bits[i >> 3]! & (0x80 >> (i & 7))) heights[i] = NaN;
}

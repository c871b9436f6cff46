// Elevation <-> RGB of the two raster-DEM encodings MapLibre reads (`raster-dem` source `encoding`):
//   terrarium: h = R*256 + G + B/256 - 32768        (Mapzen/AWS terrain tiles; 1/256 m steps)
//   mapbox:    h = -10000 + (R*65536 + G*256 + B)/10 (Mapbox Terrain-RGB; 0.1 m steps)
// Tiles are PNG (what this server writes) or lossless WebP (read, see webp.ts); lossy WebP is refused.
// Pixels without data are written as 0 m and marked in the PNG (see nodata.ts); decoded, they are NaN.
import { encodePng, PngError, readPng } from "../../sprites/png";
import { InvalidSource } from "../errors";
import { applyNoData, NO_DATA_CHUNK, noDataChunk } from "./nodata";
import { decodeWebpPixels, isWebp, webpInfo } from "./webp";

export type DemEncoding = "terrarium" | "mapbox";
export const DEM_ENCODINGS: DemEncoding[] = ["terrarium", "mapbox"];

export const isDemEncoding = (v: unknown): v is DemEncoding => v === "terrarium" || v === "mapbox";

/** Writes the RGB of elevation `h` (metres) at `o` in `rgba` (alpha 255); out-of-range heights are clamped. */
export function encodeElevation(h: number, encoding: DemEncoding, rgba: Uint8Array, o: number): void {
  // Both are a 24-bit integer in R,G,B: terrarium counts 1/256 m from -32768 m, mapbox 0.1 m from -10000 m.
  const steps = encoding === "terrarium" ? (h + 32768) * 256 : (h + 10000) * 10;
  const v = Math.min(16_777_215, Math.max(0, Math.round(steps)));
  rgba[o] = v >> 16;
  rgba[o + 1] = (v >> 8) & 255;
  rgba[o + 2] = v & 255;
  rgba[o + 3] = 255;
}

export function decodeElevation(r: number, g: number, b: number, encoding: DemEncoding): number {
  return encoding === "terrarium" ? r * 256 + g + b / 256 - 32768 : -10000 + (r * 65536 + g * 256 + b) / 10;
}

export interface DemTile {
  /** width and height in pixels (tiles are square) */
  size: number;
  /** elevation in metres per pixel, row by row from the north-west corner; NaN where the tile marks no data */
  heights: Float32Array;
}

/** The PNG of a square tile of heights; NaN heights (no data) are drawn as 0 m, which maps show, and marked as no data for lookups. */
export function encodeDemTile(heights: ArrayLike<number>, size: number, encoding: DemEncoding): Uint8Array {
  const rgba = new Uint8Array(size * size * 4);
  for (let i = 0; i < size * size; i++) encodeElevation(Number.isNaN(heights[i]) ? 0 : heights[i]!, encoding, rgba, i * 4);
  const mark = noDataChunk(heights, size);
  return encodePng({ width: size, height: size, data: rgba }, mark ? [mark] : []);
}

const MAX_TILE_PIXELS = 4096 * 4096;

/**
 * RGBA of a PNG DEM tile and its no-data mark, if any; throws InvalidSource when it does not decode or
 * has 16-bit samples. Terrarium and Terrain-RGB pack heights into 8-bit channels: a 16-bit image (a
 * greyscale heightmap, as GDAL writes them) is no such tile, and its samples reduced to 8 bits would
 * give every height wrong. Fewer bits, a palette or interlacing hold the same 8-bit values exactly.
 */
function pngPixels(png: Uint8Array, where: string): { width: number; height: number; data: Uint8Array; noData?: Uint8Array } {
  let decoded: ReturnType<typeof readPng>;
  try {
    decoded = readPng(png, { pixels: true, maxPixels: MAX_TILE_PIXELS, chunks: [NO_DATA_CHUNK] });
  } catch (err) {
    throw new InvalidSource(`${where}: not a readable PNG DEM tile (${err instanceof PngError ? err.message : "decode error"})`);
  }
  if (decoded.bitDepth === 16)
    throw new InvalidSource(`${where}: a 16-bit PNG is not a Terrarium or Terrain-RGB DEM tile (those pack heights into 8-bit RGB); import the elevation data itself (a GeoTIFF) to build one`);
  if (!decoded.data) throw new InvalidSource(`${where}: not a readable PNG DEM tile (no pixels decoded)`);
  return { width: decoded.width, height: decoded.height, data: decoded.data, noData: decoded.chunks?.[NO_DATA_CHUNK] };
}

/** RGBA of a lossless WebP DEM tile; throws InvalidSource for lossy, animated or unreadable ones. */
async function webpPixels(webp: Uint8Array, where: string): Promise<{ width: number; height: number; data: Uint8Array }> {
  const info = webpInfo(webp);
  if (info?.kind === "lossy")
    throw new InvalidSource(`${where}: lossy WebP DEM tiles are refused: lossy compression changes the colours that encode heights (by up to hundreds of metres); encode the tiles as lossless WebP or PNG`);
  if (info?.kind !== "lossless") throw new InvalidSource(`${where}: not a readable WebP DEM tile (${info ? "animated WebP" : "no VP8L image chunk"})`);
  // Checked before decoding so a forged header cannot make libwebp allocate gigabytes.
  if (info.width * info.height > MAX_TILE_PIXELS) throw new InvalidSource(`${where}: WebP DEM tile is ${info.width}x${info.height} pixels, larger than 4096x4096`);
  try {
    return await decodeWebpPixels(webp);
  } catch {
    throw new InvalidSource(`${where}: not a readable WebP DEM tile (decode error)`);
  }
}

/** Heights of a PNG or lossless WebP DEM tile (NaN where marked as no data); throws InvalidSource when it is neither, or not square. */
export async function decodeDemTile(image: Uint8Array, encoding: DemEncoding, where: string): Promise<DemTile> {
  const decoded: { width: number; height: number; data: Uint8Array; noData?: Uint8Array } = isWebp(image) ? await webpPixels(image, where) : pngPixels(image, where);
  if (decoded.width !== decoded.height) throw new InvalidSource(`${where}: DEM tile is ${decoded.width}x${decoded.height} pixels; tiles must be square`);
  const size = decoded.width;
  const heights = new Float32Array(size * size);
  const d = decoded.data;
  for (let i = 0; i < heights.length; i++) heights[i] = decodeElevation(d[i * 4]!, d[i * 4 + 1]!, d[i * 4 + 2]!, encoding);
  if (decoded.noData) applyNoData(decoded.noData, heights, size, where);
  return { size, heights };
}

// Elevation fixtures built in the test: .hgt bytes, GeoTIFFs and Terrarium/Terrain-RGB MBTiles (PNG or
// WebP tiles, the WebP from the same libwebp build the server decodes with) whose heights follow a
// known function of lon/lat, so sampled answers can be checked against it.
import webpEncoderWasmPath from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "file" };
import encodeWebp, { init as initWebpEncoder } from "@jsquash/webp/encode.js";
import { writeArrayBuffer } from "geotiff";
import { MbtilesWriter } from "../../src/tiles/mbtiles";
import { encodeDemTile, encodeElevation, type DemEncoding } from "../../src/tiles/dem/encoding";
import { tileRange } from "../../src/tiles/source";

export type HeightAt = (lon: number, lat: number) => number;

/** A plane over the Alps test area (lon 7..8, lat 46..47): 1000 m at 7,46, rising east and north. */
export const ramp: HeightAt = (lon, lat) => 1000 + 200 * (lon - 7) + 300 * (lat - 46);

/** An .hgt file of side x side samples with its south-west corner at lon,lat (name it accordingly). */
export function hgtBytes(side: number, corner: { lon: number; lat: number }, height: HeightAt): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(side * side * 2);
  const view = new DataView(out.buffer);
  for (let r = 0; r < side; r++)
    for (let c = 0; c < side; c++) view.setInt16((r * side + c) * 2, Math.round(height(corner.lon + c / (side - 1), corner.lat + 1 - r / (side - 1))), false);
  return out;
}

/** A float32 EPSG:4326 GeoTIFF (area pixels) of width x height over bounds. */
export function geotiffBytes(width: number, heightPx: number, bounds: [number, number, number, number], height: HeightAt): Uint8Array<ArrayBuffer> {
  const [w, s, e, n] = bounds;
  const dx = (e - w) / width;
  const dy = (n - s) / heightPx;
  const values = new Float32Array(width * heightPx);
  for (let r = 0; r < heightPx; r++) for (let c = 0; c < width; c++) values[r * width + c] = height(w + (c + 0.5) * dx, n - (r + 0.5) * dy);
  const ab = writeArrayBuffer(values, {
    width,
    height: heightPx,
    ModelPixelScale: [dx, dy, 0],
    ModelTiepoint: [0, 0, 0, w, n, 0],
    GeographicTypeGeoKey: 4326,
    GTModelTypeGeoKey: 2,
    GTRasterTypeGeoKey: 1,
    SampleFormat: [3],
    BitsPerSample: [32],
  } as never);
  return new Uint8Array(ab);
}

/** Heights of the pixel centres of tile z/x/y (`size` px), row by row from the north-west corner. */
function tileHeights(z: number, x: number, y: number, size: number, height: HeightAt): Float32Array {
  const world = size * 2 ** z;
  const heights = new Float32Array(size * size);
  for (let j = 0; j < size; j++) {
    const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y * size + j + 0.5)) / world))) * 180) / Math.PI;
    for (let i = 0; i < size; i++) heights[j * size + i] = height(((x * size + i + 0.5) / world) * 360 - 180, lat);
  }
  return heights;
}

let webpEncoderReady: Promise<unknown> | null = null;

/** A DEM tile as WebP, lossless (exact RGB) unless `lossy` (quality 90, what a careless converter writes). */
export async function encodeDemTileWebp(heights: Float32Array, size: number, encoding: DemEncoding, opts: { lossy?: boolean } = {}): Promise<Uint8Array> {
  webpEncoderReady ??= Bun.file(webpEncoderWasmPath)
    .arrayBuffer()
    .then((wasm) => WebAssembly.compile(wasm))
    .then((module) => initWebpEncoder(module));
  await webpEncoderReady;
  const rgba = new Uint8Array(size * size * 4);
  for (let i = 0; i < size * size; i++) encodeElevation(heights[i]!, encoding, rgba, i * 4);
  const image = { data: new Uint8ClampedArray(rgba.buffer), width: size, height: size, colorSpace: "srgb" } as ImageData;
  return new Uint8Array(await encodeWebp(image, opts.lossy ? { quality: 90 } : { lossless: 1, exact: 1 }));
}

/** An MBTiles of 256 px DEM tiles at zoom `z` covering bounds, each pixel centre holding height(lon, lat). */
export function demMbtiles(path: string, encoding: DemEncoding, z: number, bounds: [number, number, number, number], height: HeightAt, opts: { declareEncoding?: boolean } = {}): void {
  const writer = new MbtilesWriter(path);
  const r = tileRange(bounds, z);
  for (let y = r.minY; y <= r.maxY; y++) for (let x = r.minX; x <= r.maxX; x++) writer.put(z, x, y, encodeDemTile(tileHeights(z, x, y, 256, height), 256, encoding));
  writer.finish(demMetadata(encoding, z, bounds, "png", opts));
}

/** The same as demMbtiles with WebP tiles (lossless unless `lossy`). */
export async function demWebpMbtiles(
  path: string,
  encoding: DemEncoding,
  z: number,
  bounds: [number, number, number, number],
  height: HeightAt,
  opts: { declareEncoding?: boolean; lossy?: boolean } = {},
): Promise<void> {
  const writer = new MbtilesWriter(path);
  const r = tileRange(bounds, z);
  for (let y = r.minY; y <= r.maxY; y++)
    for (let x = r.minX; x <= r.maxX; x++) writer.put(z, x, y, await encodeDemTileWebp(tileHeights(z, x, y, 256, height), 256, encoding, opts));
  writer.finish(demMetadata(encoding, z, bounds, "webp", opts));
}

function demMetadata(encoding: DemEncoding, z: number, bounds: [number, number, number, number], format: "png" | "webp", opts: { declareEncoding?: boolean }) {
  return {
    name: `test ${encoding}`,
    format,
    minzoom: String(z),
    maxzoom: String(z),
    bounds: bounds.join(","),
    attribution: "Test DEM (CC0)",
    ...(opts.declareEncoding ? { encoding } : {}),
  };
}

/** lon/lat of a global pixel coordinate at zoom z for tiles of `size` px (pixel centres at +0.5). */
export function lonLatOfPixel(px: number, py: number, z: number, size: number): [number, number] {
  const world = size * 2 ** z;
  const lon = ((px + 0.5) / world) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (py + 0.5)) / world))) * 180) / Math.PI;
  return [lon, lat];
}

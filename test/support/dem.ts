// Elevation fixtures built in the test: .hgt bytes, GeoTIFFs and Terrarium/Terrain-RGB MBTiles whose
// heights follow a known function of lon/lat, so sampled answers can be checked against it.
import { writeArrayBuffer } from "geotiff";
import { MbtilesWriter } from "../../src/tiles/mbtiles";
import { encodeDemTile, type DemEncoding } from "../../src/tiles/dem/encoding";
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

/** An MBTiles of 256 px DEM tiles at zoom `z` covering bounds, each pixel centre holding height(lon, lat). */
export function demMbtiles(path: string, encoding: DemEncoding, z: number, bounds: [number, number, number, number], height: HeightAt, opts: { declareEncoding?: boolean } = {}): void {
  const size = 256;
  const world = size * 2 ** z;
  const writer = new MbtilesWriter(path);
  const r = tileRange(bounds, z);
  const heights = new Float32Array(size * size);
  for (let y = r.minY; y <= r.maxY; y++)
    for (let x = r.minX; x <= r.maxX; x++) {
      for (let j = 0; j < size; j++) {
        const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y * size + j + 0.5)) / world))) * 180) / Math.PI;
        for (let i = 0; i < size; i++) heights[j * size + i] = height(((x * size + i + 0.5) / world) * 360 - 180, lat);
      }
      writer.put(z, x, y, encodeDemTile(heights, size, encoding));
    }
  writer.finish({
    name: `test ${encoding}`,
    format: "png",
    minzoom: String(z),
    maxzoom: String(z),
    bounds: bounds.join(","),
    attribution: "Test DEM (CC0)",
    ...(opts.declareEncoding ? { encoding } : {}),
  });
}

/** lon/lat of a global pixel coordinate at zoom z for tiles of `size` px (pixel centres at +0.5). */
export function lonLatOfPixel(px: number, py: number, z: number, size: number): [number, number] {
  const world = size * 2 ** z;
  const lon = ((px + 0.5) / world) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * (py + 0.5)) / world))) * 180) / Math.PI;
  return [lon, lat];
}

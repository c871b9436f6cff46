// GeoTIFF elevation in geographic coordinates (EPSG:4326 or another lon/lat datum), read in pure JS by
// the `geotiff` package. Projected rasters are refused with the gdalwarp line that fixes them: resampling
// between projections is GDAL's job, not the appliance's.
import { fromArrayBuffer } from "geotiff";
import { InvalidSource } from "../errors";
import type { ElevationGrid } from "./grid";

/** 8192 x 8192 samples: the raster and its float copy then take at most ~512 MiB in the worker. */
export const MAX_GEOTIFF_PIXELS = 8192 * 8192;
const MODEL_GEOGRAPHIC = 2;
const PIXEL_IS_POINT = 2;

export async function readGeotiff(path: string, label: string): Promise<ElevationGrid> {
  let image;
  try {
    const tiff = await fromArrayBuffer(await Bun.file(path).arrayBuffer());
    image = await tiff.getImage();
  } catch (err) {
    throw new InvalidSource(`${label}: not a readable GeoTIFF (${err instanceof Error ? err.message.slice(0, 200) : "parse error"})`);
  }
  const keys = image.getGeoKeys() ?? {};
  if (keys.GTModelTypeGeoKey !== MODEL_GEOGRAPHIC || keys.ProjectedCSTypeGeoKey !== undefined)
    throw new InvalidSource(
      `${label}: the GeoTIFF is not in geographic lon/lat coordinates${keys.ProjectedCSTypeGeoKey ? ` (it is EPSG:${keys.ProjectedCSTypeGeoKey})` : ""}; reproject it first: gdalwarp -t_srs EPSG:4326 in.tif out.tif`,
    );
  const width = image.getWidth();
  const height = image.getHeight();
  if (width < 2 || height < 2) throw new InvalidSource(`${label}: the GeoTIFF is ${width} x ${height} pixels; at least 2 x 2 are needed`);
  if (width * height > MAX_GEOTIFF_PIXELS) throw new InvalidSource(`${label}: the GeoTIFF has ${width} x ${height} pixels, over the ${MAX_GEOTIFF_PIXELS} pixel limit; split it (gdal_retile.py) and import the parts`);
  let origin: number[];
  let resolution: number[];
  try {
    origin = image.getOrigin();
    resolution = image.getResolution();
  } catch {
    throw new InvalidSource(`${label}: the GeoTIFF has no georeferencing (tie point and pixel scale)`);
  }
  const dLon = Math.abs(resolution[0]!);
  const dLat = Math.abs(resolution[1]!);
  if (!(dLon > 0 && dLat > 0) || !origin.slice(0, 2).every(Number.isFinite)) throw new InvalidSource(`${label}: the GeoTIFF's georeferencing is invalid`);
  // Area pixels are tied at their north-west corner, point pixels at their centre; the grid wants the
  // centre of sample (0, 0), and the bounds stop at the outer pixel edges (area) or centres (point).
  const area = keys.GTRasterTypeGeoKey !== PIXEL_IS_POINT;
  const [west, north] = [origin[0]!, origin[1]!];
  const cols = area ? width : width - 1;
  const rows = area ? height : height - 1;
  const bounds: [number, number, number, number] = [west, north - rows * dLat, west + cols * dLon, north];
  if (bounds[0] < -180.001 || bounds[2] > 180.001 || bounds[1] < -90.001 || bounds[3] > 90.001)
    throw new InvalidSource(`${label}: the GeoTIFF's extent ${bounds.map((b) => b.toFixed(4)).join(",")} is outside lon -180..180, lat -90..90`);
  let raster: ArrayLike<number>;
  try {
    raster = (await image.readRasters({ samples: [0], interleave: true })) as ArrayLike<number>;
  } catch (err) {
    throw new InvalidSource(`${label}: the GeoTIFF's pixel data could not be decoded (${err instanceof Error ? err.message.slice(0, 200) : "decode error"})`);
  }
  const noData = image.getGDALNoData();
  const values = new Float32Array(width * height);
  for (let i = 0; i < values.length; i++) {
    const v = raster[i]!;
    values[i] = v === noData || !Number.isFinite(v) ? NaN : v;
  }
  return { lon0: west + (area ? dLon / 2 : 0), lat0: north - (area ? dLat / 2 : 0), dLon, dLat, width, height, values, bounds: bounds.map((b, i) => Math.max(i % 2 ? -90 : -180, Math.min(i % 2 ? 90 : 180, b))) as ElevationGrid["bounds"] };
}

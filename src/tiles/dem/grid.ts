// A regular lon/lat grid of elevation samples (what an .hgt file or a geographic GeoTIFF holds), and
// bilinear sampling between its sample points.
import { blendValid } from "./blend";

export interface ElevationGrid {
  /** lon/lat of the centre of sample (0, 0), the north-west one */
  lon0: number;
  lat0: number;
  /** degrees between neighbouring samples, east and south (both positive) */
  dLon: number;
  dLat: number;
  width: number;
  height: number;
  /** row-major from the north-west sample; NaN where the source has no data */
  values: Float32Array;
  /** [west, south, east, north] the grid covers, in degrees */
  bounds: [number, number, number, number];
}

/**
 * Elevation at lon/lat by bilinear interpolation of the four surrounding samples, or null outside the
 * grid's bounds or where the nearest sample is a void (voids next to it drop out: see blend.ts).
 * Points between the last sample and the bounds edge take the edge value.
 */
export function sampleGrid(grid: ElevationGrid, lon: number, lat: number): number | null {
  const [w, s, e, n] = grid.bounds;
  if (lon < w || lon > e || lat < s || lat > n) return null;
  const fx = Math.min(grid.width - 1, Math.max(0, (lon - grid.lon0) / grid.dLon));
  const fy = Math.min(grid.height - 1, Math.max(0, (grid.lat0 - lat) / grid.dLat));
  const x0 = Math.floor(fx);
  const y0 = Math.floor(fy);
  const x1 = Math.min(grid.width - 1, x0 + 1);
  const y1 = Math.min(grid.height - 1, y0 + 1);
  const tx = fx - x0;
  const ty = fy - y0;
  const v = grid.values;
  return blendValid(v[y0 * grid.width + x0]!, v[y0 * grid.width + x1]!, v[y1 * grid.width + x0]!, v[y1 * grid.width + x1]!, tx, ty);
}

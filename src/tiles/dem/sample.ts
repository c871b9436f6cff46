// Elevation at a point from raster-DEM tiles: bilinear interpolation between the four pixel centres
// around the point at one zoom (the archive's highest), crossing tile edges where the point lies near one,
// and using only pixels with data (see blend.ts): no-data pixels (marked in the tile, or in a tile the
// archive lacks) drop out, and a point whose own pixel has none has no height.
import { blendValid } from "./blend";
import type { DemTile } from "./encoding";

/** Fractional Web Mercator tile coordinates of lon/lat at zoom z (y grows southwards). */
export function tileCoordinates(lon: number, lat: number, z: number): { fx: number; fy: number } {
  const n = 2 ** z;
  const r = (lat * Math.PI) / 180;
  return { fx: ((lon + 180) / 360) * n, fy: ((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n };
}

export type TileGetter = (x: number, y: number) => DemTile | null | Promise<DemTile | null>;

/** The first and last pixel (of `last + 1`) whose centre lies between fractional pixel edges `from` and `to`; all of them when none does. */
function pixelsWithin(from: number, to: number, last: number): [number, number] {
  const first = Math.max(0, Math.ceil(from - 0.5));
  const end = Math.min(last, Math.floor(to - 0.5));
  return first <= end ? [first, end] : [0, last];
}

/**
 * Height at lon/lat from the tiles of zoom z, or null where the point's own pixel has no data (its tile
 * missing, or the pixel marked). With `bounds` (the data's [west, south, east, north]), pixels whose
 * centres lie outside them are never read: they hold no data (archives built before the no-data mark
 * fill them with 0 m, unmarked), so near an edge the outermost pixels inside stand in for them, as if
 * the data went on at the edge's height.
 */
export async function sampleDem(lon: number, lat: number, z: number, tileAt: TileGetter, bounds?: readonly [number, number, number, number]): Promise<number | null> {
  const n = 2 ** z;
  const { fx, fy } = tileCoordinates(lon, lat, z);
  // Clamped on both sides: beyond Web Mercator's edge fy runs off the grid (lat -90 is +Infinity, lat 90
  // about -5.6 n), and the home tile is the edge one there, as the pixels below are the edge row.
  const tileIndex = (f: number) => Math.min(n - 1, Math.max(0, Math.floor(f)));
  const home = await tileAt(tileIndex(fx), tileIndex(fy));
  if (!home) return null;
  const size = home.size;
  const last = n * size - 1;
  let [minX, maxX, minY, maxY] = [0, last, 0, last];
  if (bounds) {
    const southWest = tileCoordinates(bounds[0], bounds[1], z);
    const northEast = tileCoordinates(bounds[2], bounds[3], z);
    [minX, maxX] = pixelsWithin(southWest.fx * size, northEast.fx * size, last);
    [minY, maxY] = pixelsWithin(northEast.fy * size, southWest.fy * size, last);
  }
  // Pixel centres sit at half-pixel offsets: pixel i covers [i, i+1) and holds the height at i + 0.5.
  const px = Math.min(maxX, Math.max(minX, fx * size - 0.5));
  const py = Math.min(maxY, Math.max(minY, fy * size - 0.5));
  const x0 = Math.floor(px);
  const y0 = Math.floor(py);
  const tx = px - x0;
  const ty = py - y0;
  // NaN (no data) for a pixel of a missing tile, as for a marked one: whether a gap's edge falls on a
  // tile edge must not change the answer next to it.
  const pixel = async (gx: number, gy: number): Promise<number> => {
    const tile = await tileAt(Math.floor(gx / size), Math.floor(gy / size));
    if (!tile || tile.size !== size) return NaN;
    return tile.heights[(gy % size) * size + (gx % size)]!;
  };
  const x1 = Math.min(maxX, x0 + 1);
  const y1 = Math.min(maxY, y0 + 1);
  const [a, b, c, d] = await Promise.all([pixel(x0, y0), pixel(x1, y0), pixel(x0, y1), pixel(x1, y1)]);
  return blendValid(a, b, c, d, tx, ty);
}

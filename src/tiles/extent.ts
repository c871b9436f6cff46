// Where a tileset's data lies, as TileJSON says it. Lines and polygons that cross the antimeridian are
// unwrapped past 180° (antimeridian.ts), so the data's box can reach east of 180°: its part there is
// drawn at the western edge of the world. TileJSON bounds cannot wrap (MapLibre requests no tile
// outside them), so such data gets the whole band of longitudes, while its center and the zoom it
// fits stay those of the unwrapped box: Fiji's center is Fiji, not the Gulf of Guinea.
import { cleanBounds } from "./source";

type Box = [number, number, number, number];

export interface DataExtent {
  bounds: Box;
  /** the unwrapped box's middle, longitude in -180..180 */
  center: [number, number];
  /** the unwrapped box, latitudes clamped: its size says which zoom shows it whole */
  extent: Box;
}

export function dataExtent(unwrapped: Box): DataExtent {
  const clean = cleanBounds(unwrapped);
  if (!(unwrapped[2] > 180)) return { bounds: clean, center: [(clean[0] + clean[2]) / 2, (clean[1] + clean[3]) / 2], extent: clean };
  const extent: Box = [unwrapped[0], clean[1], Math.min(unwrapped[2], unwrapped[0] + 360), clean[3]];
  const middle = (extent[0] + extent[2]) / 2;
  const lon = middle > 180 ? middle - 360 : middle;
  return { bounds: [-180, clean[1], 180, clean[3]], center: [lon, (clean[1] + clean[3]) / 2], extent };
}

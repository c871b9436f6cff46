// Web Mercator arithmetic the service needs around the renderer, in MapLibre's 512-pixel world
// (zoom z shows the world 512 * 2^z pixels wide): fitting a view to overlays (`auto`), finding the
// geographic point under a screen pixel (where the attribution is anchored), and the view of a raster tile.
import type { Position } from "geojson";

const MAX_LAT = 85.0511287798066;
export const MAX_ZOOM = 22;

/** lon/lat -> world fraction [0..1] */
export function toWorld(lon: number, lat: number): [number, number] {
  const clamped = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  const s = Math.sin((clamped * Math.PI) / 180);
  return [(lon + 180) / 360, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
}

export function fromWorld(x: number, y: number): [number, number] {
  const lon = x * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
  return [lon, lat];
}

export interface Padding {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * The center and zoom that show every position inside width x height less the padding; null when the
 * positions have no finite bounds (none at all, or a NaN among them), which would make a NaN view.
 */
export function fitPositions(positions: Position[], width: number, height: number, padding: Padding, maxZoom = 16): { center: [number, number]; zoom: number } | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of positions) {
    const [x, y] = toWorld(p[0]!, p[1]!);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  if (![minX, minY, maxX, maxY].every(Number.isFinite)) return null;
  const innerW = Math.max(1, width - padding.left - padding.right);
  const innerH = Math.max(1, height - padding.top - padding.bottom);
  const spanX = maxX - minX;
  const spanY = maxY - minY;
  const zoomFor = (span: number, pixels: number) => (span > 0 ? Math.log2(pixels / (512 * span)) : Infinity);
  const zoom = Math.max(0, Math.min(maxZoom, zoomFor(spanX, innerW), zoomFor(spanY, innerH)));
  // Shift the center so the fitted box sits inside the padded area, not the whole image.
  const scale = 512 * 2 ** zoom;
  const cx = (minX + maxX) / 2 + (padding.right - padding.left) / 2 / scale;
  const cy = (minY + maxY) / 2 + (padding.bottom - padding.top) / 2 / scale;
  const center = fromWorld(cx, Math.max(0, Math.min(1, cy)));
  return { center: [Math.max(-180, Math.min(180, center[0])), center[1]], zoom };
}

/**
 * The view of raster tile z/x/y: a 512 tile at z is MapLibre's zoom z, a 256 tile at z its zoom z-1
 * (Leaflet's and QGIS's numbering), centered on the tile.
 */
export function tileView(z: number, x: number, y: number, tileSize: 256 | 512): { center: [number, number]; zoom: number } {
  const n = 2 ** z;
  const center = fromWorld((x + 0.5) / n, (y + 0.5) / n);
  return { center, zoom: tileSize === 512 ? z : z - 1 };
}

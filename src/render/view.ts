// Web Mercator projection of a RenderView onto screen pixels, and the tiles that cover it. Mirrors
// MapLibre GL JS: a 512-px world at zoom 0, bearing rotates the map clockwise around the centre, and
// sources pick their tile zoom the way its coveringZoomLevel does.
import type { RenderView } from "./types";

/** Web Mercator limit; MapLibre clamps latitudes to it too. */
export const MAX_LATITUDE = 85.051129;
const WORLD_TILE_SIZE = 512;

/** A 2D affine transform: x' = a*x + c*y + e, y' = b*x + d*y + f (SVG matrix order). */
export interface Affine {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
}

export function mercatorX(lon: number): number {
  return (lon + 180) / 360;
}

export function mercatorY(lat: number): number {
  const clamped = Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat));
  const sin = Math.sin((clamped * Math.PI) / 180);
  return 0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI);
}

export interface Camera {
  view: RenderView;
  /** world size in CSS px at the view's zoom */
  worldSize: number;
  /** centre in world px */
  cx: number;
  cy: number;
  cos: number;
  sin: number;
  /** bearing in radians */
  angle: number;
}

export function camera(view: RenderView): Camera {
  const worldSize = WORLD_TILE_SIZE * 2 ** view.zoom;
  const angle = (-view.bearing * Math.PI) / 180;
  return {
    view,
    worldSize,
    cx: mercatorX(view.center[0]) * worldSize,
    cy: mercatorY(view.center[1]) * worldSize,
    cos: Math.cos(angle),
    sin: Math.sin(angle),
    angle,
  };
}

/** The transform from a square in world px (origin ox, oy; `scale` px per unit) to screen px. */
export function worldToScreen(cam: Camera, ox: number, oy: number, scale: number): Affine {
  const { cos, sin } = cam;
  const tx = ox - cam.cx;
  const ty = oy - cam.cy;
  return {
    a: cos * scale,
    b: sin * scale,
    c: -sin * scale,
    d: cos * scale,
    e: cos * tx - sin * ty + cam.view.width / 2,
    f: sin * tx + cos * ty + cam.view.height / 2,
  };
}

export function invert(m: Affine): Affine {
  const det = m.a * m.d - m.b * m.c;
  return {
    a: m.d / det,
    b: -m.b / det,
    c: -m.c / det,
    d: m.a / det,
    e: (m.c * m.f - m.d * m.e) / det,
    f: (m.b * m.e - m.a * m.f) / det,
  };
}

export function apply(m: Affine, x: number, y: number): [number, number] {
  return [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
}

/** lon/lat straight to screen px (geojson sources and overlays). */
export function lngLatToScreen(cam: Camera, lon: number, lat: number): [number, number] {
  const dx = mercatorX(lon) * cam.worldSize - cam.cx;
  const dy = mercatorY(lat) * cam.worldSize - cam.cy;
  return [cam.cos * dx - cam.sin * dy + cam.view.width / 2, cam.sin * dx + cam.cos * dy + cam.view.height / 2];
}

/** Bounding box, in world px, of the screen grown by `margin` px (rotation included). */
export function worldBounds(cam: Camera, margin: number): { minX: number; minY: number; maxX: number; maxY: number } {
  const inv = invert(worldToScreen(cam, 0, 0, 1));
  const { width, height } = cam.view;
  const corners = [
    apply(inv, -margin, -margin),
    apply(inv, width + margin, -margin),
    apply(inv, -margin, height + margin),
    apply(inv, width + margin, height + margin),
  ];
  return {
    minX: Math.min(...corners.map((p) => p[0])),
    minY: Math.min(...corners.map((p) => p[1])),
    maxX: Math.max(...corners.map((p) => p[0])),
    maxY: Math.max(...corners.map((p) => p[1])),
  };
}

/**
 * The zoom MapLibre lays a vector source's symbols out at: its tiles' zoom (a vector source's tiles are
 * always 512 px), never below 0. A view below zoom 0 (a 256-px raster tile at z0 is MapLibre's zoom -1)
 * still lays out the zoom-0 tile and shows it smaller, so its line labels come twice as close together.
 */
export function layoutZoom(zoom: number): number {
  return Math.max(0, Math.floor(zoom));
}

export interface TileId {
  /** tile zoom after the source's maxzoom cap (what to fetch) */
  z: number;
  /** x as fetched (wrapped into 0..2^z-1) */
  x: number;
  y: number;
  /** x before wrapping, which positions world copies */
  wrappedX: number;
}

/**
 * The tiles of a source that cover the view: MapLibre's covering zoom (floor, or round for raster),
 * none below the source's minzoom, overzoomed tiles of maxzoom above it.
 */
export function coveringTiles(
  cam: Camera,
  source: { tileSize: number; minzoom: number; maxzoom: number },
  round: boolean,
): TileId[] {
  const ideal = cam.view.zoom + Math.log2(WORLD_TILE_SIZE / source.tileSize);
  const zoom = Math.max(0, round ? Math.round(ideal) : Math.floor(ideal));
  if (zoom < source.minzoom) return [];
  const z = Math.min(zoom, source.maxzoom);
  const n = 2 ** z;
  const tileWorld = cam.worldSize / n;
  const b = worldBounds(cam, 0);
  const tiles: TileId[] = [];
  const minY = Math.max(0, Math.floor(b.minY / tileWorld));
  const maxY = Math.min(n - 1, Math.floor(b.maxY / tileWorld));
  const minX = Math.floor(b.minX / tileWorld);
  const maxX = Math.floor(b.maxX / tileWorld);
  // a view can only show a bounded number of world copies; cap so a nonsense view cannot explode
  if ((maxX - minX + 1) * (maxY - minY + 1) > 4096) return [];
  for (let y = minY; y <= maxY; y++) {
    for (let wx = minX; wx <= maxX; wx++) tiles.push({ z, x: ((wx % n) + n) % n, y, wrappedX: wx });
  }
  return tiles;
}

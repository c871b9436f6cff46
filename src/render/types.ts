// The contract between the framework-free renderer (src/render/*) and whoever calls it
// (the static-image and raster-tile service in src/read/render/). The renderer never does
// HTTP: everything it needs arrives through RenderResources.
import type { SpriteEntry } from "../sprites/build";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";

export type { StyleSpecification };

/** What to draw. width/height are CSS pixels; the PNG is width*pixelRatio x height*pixelRatio. */
export interface RenderView {
  center: [number, number]; // [lon, lat]
  zoom: number; // fractional zoom in MapLibre's 512-px world
  bearing: number; // degrees clockwise, 0-360
  pitch?: 0;
  width: number;
  height: number;
  pixelRatio: 1 | 2;
}

/** One sprite image entry, as in sprite.json (the sprite builder's own type). */
export type { SpriteEntry };

export interface RenderSourceInfo {
  type: "vector" | "raster" | "raster-dem" | "geojson";
  /** raster-dem sources: how heights are packed into the tiles' pixels */
  encoding?: "terrarium" | "mapbox";
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  attribution?: string;
}

/** Given by the caller; the renderer asks for exactly what it needs. */
export interface RenderResources {
  /** Raw (already gunzipped) MVT or raster (PNG/JPEG/WebP; raster-dem: PNG/lossless WebP) bytes, or null when the tile is absent. */
  tile(sourceId: string, z: number, x: number, y: number): Promise<Uint8Array | null>;
  /** null for unknown sources: their layers are skipped. */
  sourceInfo(sourceId: string): RenderSourceInfo | null;
  /** Data of inline geojson sources (overlays come this way); null when unknown. */
  geojson(sourceId: string): GeoJSON.GeoJSON | null;
  sprite(pixelRatio: 1 | 2): Promise<{ json: Record<string, SpriteEntry>; png: Uint8Array } | null>;
  /** TTF/OTF bytes of an installed font by its fontstack name (e.g. "Noto Sans Regular"), or null. */
  font(name: string): Promise<Uint8Array | null>;
}

/** Options that do not belong to the view. */
export interface RenderOptions {
  /** Abort long renders (the service's time limit); checked between layers. */
  signal?: AbortSignal;
}

export type RenderMap = (
  style: StyleSpecification,
  view: RenderView,
  res: RenderResources,
  options?: RenderOptions,
) => Promise<Uint8Array>;

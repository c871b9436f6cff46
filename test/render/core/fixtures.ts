// Fixtures for renderer tests: vector tiles cut from GeoJSON with geojson-vt + vt-pbf (as Mapstead's
// own tiler does), the bundled Noto Sans fonts, a sprite built from SVG icons, and a PNG reader.
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import notoSansRegular from "../../../node_modules/@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf" with { type: "file" };
import notoSansBold from "../../../node_modules/@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf" with { type: "file" };
import { buildSprite } from "../../../src/sprites/build";
import { readPng } from "../../../src/sprites/png";
import type { RenderResources, RenderSourceInfo, SpriteEntry } from "../../../src/render/types";

export type Layers = Record<string, GeoJSON.Feature[]>;

export interface FixtureSources {
  vector?: Record<string, { layers: Layers; maxzoom?: number; tileSize?: number }>;
  geojson?: Record<string, GeoJSON.GeoJSON>;
  raster?: Record<string, { tile: (z: number, x: number, y: number) => Uint8Array | null; tileSize?: number; maxzoom?: number }>;
  dem?: Record<string, { tile: (z: number, x: number, y: number) => Uint8Array | null; encoding: "terrarium" | "mapbox"; tileSize?: number; maxzoom?: number }>;
}

const fontFiles: Record<string, string> = { "Noto Sans Regular": notoSansRegular, "Noto Sans Bold": notoSansBold };
const fontBytes = new Map<string, Uint8Array>();

async function font(name: string): Promise<Uint8Array | null> {
  const file = fontFiles[name];
  if (!file) return null;
  if (!fontBytes.has(name)) fontBytes.set(name, new Uint8Array(await Bun.file(file).arrayBuffer()));
  return fontBytes.get(name)!;
}

/** Red square, blue circle and a striped pattern tile, rasterized by Mapstead's own sprite builder. */
export async function testSprite(): Promise<Record<1 | 2, { json: Record<string, SpriteEntry>; png: Uint8Array }>> {
  const svg = (s: string) => new TextEncoder().encode(s);
  const set = await buildSprite([
    { name: "square", bytes: svg(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="#ff0000"/></svg>`) },
    { name: "dot", bytes: svg(`<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><circle cx="8" cy="8" r="8" fill="#0000ff"/></svg>`) },
    {
      name: "stripes",
      bytes: svg(
        `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#ffff00"/><rect width="4" height="8" fill="#008000"/></svg>`,
      ),
    },
  ]);
  return { 1: { json: set["1x"].index, png: set["1x"].png }, 2: { json: set["2x"].index, png: set["2x"].png } };
}

export async function resources(sources: FixtureSources, opts: { sprite?: boolean } = {}): Promise<RenderResources & { requested: string[] }> {
  const indexes = new Map<string, Map<string, GeoJSONVT>>();
  for (const [id, src] of Object.entries(sources.vector ?? {})) {
    const perLayer = new Map<string, GeoJSONVT>();
    for (const [layer, features] of Object.entries(src.layers)) {
      perLayer.set(
        layer,
        new GeoJSONVT({ type: "FeatureCollection", features }, { maxZoom: src.maxzoom ?? 14, indexMaxZoom: 5, tolerance: 0, buffer: 64, extent: 4096 }),
      );
    }
    indexes.set(id, perLayer);
  }
  const sprite = opts.sprite ? await testSprite() : null;
  const requested: string[] = [];
  return {
    requested,
    async tile(sourceId, z, x, y) {
      requested.push(`${sourceId}/${z}/${x}/${y}`);
      const raster = sources.raster?.[sourceId];
      if (raster) return raster.tile(z, x, y);
      const dem = sources.dem?.[sourceId];
      if (dem) return dem.tile(z, x, y);
      const perLayer = indexes.get(sourceId);
      if (!perLayer) return null;
      const tiles: Record<string, NonNullable<ReturnType<GeoJSONVT["getTile"]>>> = {};
      for (const [layer, index] of perLayer) {
        const t = index.getTile(z, x, y);
        if (t) tiles[layer] = t;
      }
      if (!Object.keys(tiles).length) return null;
      return fromGeojsonVt(tiles as never, { version: 2, extent: 4096 }) as Uint8Array;
    },
    sourceInfo(sourceId): RenderSourceInfo | null {
      const v = sources.vector?.[sourceId];
      if (v) return { type: "vector", tileSize: v.tileSize ?? 512, minzoom: 0, maxzoom: v.maxzoom ?? 14 };
      const r = sources.raster?.[sourceId];
      if (r) return { type: "raster", tileSize: r.tileSize ?? 256, minzoom: 0, maxzoom: r.maxzoom ?? 14 };
      const d = sources.dem?.[sourceId];
      if (d) return { type: "raster-dem", encoding: d.encoding, tileSize: d.tileSize ?? 512, minzoom: 0, maxzoom: d.maxzoom ?? 14 };
      if (sources.geojson?.[sourceId]) return { type: "geojson", tileSize: 512, minzoom: 0, maxzoom: 18 };
      return null;
    },
    geojson: (sourceId) => sources.geojson?.[sourceId] ?? null,
    sprite: async (ratio) => sprite?.[ratio] ?? null,
    font,
  };
}

export interface Pixels {
  width: number;
  height: number;
  at(x: number, y: number): [number, number, number, number];
}

export function pixels(png: Uint8Array): Pixels {
  const img = readPng(png, { pixels: true });
  const data = img.data!;
  return {
    width: img.width,
    height: img.height,
    at(x, y) {
      const i = (Math.round(y) * img.width + Math.round(x)) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!];
    },
  };
}

/** Whether a pixel is within `tolerance` of an RGB colour. */
export function near(px: [number, number, number, number], rgb: [number, number, number], tolerance = 12): boolean {
  return Math.abs(px[0] - rgb[0]) <= tolerance && Math.abs(px[1] - rgb[1]) <= tolerance && Math.abs(px[2] - rgb[2]) <= tolerance;
}

export function count(p: Pixels, test: (px: [number, number, number, number]) => boolean, box?: { x1: number; y1: number; x2: number; y2: number }): number {
  const b = box ?? { x1: 0, y1: 0, x2: p.width, y2: p.height };
  let c = 0;
  for (let y = b.y1; y < b.y2; y++) for (let x = b.x1; x < b.x2; x++) if (test(p.at(x, y))) c++;
  return c;
}

export const point = (lon: number, lat: number, properties: Record<string, unknown> = {}): GeoJSON.Feature => ({
  type: "Feature",
  properties,
  geometry: { type: "Point", coordinates: [lon, lat] },
});
export const line = (coords: [number, number][], properties: Record<string, unknown> = {}): GeoJSON.Feature => ({
  type: "Feature",
  properties,
  geometry: { type: "LineString", coordinates: coords },
});
export const box = (w: number, s: number, e: number, n: number, properties: Record<string, unknown> = {}): GeoJSON.Feature => ({
  type: "Feature",
  properties,
  geometry: { type: "Polygon", coordinates: [[[w, s], [e, s], [e, n], [w, n], [w, s]]] },
});

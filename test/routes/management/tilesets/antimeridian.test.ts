// Rings that cross the antimeridian, through the HTTP API: world-atlas' Natural Earth countries (drawn
// for a globe: their points on the antimeridian carry either sign) must draw no band across the map,
// and data already cut at ±180° for a flat map must stay as it is.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { VectorTile } from "@mapbox/vector-tile";
import * as topojson from "topojson-client";
import type { Feature, FeatureCollection, Geometry } from "geojson";
import type { TestApp } from "../../../support/app";
import { acmeApp, shapefileZip, uploadReady, versionTile } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
});
afterAll(() => t.close());

const EXTENT = 4096;

async function worldAtlas(resolution: string): Promise<FeatureCollection> {
  const w = await Bun.file(`node_modules/world-atlas/countries-${resolution}.json`).json();
  return topojson.feature(w, w.objects.countries) as unknown as FeatureCollection;
}

function longitudes(g: Geometry, out: number[] = []): number[] {
  if (g.type === "GeometryCollection") for (const x of g.geometries) longitudes(x, out);
  else if (g.type !== "Point") (g.coordinates as unknown[]).flat(3).forEach((v, i) => i % 2 === 0 && out.push(v as number));
  return out;
}

/**
 * Where each country really lies: the shortest span of longitudes holding all its points (the complement
 * of the widest gap between them, around the globe), as [west, east] with east up to west + 360.
 */
function spans(fc: FeatureCollection): Map<string, [number, number]> {
  const byName = new Map<string, number[]>();
  for (const f of fc.features) if (f.geometry) byName.set(f.properties!.name, longitudes(f.geometry, byName.get(f.properties!.name) ?? []));
  const out = new Map<string, [number, number]>();
  for (const [name, lons] of byName) {
    const s = [...new Set(lons.map((l) => (l === 180 ? -180 : l)))].sort((a, b) => a - b);
    let gap = s[0]! + 360 - s[s.length - 1]!;
    let west = s[0]!;
    for (let i = 1; i < s.length; i++)
      if (s[i]! - s[i - 1]! > gap) {
        gap = s[i]! - s[i - 1]!;
        west = s[i]!;
      }
    out.set(name, [west, west + 360 - gap]);
  }
  return out;
}

const lonOf = (z: number, x: number, px: number) => ((x + px / EXTENT) / 2 ** z) * 360 - 180;

/** Country features of a tile whose part inside the tile lies where the country does not, by name. */
function misplaced(tile: VectorTile, layerName: string, z: number, x: number, where: Map<string, [number, number]>): string[] {
  const layer = tile.layers[layerName];
  const out: string[] = [];
  for (let i = 0; i < (layer?.length ?? 0); i++) {
    const f = layer!.feature(i);
    const xs = f.loadGeometry().flat().map((p) => p.x);
    const lo = Math.max(0, Math.min(...xs));
    const hi = Math.min(EXTENT, Math.max(...xs));
    if (lo >= hi) continue; // only in the buffer around the tile
    const [a, b] = [lonOf(z, x, lo), lonOf(z, x, hi)];
    const [w, e] = where.get(f.properties.name as string)!;
    const slack = 1; // degrees: simplification moves outlines a little
    if (![-360, 0, 360].some((k) => a <= e + k + slack && b >= w + k - slack)) out.push(`${f.properties.name} at ${a.toFixed(1)}..${b.toFixed(1)}`);
  }
  return out;
}

/** Whether tile point (px, py) is inside a polygon of the layer named `name` (even-odd over its rings). */
function covers(tile: VectorTile, layerName: string, name: string, px: number, py: number): boolean {
  const layer = tile.layers[layerName]!;
  for (let i = 0; i < layer.length; i++) {
    const f = layer.feature(i);
    if (f.properties.name !== name) continue;
    let inside = false;
    for (const ring of f.loadGeometry())
      for (let j = 0, k = ring.length - 1; j < ring.length; k = j++) {
        const [p, q] = [ring[j]!, ring[k]!];
        if (p.y > py !== q.y > py && px < ((q.x - p.x) * (py - p.y)) / (q.y - p.y) + p.x) inside = !inside;
      }
    if (inside) return true;
  }
  return false;
}

describe("Natural Earth countries from world-atlas", () => {
  // 110m, 50m and 10m as GeoJSON; 50m also as a zipped Shapefile (every reader leads to the same repair).
  const cases: [string, "geojson" | "shapefile"][] = [
    ["110m", "geojson"],
    ["50m", "geojson"],
    ["10m", "geojson"],
    ["50m", "shapefile"],
  ];
  for (const [resolution, format] of cases)
    test(`${resolution} (${format}): no country draws as a band across the map, and Antarctica reaches the map's bottom edge`, async () => {
      const fc = await worldAtlas(resolution);
      const body = format === "geojson" ? JSON.stringify(fc) : shapefileZip(fc.features.filter((f) => f.geometry) as Feature[]);
      const { slug, v } = await uploadReady(t, headers, `atlas-${++counter}`, body as BodyInit, "?maxzoom=3");
      const layerName = slug;
      const where = spans(fc);
      // The reviewer's tile over Canada: Russia drew there as a band from Chukotka to Greenland.
      const canada = (await versionTile(t, headers, slug, 3, 2, 1))!;
      const names = Array.from({ length: canada.layers[layerName]!.length }, (_, i) => canada.layers[layerName]!.feature(i).properties.name);
      expect(names).toContain("Canada");
      expect(names).not.toContain("Russia");
      const wrong: string[] = [];
      for (let x = 0; x < 8; x++)
        for (let y = 0; y < 8; y++) {
          const tile = await versionTile(t, headers, slug, 3, x, y);
          if (tile) wrong.push(...misplaced(tile, layerName, 3, x, where).map((m) => `3/${x}/${y}: ${m}`));
        }
      expect(wrong).toEqual([]);
      // Antarctica goes around the South Pole: on a flat map it fills the bottom row of tiles down to
      // the map's edge (no strip of sea below its closing parallel, no half left empty).
      for (let x = 0; x < 4; x++) {
        const bottom = (await versionTile(t, headers, slug, 2, x, 3))!;
        for (const px of [256, 2048, 3840]) expect(`2/${x}/3 at ${px}: ${covers(bottom, layerName, "Antarctica", px, 4000)}`).toBe(`2/${x}/3 at ${px}: true`);
      }
      expect(v.warnings.join("\n")).toContain("crossing of the antimeridian unwrapped");
    }, 120_000); // 10m is 3.6 MB of TopoJSON: seconds of tiling on a busy machine
});

describe("data already cut at the antimeridian", () => {
  test("polygons cut at ±180° for a flat map, a world frame and Antarctica closed along -90° stay as they are", async () => {
    const feature = (name: string, coordinates: number[][][]): Feature => ({ type: "Feature", properties: { name }, geometry: { type: "Polygon", coordinates } });
    const features = [
      // Fiji cut in two: the east part ends at 180°, the west part starts at -180°.
      feature("east", [[[177, -16], [180, -16], [180, -19], [177, -19], [177, -16]]]),
      feature("west", [[[-180, -16], [-178, -16], [-178, -19], [-180, -19], [-180, -16]]]),
      // A frame around the world with a hole: its outer ring lies on the antimeridian only.
      feature("frame", [
        [[-180, -80], [180, -80], [180, 80], [-180, 80], [-180, -80]],
        [[-170, -70], [0, -70], [170, -70], [170, 70], [0, 70], [-170, 70], [-170, -70]],
      ]),
      // Antarctica as a flat map's data has it: its coast from -180° to 180°, closed along -90°.
      feature("south", [[[-180, -70], [-90, -72], [0, -68], [90, -71], [180, -70], [180, -90], [-180, -90], [-180, -70]]]),
    ];
    const { slug, v } = await uploadReady(t, headers, `cut-${++counter}`, JSON.stringify({ type: "FeatureCollection", features }), "?maxzoom=3");
    expect(v.warnings).toEqual([]);
    expect(v.stats.features_repaired).toBe(0);
    // Zoom 1, southern row: each Fiji part is a sliver at its own edge of the world.
    for (const [x, name, edge] of [[1, "east", EXTENT], [0, "west", 0]] as const) {
      const layer = (await versionTile(t, headers, slug, 1, x, 1))!.layers[slug]!;
      const f = Array.from({ length: layer.length }, (_, i) => layer.feature(i)).find((g) => g.properties.name === name)!;
      const xs = f.loadGeometry().flat().map((p) => p.x).filter((px) => px >= 0 && px <= EXTENT);
      expect(Math.max(...xs.map((px) => Math.abs(px - edge)))).toBeLessThan(100);
    }
    // The frame still frames the world (its hole in the middle), and the flat Antarctica fills the bottom.
    const world = (await versionTile(t, headers, slug, 0, 0, 0))!;
    expect(covers(world, slug, "frame", 2048, 2048)).toBe(false);
    expect(covers(world, slug, "frame", 20, 2048)).toBe(true);
    expect(covers(world, slug, "frame", 4076, 2048)).toBe(true);
    for (const px of [20, 2048, 4076]) expect(covers(world, slug, "south", px, 4080)).toBe(true);
  });
});

// Coarser copies of large lines and polygons for the low zooms (src/tiles/generalize.ts): a zoom-0 tile
// of a world of detailed countries used to read only the full-resolution text, hit the share of the
// memory budget a tile may read, and leave out half the countries; the warning then blamed tile_bytes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PbfReader } from "pbf";
import type { Geometry, Polygon, Position } from "geojson";
import * as topojson from "topojson-client";
import world10 from "world-atlas/countries-10m.json";
import { GENERALIZED_ZOOMS, generalizedTexts, shapeSize } from "../../src/tiles/generalize";
import { processSource } from "../../src/tiles/process";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mapstead-generalize-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A closed ring of `n` vertices round (lon, lat), radius `r` degrees. */
function circle(lon: number, lat: number, r: number, n: number): Position[] {
  const ring: Position[] = [];
  for (let i = 0; i < n; i++) ring.push([lon + r * Math.cos((2 * Math.PI * i) / n), lat + r * Math.sin((2 * Math.PI * i) / n)]);
  ring.push(ring[0]!);
  return ring;
}

describe("copies", () => {
  test("a large polygon gets smaller copies for coarser zooms, each a valid ring made of its own positions", () => {
    const polygon: Polygon = { type: "Polygon", coordinates: [circle(10, 50, 5, 20_000), circle(10, 50, 1, 5_000).reverse()] };
    const text = JSON.stringify(polygon).length;
    const copies = generalizedTexts(polygon, text, 3)!;
    expect(copies).toHaveLength(GENERALIZED_ZOOMS.length);
    const sizes = copies.map((c) => c!.length);
    // Coarser zooms, smaller copies; even the finest is a fraction of the full text.
    expect(sizes[0]!).toBeLessThan(sizes[1]!);
    expect(sizes[1]!).toBeLessThan(sizes[2]!);
    expect(sizes[2]!).toBeLessThan(text / 5);
    const originals = new Set(polygon.coordinates.flat().map(([x, y]) => `${x!.toFixed(6)},${y!.toFixed(6)}`));
    for (const copy of copies) {
      const g = JSON.parse(copy!) as Polygon;
      expect(g.coordinates).toHaveLength(2);
      for (const ring of g.coordinates) {
        expect(ring.length).toBeGreaterThanOrEqual(4);
        expect(ring[0]).toEqual(ring.at(-1)!);
        for (const [x, y] of ring) expect(originals.has(`${x!.toFixed(6)},${y!.toFixed(6)}`)).toBe(true);
      }
    }
  });

  test("points and small features have none; a ring smaller than the tolerance stays a ring", () => {
    expect(generalizedTexts({ type: "Point", coordinates: [1, 2] }, 20, 3)).toBeNull();
    const small: Polygon = { type: "Polygon", coordinates: [circle(0, 0, 1, 20)] };
    expect(generalizedTexts(small, JSON.stringify(small).length, 3)).toBeNull();
    // A big country and a speck of an island with many vertices: the speck keeps a triangle at zoom 0-3.
    const both: Geometry = { type: "MultiPolygon", coordinates: [[circle(10, 50, 5, 20_000)], [circle(40, 10, 0.0005, 400)]] };
    const coarsest = JSON.parse(generalizedTexts(both, JSON.stringify(both).length, 3)![0]!) as GeoJSON.MultiPolygon;
    expect(coarsest.coordinates[1]![0]!).toHaveLength(4);
  });

  test("bigger means area or length: a country outranks small islands strewn over an ocean", () => {
    const country: Polygon = { type: "Polygon", coordinates: [circle(10, 51, 4, 64)] };
    const islands: Geometry = { type: "MultiPolygon", coordinates: [[circle(177, -17, 0.3, 16)], [circle(-179, -16, 0.3, 16)], [circle(160, -10, 0.3, 16)]] };
    expect(shapeSize(country)).toBeGreaterThan(shapeSize(islands));
    expect(shapeSize({ type: "LineString", coordinates: [[0, 0], [90, 0]] })).toBeCloseTo(0.25, 5);
  });
});

/** Processes one GeoJSON file to `maxzoom` and returns the result with the names in each zoom-0..2 tile. */
async function tiled(path: string, memoryMb: number, maxzoom: number, layer: string) {
  const outPath = `${path}.${memoryMb}.mbtiles`;
  const result = await processSource(
    { sources: [{ path, format: "geojson", label: "in.geojson", fileName: "in.geojson" }], recipe: { maxzoom }, defaultLayer: layer, outPath, attribution: "", name: layer, description: "", memoryMb },
    () => {},
  );
  const db = new Database(outPath, { readonly: true });
  const namesAt = (z: number) => {
    const names = new Set<string>();
    for (const row of db.query<{ data: Uint8Array }, [number]>("SELECT tile_data AS data FROM tiles WHERE zoom_level = ?").all(z)) {
      const l = new VectorTile(new PbfReader(Bun.gunzipSync(row.data as Uint8Array<ArrayBuffer>))).layers[layer];
      for (let i = 0; l && i < l.length; i++) names.add(String(l.feature(i).properties.name));
    }
    return names;
  };
  const names = [0, 1, 2].map(namesAt);
  db.close();
  return { result, names };
}

describe("tiling", () => {
  test("Natural Earth 1:10m countries (24 MB) at the default budget: zoom 0 shows the world, nothing is left out", async () => {
    const countries = topojson.feature(world10 as never, (world10 as unknown as { objects: { countries: never } }).objects.countries) as unknown as GeoJSON.FeatureCollection;
    const path = join(dir, "countries10.geojson");
    await Bun.write(path, JSON.stringify(countries));
    const { result, names } = await tiled(path, 256, 2, "countries");
    expect(result.stats.dropped_by_size).toEqual({});
    expect(result.warnings.filter((w) => /left out of tiles/.test(w))).toEqual([]);
    for (const country of ["Germany", "Poland", "Switzerland", "Egypt", "Brazil", "Japan"]) expect(names[0]!.has(country)).toBe(true);
    // The tiles below zoom 0 hold as many countries (those too small to draw at zoom 0 among them).
    expect(names[2]!.size).toBeGreaterThanOrEqual(names[0]!.size);
  }, 60_000);

  test("features shed for the memory budget are told apart from those over tile_bytes, naming TILING_MEMORY_MB", async () => {
    // 3000 lines of 60 vertices (under 2 KiB each: no coarser copies) reaching across the world: 4 MiB of
    // text at zoom 0, over the 2 MiB a tile may read at TILING_MEMORY_MB=32.
    let seed = 9;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const features = Array.from({ length: 3000 }, (_, i) => ({
      type: "Feature",
      properties: { name: `line ${i}` },
      geometry: { type: "LineString", coordinates: Array.from({ length: 60 }, (_, k) => [Number((-170 + k * 5.7 + rnd()).toFixed(4)), Number((rnd() * 140 - 70).toFixed(4))]) },
    }));
    const path = join(dir, "lines.geojson");
    await Bun.write(path, JSON.stringify({ type: "FeatureCollection", features }));
    const { result } = await tiled(path, 32, 0, "lines");
    const memory = result.warnings.filter((w) => w.includes("TILING_MEMORY_MB"));
    expect(memory).toHaveLength(1);
    expect(memory[0]).toMatch(/^\d+ feature placements were left out of tiles whose features have more than 2 MiB of text, the share of TILING_MEMORY_MB=32 one tile may read: raise TILING_MEMORY_MB/);
    expect(result.warnings.some((w) => w.includes("-byte limit"))).toBe(false);
  }, 60_000);
});

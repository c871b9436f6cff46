// Lines spanning the world reach most tiles of every zoom. geojson-vt keeps every tile it cuts, with the
// clipped features its children are cut from, so a block of them (one index for a tile and everything
// below it) held the whole pyramid at once: 1.7 GB of RSS for 2000 such lines (1.7 MB) at a 64 MiB budget,
// 6 GB for 40 000. The tiler now drops each tile once its subtree is written, and collects the garbage of
// cutting tiles as it goes instead of leaving it to the collector's pace. The JavaScript heap is sampled at
// each progress report of a real processing run (the tiler reports every 256 tiles and after each block).
// A single feature bigger than a tile may read cannot be cut within the budget at all: it fails the version.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { Database } from "bun:sqlite";
import { heapSize } from "bun:jsc";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PbfReader } from "pbf";
import { processSource, type Progress } from "../../src/tiles/process";

const MB = 1024 * 1024;
let dir: string;

/** `n` LineStrings of 20 vertices spread across -180..180 at random latitudes (seeded), properties {id}. */
function worldLines(n: number): GeoJSON.FeatureCollection<GeoJSON.LineString> {
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const features: GeoJSON.Feature<GeoJSON.LineString>[] = [];
  for (let i = 0; i < n; i++) {
    const coordinates: number[][] = [];
    for (let k = 0; k < 20; k++) coordinates.push([-180 + (360 * (k + rnd() * 0.5)) / 19.5, rnd() * 170 - 85]);
    features.push({ type: "Feature", properties: { id: i }, geometry: { type: "LineString", coordinates } });
  }
  return { type: "FeatureCollection", features };
}

/** Processes a FeatureCollection file; `onProgress` sees each report. */
function run(path: string, memoryMb: number, onProgress: (p: Progress) => void = () => {}) {
  return processSource(
    {
      sources: [{ path, format: "geojson", label: "lines.geojson", fileName: "lines.geojson" }],
      recipe: { maxzoom: 6 },
      defaultLayer: "lines",
      outPath: `${path}.mbtiles`,
      attribution: "",
      name: "lines",
      description: "",
      memoryMb,
    },
    onProgress,
  );
}

/** Each tile's features as sorted `id geometry` strings, keyed `z/x/y` (XYZ rows). */
function decoded(tiles: Iterable<{ z: number; x: number; y: number; data: Uint8Array }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const { z, x, y, data } of tiles) {
    const layer = new VectorTile(new PbfReader(data)).layers.lines!;
    const features: string[] = [];
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i);
      features.push(`${f.properties.id} ${JSON.stringify(f.loadGeometry().map((ring) => ring.map((p) => [p.x, p.y])))}`);
    }
    out.set(`${z}/${x}/${y}`, features.sort());
  }
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "mapstead-tiler-memory-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("2000 lines spanning the world are tiled with the heap within one and a half budgets", async () => {
  const path = join(dir, "lines2000.geojson");
  await Bun.write(path, JSON.stringify(worldLines(2000)));
  Bun.gc(true);
  const base = heapSize();
  let peak = 0;
  const result = await run(path, 64, () => {
    const grown = heapSize() - base;
    peak = Math.max(peak, grown);
    // A tiler that lost its bound is stopped here, long before it takes the machine's memory.
    if (grown > 512 * MB) throw new Error(`the heap grew by ${Math.round(grown / MB)} MiB`);
  });
  // Every tile of zooms 0-6 but the few no line crosses.
  expect(result.stats.tiles).toBeGreaterThan(5000);
  expect(result.stats.dropped_by_size).toEqual({});
  // About 55 MiB at most; 143 MiB when the collector kept its own pace, 1.5 GiB holding every tile cut.
  expect(peak).toBeLessThan(1.5 * 64 * MB);
});

test("dropping the tiles already written loses none: the tiles are those of one geojson-vt index kept whole", async () => {
  const lines = worldLines(100);
  const path = join(dir, "lines100.geojson");
  await Bun.write(path, JSON.stringify(lines));
  await run(path, 64);
  const db = new Database(`${path}.mbtiles`, { readonly: true });
  const rows = db.query<{ z: number; x: number; row: number; data: Uint8Array }, []>("SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles").all();
  db.close();
  const written = decoded(rows.map((r) => ({ z: r.z, x: r.x, y: (1 << r.z) - 1 - r.row, data: Bun.gunzipSync(r.data as Uint8Array<ArrayBuffer>) })));

  // The reference: the same options (tolerance 3 pixels, buffer 4 of 256, extent 4096), every tile kept.
  const index = new GeoJSONVT(lines, { maxZoom: 6, tolerance: 3, extent: 4096, buffer: 64, indexMaxZoom: 0 });
  const { encodeTile } = await import("../../src/tiles/mvt-encode");
  const expected: { z: number; x: number; y: number; data: Uint8Array }[] = [];
  for (let z = 0; z <= 6; z++)
    for (let x = 0; x < 1 << z; x++)
      for (let y = 0; y < 1 << z; y++) {
        const tile = index.getTile(z, x, y);
        if (tile?.features.length) expected.push({ z, x, y, data: encodeTile({ lines: tile }, 4096) });
      }
  expect(written.size).toBe(expected.length);
  expect(written).toEqual(decoded(expected));
});

test("a feature over what a tile may read fails the version while reading, saying what to change", async () => {
  // One polygon of 60 000 vertices, about 2.3 MiB of text: over the 2 MiB a feature may have at 32 MiB.
  const ring: number[][] = [];
  for (let i = 0; i < 60_000; i++) ring.push([10 + 10 * Math.cos((2 * Math.PI * i) / 60_000) + 1e-7 * i, 50 + 6 * Math.sin((2 * Math.PI * i) / 60_000)]);
  ring.push(ring[0]!);
  const path = join(dir, "big-polygon.geojson");
  await Bun.write(path, `{"type":"FeatureCollection","features":[\n{"type":"Feature","properties":{"id":1},"geometry":{"type":"Polygon","coordinates":${JSON.stringify([ring])}}}\n]}`);
  const phases = new Set<string>();
  const failed = await run(path, 32, (p) => phases.add(p.phase)).then(
    () => null,
    (err: Error) => err.message,
  );
  expect(failed).toMatch(
    /^lines\.geojson: feature 1 is 2\.\d MiB of coordinates and attributes, more than the 2\.0 MiB one feature may have with TILING_MEMORY_MB=32: simplify it \(e\.g\. ogr2ogr -simplify .*\), split it into smaller features, or set TILING_MEMORY_MB to 64 or more$/,
  );
  // Refused as it was read: no tile was cut.
  expect([...phases]).toEqual(["reading"]);
  // The same feature fits a budget of 64 MiB.
  expect((await run(path, 64)).stats.tiles).toBeGreaterThan(0);
});

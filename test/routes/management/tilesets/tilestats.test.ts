// tilestats (tippecanoe's, after mapbox-geostats): each layer's feature count and, for a layer of one geometry
// kind, that kind. Desktop GIS reads a layer's geometry type there (test/read/gdal-mvt.test.ts shows GDAL
// doing it); they go into the version's TileJSON and archive metadata, and an uploaded archive keeps its own,
// cut down to layer, count and geometry.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir, type TestApp } from "../../../support/app";
import { acmeApp, cities, countries, uploadReady, vectorTiles, writeMbtiles } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let dir: string;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
  dir = tempDir("mapstead-tilestats-");
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const tileJson = async (slug: string) => (await (await t.fetch(`/tiles/v1/acme/${slug}@1.json`, { headers })).json()) as { tilestats?: unknown };

test("a layer of one kind is named by it in the TileJSON and the archive's json metadata; a mixed layer is not", async () => {
  const world = countries();
  await uploadReady(t, headers, "shapes", JSON.stringify(world), "?maxzoom=2");
  expect((await tileJson("shapes")).tilestats).toEqual({ layerCount: 1, layers: [{ layer: "shapes", count: world.features.length, geometry: "Polygon" }] });
  const archive = t.ctx.sqlite.query<{ archive_path: string }, []>("SELECT v.archive_path FROM tileset_versions v JOIN tilesets t ON t.id = v.tileset_id WHERE t.slug = 'shapes'").get()!.archive_path;
  const db = new Database(join(t.dataDir, archive), { readonly: true });
  const json = JSON.parse(db.query<{ value: string }, []>("SELECT value FROM metadata WHERE name = 'json'").get()!.value);
  db.close();
  expect(json.tilestats).toEqual({ layerCount: 1, layers: [{ layer: "shapes", count: world.features.length, geometry: "Polygon" }] });

  const points = await cities(10);
  const mixed = { type: "FeatureCollection", features: [...points.features, world.features[0]!] };
  await uploadReady(t, headers, "mixed", JSON.stringify(mixed), "?maxzoom=2");
  expect((await tileJson("mixed")).tilestats).toEqual({ layerCount: 1, layers: [{ layer: "mixed", count: 11 }] });
});

test("an uploaded MBTiles keeps its tilestats' layers, counts and kinds, without attribute values or anything unknown", async () => {
  const fc = await cities(20);
  const path = join(dir, "tippecanoe.mbtiles");
  const tilestats = {
    layerCount: 3,
    layers: [
      { layer: "cities", count: 20, geometry: "Point", attributeCount: 1, attributes: [{ attribute: "name", count: 20, type: "string", values: fc.features.map((f) => f.properties!.name) }] },
      { layer: "odd", count: -4, geometry: "Circle" },
      { count: 3 },
    ],
  };
  writeMbtiles(path, vectorTiles(fc, "cities", 2), { format: "pbf", json: JSON.stringify({ vector_layers: [{ id: "cities", fields: { name: "String" } }], tilestats }) });
  await uploadReady(t, headers, "uploaded", new Uint8Array(readFileSync(path)));
  expect((await tileJson("uploaded")).tilestats).toEqual({ layerCount: 2, layers: [{ layer: "cities", count: 20, geometry: "Point" }, { layer: "odd", count: 0 }] });
});

test("hostile tilestats cannot bloat the TileJSON: a name is kept once, and names longer than 256 characters are left out", async () => {
  const fc = await cities(5);
  const path = join(dir, "hostile.mbtiles");
  // The first 1000 entries (the most read): a real layer, a prototype key, 499 names of 5 KB, 499 repeats.
  const layers = [
    { layer: "cities", count: 5, geometry: "Point" },
    { layer: "__proto__", count: 2, geometry: "Polygon" },
    ...Array.from({ length: 499 }, (_, i) => ({ layer: `${i}${"x".repeat(5000)}`, count: 1 })),
    ...Array.from({ length: 499 }, () => ({ layer: "cities", count: 1 })),
  ];
  writeMbtiles(path, vectorTiles(fc, "cities", 1), { format: "pbf", json: JSON.stringify({ vector_layers: [{ id: "cities", fields: {} }], tilestats: { layerCount: 3000, layers } }) });
  await uploadReady(t, headers, "hostile", new Uint8Array(readFileSync(path)));
  const res = await t.fetch("/tiles/v1/acme/hostile@1.json", { headers });
  const body = await res.text();
  expect(body.length).toBeLessThan(10_000);
  expect((JSON.parse(body) as { tilestats: unknown }).tilestats).toEqual({ layerCount: 2, layers: [{ layer: "cities", count: 5, geometry: "Point" }, { layer: "__proto__", count: 2, geometry: "Polygon" }] });
});

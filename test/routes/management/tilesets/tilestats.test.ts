// tilestats (tippecanoe's, after mapbox-geostats): each layer's feature count and, for a layer of one geometry
// kind, that kind. Desktop GIS reads a layer's geometry type there (test/read/gdal-mvt.test.ts shows GDAL
// doing it); they go into the version's TileJSON and archive metadata, and an uploaded archive keeps its own,
// cut down to layer, count and geometry.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { tempDir, type TestApp } from "../../../support/app";
import { acmeApp, cities, countries, pmtiles, uploadReady, vectorTiles, writeMbtiles } from "./fixtures";

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

test("hostile vector_layers in an archive's metadata: deep nesting, non-string fields, prototype keys and huge lists import, and the TileJSON keeps only what it names", async () => {
  const fc = await cities(5);
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  // MBTiles: an extra key nesting 200,000 arrays deep (the import failed as an internal error), fields
  // typed by numbers and null and a "__proto__" field (the version could not be read through the API).
  const path = join(dir, "deep.mbtiles");
  const json = `{"vector_layers":[{"id":"cities","fields":{"name":"String","pop":1,"x":null,"__proto__":"String","deep":${deep}},"minzoom":"0","maxzoom":1,"junk":${deep}}]}`;
  writeMbtiles(path, vectorTiles(fc, "cities", 1), { format: "pbf", json });
  await uploadReady(t, headers, "deep", new Uint8Array(readFileSync(path)));
  // Only the string-typed fields are kept ("__proto__" a field like another, or left out; never a prototype).
  const kept = (layers: unknown) => {
    const [layer, ...rest] = layers as { id: string; fields: Record<string, unknown>; maxzoom?: number; minzoom?: number }[];
    expect(rest).toEqual([]);
    expect([layer!.id, layer!.maxzoom, layer!.minzoom, layer!.fields.name]).toEqual(["cities", 1, undefined, "String"]);
    expect(Object.keys(layer!).sort()).toEqual(["fields", "id", "maxzoom"]);
    expect(Object.keys(layer!.fields).filter((k) => k !== "name" && k !== "__proto__")).toEqual([]);
  };
  kept(((await (await t.fetch("/api/v1/orgs/acme/tilesets/deep/versions/1", { headers })).json()) as { layers: unknown }).layers);
  kept(((await (await t.fetch("/tiles/v1/acme/deep@1.json", { headers })).json()) as { vector_layers: unknown }).vector_layers);

  // PMTiles: 100,000 layers with a list of a million numbers beside them, fields given as an array.
  const archive = pmtiles(vectorTiles(fc, "cities", 1), {
    tileType: 1,
    tileCompression: 2,
    metadata: { vector_layers: [{ id: "cities", fields: ["name"], description: 5, list: Array(1_000_000).fill(1) }, ...Array.from({ length: 100_000 }, (_, i) => ({ id: `l${i}`, fields: {} }))] },
    bounds: [-180, -85, 180, 85],
    minzoom: 0,
    maxzoom: 1,
  });
  await uploadReady(t, headers, "huge", archive);
  const res = await t.fetch("/tiles/v1/acme/huge@1.json", { headers });
  const body = await res.text();
  expect(body.length).toBeLessThan(100_000);
  const layers = (JSON.parse(body) as { vector_layers: unknown[] }).vector_layers;
  expect(layers[0]).toEqual({ id: "cities", fields: {} });
  expect(layers.length).toBe(1000);
});

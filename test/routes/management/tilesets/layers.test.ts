// Several layers per version (multipart with several files, a zip of several files), recipes per
// layer (names, zooms, attributes, types, filters) and the generalization they drive: thinning by
// rank, the tile byte limit on every tile, and antimeridian repair. All through the HTTP API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { unzipSync, zipSync } from "fflate";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Feature } from "geojson";
import type { TestApp } from "../../../support/app";
import { acmeApp, cities, countries, createTileset, flatgeobuf, shapefileZip, toCsv, upload, uploadReady, versionTile, waitForVersion, writeMbtiles, vectorTiles } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;

beforeAll(async () => {
  ({ t, headers } = await acmeApp());
});
afterAll(() => t.close());

async function fresh() {
  const slug = `layers-${++counter}`;
  await createTileset(t, "acme", headers, { slug });
  return slug;
}

function form(files: [string, BodyInit | Uint8Array][], recipe?: unknown) {
  const f = new FormData();
  for (const [name, body] of files) f.append("file", new Blob([body as BlobPart]), name);
  if (recipe !== undefined) f.append("recipe", JSON.stringify(recipe));
  return f;
}

const ready = async (body: BodyInit, query = "") => uploadReady(t, headers, `layers-${++counter}`, body, query);
const tile = (slug: string, z: number, x: number, y: number) => versionTile(t, headers, slug, z, x, y);

const names = (layer: VectorTile["layers"][string] | undefined) => Array.from({ length: layer?.length ?? 0 }, (_, i) => layer!.feature(i).properties.name);

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

/** The archive of version 1 of a tileset, opened from the data directory. */
function archiveOf(slug: string) {
  const id = t.ctx.sqlite.query<{ id: number }, [string]>("SELECT id FROM tilesets WHERE slug = ?").get(slug)!.id;
  return join(t.dataDir, "tilesets", String(id), "v1.mbtiles");
}

describe("several layers per version", () => {
  test("multipart with three files: one layer each, named from the file or the recipe, per-layer settings", async () => {
    const towns = await cities(300);
    const { slug, v } = await ready(
      form(
        [
          ["countries.geojson", JSON.stringify(countries())],
          ["towns.csv", toCsv(towns)],
          ["big-towns.geojson", JSON.stringify(towns)],
        ],
        {
          maxzoom: 5,
          point_spacing: 0,
          layers: {
            "towns.csv": { layer: "places", include: ["name"], maxzoom: 4 },
            "big-towns": { filter: [">=", "population", 5000000], types: { population: "string" }, exclude: ["country"] },
          },
        },
      ),
    );
    expect(v.source_format).toBe("geojson+csv");
    expect(v.layers).toEqual([
      { id: "countries", fields: { name: "String" }, minzoom: 0, maxzoom: 5 },
      { id: "places", fields: { name: "String" }, minzoom: 0, maxzoom: 4 },
      { id: "big-towns", fields: { name: "String", population: "String" }, minzoom: 0, maxzoom: 5 },
    ]);
    const bigOnes = towns.features.filter((f) => f.properties!.population >= 5_000_000);
    expect(v.stats.features_filtered).toBe(300 - bigOnes.length);
    const world = (await tile(slug, 0, 0, 0))!;
    expect(Object.keys(world.layers).sort()).toEqual(["big-towns", "countries", "places"]);
    expect(world.layers.places!.length).toBe(300);
    expect(names(world.layers["big-towns"]).sort()).toEqual(bigOnes.map((f) => f.properties!.name).sort());
    expect(typeof world.layers["big-towns"]!.feature(0).properties.population).toBe("string");
    // places stops at its own maxzoom 4; the other layers go on to 5.
    const anyZ5 = readTileLayers(slug, 5);
    expect(anyZ5.has("places")).toBe(false);
    expect(anyZ5.has("countries")).toBe(true);
  });

  test("filter, types and cluster as query parameters or multipart fields, in JSON; bad JSON is a 400 naming them", async () => {
    const towns = await cities(50);
    const big = towns.features.filter((f) => f.properties!.population >= 10_000_000).length;
    const filter = encodeURIComponent(JSON.stringify([">=", "population", 10_000_000]));
    const types = encodeURIComponent(JSON.stringify({ population: "string" }));
    const byQuery = await ready(JSON.stringify(towns), `?maxzoom=3&filter=${filter}&types=${types}`);
    expect(byQuery.v.stats.features).toBe(big);
    expect(byQuery.v.layers[0].fields.population).toBe("String");
    const fields = new FormData();
    fields.append("file", new Blob([JSON.stringify(towns)]), "towns.geojson");
    fields.append("filter", JSON.stringify([">=", "population", 10_000_000]));
    fields.append("cluster", JSON.stringify({ radius: 40, maxzoom: 2 }));
    fields.append("maxzoom", "3");
    const byFields = await ready(fields);
    expect(byFields.v.stats.features).toBe(big);
    expect(byFields.v.recipe.cluster).toEqual({ radius: 40, maxzoom: 2 });
    const slug = await fresh();
    for (const name of ["filter", "types", "cluster"]) {
      const res = await upload(t, "acme", slug, headers, JSON.stringify(towns), `?${name}=%5Bnope`);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toContain(`Recipe '${name}' must be JSON`);
    }
  });

  test("layers as a query parameter or multipart field, in JSON like the recipe's; bad JSON is a 400 naming it", async () => {
    const files: [string, string][] = [
      ["countries.geojson", JSON.stringify(countries())],
      ["towns.csv", toCsv(await cities(30))],
    ];
    const layers = JSON.stringify({ "towns.csv": { layer: "places", maxzoom: 2 } });
    const byQuery = await ready(form(files), `?maxzoom=3&layers=${encodeURIComponent(layers)}`);
    expect(byQuery.v.layers.map((l: any) => [l.id, l.maxzoom])).toEqual([
      ["countries", 3],
      ["places", 2],
    ]);
    const field = form(files);
    field.append("layers", layers);
    field.append("maxzoom", "3");
    const byField = await ready(field);
    expect(byField.v.layers.map((l: any) => l.id)).toEqual(["countries", "places"]);
    const slug = await fresh();
    const bad = await upload(t, "acme", slug, headers, form(files), "?layers=%7Bnope");
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toMatchObject({ code: "BAD_REQUEST", message: `Recipe 'layers' must be JSON, e.g. {"places.csv":{"layer":"towns"}}`, details: { parameter: "layers" } });
  });

  test("a zip holding only a GeoJSON file reports geojson, not shapefile, and a zip beside a CSV what it holds", async () => {
    const zip = zipSync({ "data/world.geojson": new TextEncoder().encode(JSON.stringify(countries())) });
    const { v } = await ready(zip as BodyInit, "?maxzoom=1");
    expect(v.source_format).toBe("geojson");
    const listed = (await (await t.fetch(`/api/v1/orgs/acme/tilesets/layers-${counter}/versions`, { headers })).json()) as any;
    expect(listed.versions[0].source_format).toBe("geojson");
    const both = await ready(form([["world.zip", zip], ["places.csv", toCsv(await cities(5))]]) as BodyInit, "?maxzoom=1");
    expect(both.v.source_format).toBe("geojson+csv");
  });

  test("a zip of two Shapefiles and a GeoJSON file makes three layers", async () => {
    const towns = await cities(20);
    const a = unzipSync(shapefileZip(towns.features.slice(0, 10) as Feature[]));
    const b = unzipSync(shapefileZip(towns.features.slice(10) as Feature[]));
    const rename = (files: Record<string, Uint8Array>, stem: string) => Object.fromEntries(Object.entries(files).map(([n, d]) => [n.replace("data/layer", `data/${stem}`), d]));
    const zip = zipSync({ ...rename(a, "north"), ...rename(b, "south"), "data/shapes.geojson": new TextEncoder().encode(JSON.stringify(countries())) });
    const { slug, v } = await ready(zip as BodyInit, "?point_spacing=0&maxzoom=3");
    // What the zip held, as a multipart upload of those files reports it.
    expect(v.source_format).toBe("shapefile+geojson");
    expect(v.layers.map((l: any) => l.id)).toEqual(["north", "south", "shapes"]);
    expect(v.stats.features).toBe(20 + countries().features.length);
    const world = (await tile(slug, 0, 0, 0))!;
    expect(world.layers.north!.length).toBe(10);
    expect(world.layers.south!.length).toBe(10);
  });

  test("same-named files in different folders of a zip: the recipe tells them apart by their path there, as the clash message says", async () => {
    const towns = await cities(20);
    const half = (from: number, to: number) => flatgeobuf({ type: "FeatureCollection", features: towns.features.slice(from, to) });
    const zip = zipSync({ "a/pts.fgb": half(0, 10), "b/pts.fgb": half(10, 20), "c/other.fgb": half(0, 5) }) as BodyInit;
    const slug = await fresh();
    const clash = await upload(t, "acme", slug, headers, zip, "?filename=two.zip");
    expect(clash.status).toBe(202);
    const failed = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
    expect(failed.state).toBe("failed");
    const fix = { layers: { "b/pts.fgb": { layer: "pts_2" } } };
    expect(failed.error).toBe(`two.zip (b/pts.fgb): makes layer 'pts' like two.zip (a/pts.fgb); give one of them another name in the recipe, e.g. ${JSON.stringify(fix).replaceAll(":", ": ").replaceAll(",", ", ")}`);
    // The key the message gives works; a plain file name still does where no other file shares it.
    const recipe = encodeURIComponent(JSON.stringify({ maxzoom: 3, layers: { ...fix.layers, "other.fgb": { layer: "few" } } }));
    const { v } = await ready(zip, `?recipe=${recipe}`);
    expect(v.layers.map((l: any) => l.id)).toEqual(["pts", "pts_2", "few"]);
    expect(v.stats.features_by_layer).toEqual({ pts: 10, pts_2: 10, few: 5 });
    // A plain name shared by both applies to both, and a path entry wins over it for its file.
    const both = encodeURIComponent(JSON.stringify({ layers: { "pts.fgb": { maxzoom: 4 }, "a/pts": { layer: "north", maxzoom: 2 } } }));
    const { v: v2 } = await ready(zip, `?recipe=${both}`);
    expect(v2.layers.map((l: any) => [l.id, l.maxzoom])).toEqual([
      ["north", 2],
      ["pts", 4],
      ["other", expect.any(Number)],
    ]);
  });

  test("recipe names that match nothing in the data are warned about, with names that exist", async () => {
    const towns = await cities(20);
    const { v } = await ready(JSON.stringify(towns), "?include=nosuchfield,name&maxzoom=3");
    expect(v.layers[0].fields).toEqual({ name: "String" });
    expect(v.warnings).toContain("recipe include names 'nosuchfield', which no feature has; the attributes: name, country, population");
    const { v: multi } = await ready(
      form(
        [
          ["cities.geojson", JSON.stringify(towns)],
          ["countries.geojson", JSON.stringify(countries())],
        ],
        { maxzoom: 3, exclude: ["population"], layers: { "citiez.geojson": { layer: "towns" }, countries: { rank: "pop_est", types: { name: "string" } } } },
      ),
    );
    expect(multi.layers.map((l: any) => l.id)).toEqual(["cities", "countries"]);
    expect(multi.warnings).toContain('recipe layers names "citiez.geojson", which matches no file; the files: cities.geojson, countries.geojson');
    expect(multi.warnings).toContain(`recipe layers["countries"].rank names 'pop_est', which no feature of layer 'countries' has; its attributes: name`);
    // population is in one of the two files: the recipe's own exclude matched something, and types.name did too.
    expect(multi.warnings.join("\n")).not.toContain("population");
    expect(multi.warnings.join("\n")).not.toContain("types");
  });

  test("multi-file mistakes: an archive among files 422, an unknown file 415, a bad recipe 400, clashing names fail", async () => {
    const slug = await fresh();
    const mb = join(t.dataDir, "x.mbtiles");
    writeMbtiles(mb, vectorTiles(countries(), "c", 0), { name: "x", format: "pbf" });
    const archive = await upload(t, "acme", slug, headers, form([["a.geojson", JSON.stringify(countries())], ["x.mbtiles", await Bun.file(mb).bytes()]]));
    expect(archive.status).toBe(422);
    expect((await errorOf(archive)).message).toContain("x.mbtiles");
    const unknown = await upload(t, "acme", slug, headers, form([["a.geojson", JSON.stringify(countries())], ["notes.txt", "just some words"]]));
    expect(unknown.status).toBe(415);
    expect((await errorOf(unknown)).message).toContain("notes.txt");
    for (const [recipe, message] of [
      [{ layers: { "a.geojson": { maxzoom: 99 } } }, "layers.a.geojson: maxzoom"],
      [{ layers: { "a.geojson": { colour: "red" } } }, "unknown setting 'colour'"],
      [{ filter: ["~=", "name", "x"] }, "unknown filter operator"],
      [{ types: { population: "int" } }, "types.population"],
      [{ tile_bytes: 10 }, "tile_bytes"],
      [{ output: "zip" }, "output"],
      [{ cluster: 40 }, "cluster must be an object"],
      [{ cluster: { radius: 0 } }, "cluster.radius"],
      [{ layers: { "a.geojson": { cluster: { maxzoom: 17 } } } }, "layers.a.geojson: cluster.maxzoom"],
      [{ cluster: { size: 4 } }, "cluster: unknown setting 'size'"],
      [{ nonsense: 1 }, "'nonsense' is unknown"],
    ] as const) {
      const res = await upload(t, "acme", slug, headers, form([["a.geojson", JSON.stringify(countries())]], recipe));
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toContain(message);
    }
    // A misspelt setting is refused, naming it, rather than building with the default.
    const misspelt = await upload(t, "acme", slug, headers, JSON.stringify(countries()), "?max_zoom=3");
    expect(misspelt.status).toBe(400);
    expect(await errorOf(misspelt)).toMatchObject({ message: expect.stringContaining("Query parameter 'max_zoom' is unknown"), details: { parameter: "max_zoom" } });
    const field = form([["a.geojson", JSON.stringify(countries())]]);
    field.append("max_zoom", "3");
    const misspeltField = await upload(t, "acme", slug, headers, field);
    expect(misspeltField.status).toBe(400);
    expect((await errorOf(misspeltField)).message).toContain("Multipart field 'max_zoom' is unknown; an upload takes layer, minzoom, maxzoom");
    // Nothing half-written is left behind by the refused uploads.
    expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
    // Two files naming the same layer: the version fails and says how to fix it.
    const clash = await upload(t, "acme", slug, headers, form([["a.geojson", JSON.stringify(countries())], ["b.geojson", JSON.stringify(countries())]], { layers: { b: { layer: "a" } } }));
    expect(clash.status).toBe(202);
    const failed = (await waitForVersion(t, "acme", slug, ((await clash.json()) as any).version, headers)) as any;
    expect(failed.state).toBe("failed");
    expect(failed.error).toContain("layer 'a'");
  });
});

describe("generalization", () => {
  test("thinning keeps the highest ranks: one point per 256-pixel cell keeps each tile's most populous city", async () => {
    const towns = await cities(2000);
    // Shuffle so that file order cannot be what picks the survivors.
    towns.features.sort((a, b) => (a.properties!.name < b.properties!.name ? -1 : 1));
    const { slug } = await ready(JSON.stringify(towns), "?rank=population&point_spacing=256&maxzoom=4");
    const top = (inside: (lon: number, lat: number) => boolean) =>
      towns.features.filter((f) => inside(...(f.geometry.coordinates as [number, number]))).sort((a, b) => b.properties!.population - a.properties!.population)[0]!.properties!.name;
    expect(names((await tile(slug, 0, 0, 0))!.layers[slug])).toEqual([top(() => true)]);
    // z1: one per quadrant, the quadrant's own most populous (mercator y: north half is y=0).
    for (const [x, y] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
      const shown = names((await tile(slug, 1, x, y))?.layers[slug]);
      const best = top((lon, lat) => (lon < 0) === (x === 0) && (lat > 0) === (y === 0));
      expect(shown[0]).toBe(best);
    }
    // At maxzoom every city is there.
    expect(countFeatures(slug, 4)).toBe(2000);
  });

  test("the tile byte limit holds on every tile, and what was shed is counted per zoom", async () => {
    const towns = await cities(3000);
    const { slug, v } = await ready(JSON.stringify(towns), "?tile_bytes=2048&point_spacing=0&maxzoom=3");
    const db = new Database(archiveOf(slug), { readonly: true });
    const sizes = db.query<{ n: number }, []>("SELECT length(tile_data) AS n FROM tiles").all().map((r) => r.n);
    db.close();
    expect(sizes.length).toBeGreaterThan(10);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2048);
    expect(Object.keys(v.stats.dropped_by_size).length).toBeGreaterThan(0);
    expect(v.stats.dropped_by_size["0"]).toBeGreaterThan(0);
    expect(v.warnings.join("\n")).toContain("2048-byte limit");
    // The most populous cities survive the shedding of the world tile.
    const kept = names((await tile(slug, 0, 0, 0))!.layers[slug]);
    expect(kept).toContain(towns.features[0]!.properties!.name);
  });

  test("clustering: below cluster.maxzoom dense points become counted clusters whose counts sum to the input", async () => {
    const towns = await cities(2000);
    const recipe = { maxzoom: 4, cluster: { radius: 60, maxzoom: 3 } };
    const { slug, v } = await ready(JSON.stringify(towns), `?recipe=${encodeURIComponent(JSON.stringify(recipe))}`);
    expect(v.stats.features).toBe(2000);
    const tj = (await (await t.fetch(`/tiles/v1/acme/${slug}@1.json`, { headers })).json()) as any;
    expect(tj.vector_layers[0].fields).toMatchObject({ point_count: "Number", point_count_abbreviated: "String", cluster: "Boolean" });
    for (let z = 0; z <= 4; z++) {
      const { features, points, clusters } = pointCounts(slug, z);
      // Every input point is counted once at every zoom: alone, or inside exactly one cluster.
      expect(points).toBe(2000);
      if (z < 3) {
        expect(clusters).toBeGreaterThan(0);
        expect(features).toBeLessThan(2000);
      } else {
        expect(clusters).toBe(0);
        expect(features).toBe(2000);
      }
    }
    const world = (await tile(slug, 0, 0, 0))!.layers[slug]!;
    const biggest = Array.from({ length: world.length }, (_, i) => world.feature(i).properties).sort((a, b) => Number(b.point_count ?? 1) - Number(a.point_count ?? 1))[0]!;
    expect(biggest.cluster).toBe(true);
    expect(Number(biggest.point_count)).toBeGreaterThan(10);
    expect(String(biggest.point_count_abbreviated)).toBe(Number(biggest.point_count) >= 1000 ? `${Math.round(Number(biggest.point_count) / 100) / 10}k` : String(biggest.point_count));
  });

  test("a polygon too small to draw at low zooms still appears at the zooms where it is a few pixels", async () => {
    const field: Feature = { type: "Feature", properties: { name: "field" }, geometry: { type: "Polygon", coordinates: [[[10, 40], [10.1, 40], [10.1, 40.07], [10, 40.07], [10, 40]]] } };
    const { slug, v } = await ready(JSON.stringify({ type: "FeatureCollection", features: [field] }), "?maxzoom=6");
    expect(v.stats.tiles).toBeGreaterThan(0);
    // z6 tile holding 10.05°E 40.03°N: x = 33, y = 24.
    expect(names((await tile(slug, 6, 33, 24))?.layers[slug])).toEqual(["field"]);
  });

  test("a Fiji-like polygon crossing the antimeridian draws on both edges without a band", async () => {
    const fiji: Feature = {
      type: "Feature",
      properties: { name: "Fiji-like" },
      geometry: { type: "Polygon", coordinates: [[[177, -16], [-178, -16], [-178, -19], [177, -19], [177, -16]]] },
    };
    const { slug, v } = await ready(JSON.stringify({ type: "FeatureCollection", features: [fiji] }), "?maxzoom=3");
    expect(v.stats.features_repaired).toBe(1);
    expect(v.warnings.join("\n")).toContain("antimeridian");
    // Zoom 1: the polygon shows in the east tile (x=1) and the west tile (x=0) of the southern row.
    for (const x of [0, 1]) {
      const layer = (await tile(slug, 1, x, 1))!.layers[slug]!;
      expect(layer.length).toBe(1);
      const xs = layer.feature(0).loadGeometry().flat().map((p) => p.x);
      // A band would stretch across the whole tile (0..4096); the real shape is a sliver at one edge.
      expect(Math.max(...xs) - Math.min(...xs)).toBeLessThan(1024);
    }
    // TileJSON bounds cannot wrap, and MapLibre requests no tile outside them: the western part needs
    // the whole band of longitudes. The center is on the polygon (179.5°E), not at 0° between the edges.
    const tj = await (await t.fetch(`/tiles/v1/acme/${slug}@1.json`, { headers })).json();
    expect(tj.bounds).toEqual([-180, -19, 180, -16]);
    expect(tj.center.slice(0, 2)).toEqual([179.5, -17.5]);
  });

  test("GeoJSON feature ids that are unsigned integers reach the tiles (MapLibre's feature state needs them)", async () => {
    const ids: unknown[] = [42, "7", -1, "abc", 1.5, undefined];
    const features = ids.map((id, i) => ({ type: "Feature", ...(id === undefined ? {} : { id }), properties: { name: `f${i}` }, geometry: { type: "Point", coordinates: [-150 + 60 * i, 0] } }));
    const { slug } = await ready(JSON.stringify({ type: "FeatureCollection", features }), "?maxzoom=4");
    const layer = (await tile(slug, 0, 0, 0))!.layers[slug]!;
    const got = Object.fromEntries(Array.from({ length: layer.length }, (_, i) => [layer.feature(i).properties.name, layer.feature(i).id]));
    expect(got).toEqual({ f0: 42, f1: 7, f2: undefined, f3: undefined, f4: undefined, f5: undefined });
  });

  test("MultiPoints are points: the tiny-shape rule for lines and polygons does not hide them at low zooms", async () => {
    const pair: Feature = { type: "Feature", properties: { name: "pair" }, geometry: { type: "MultiPoint", coordinates: [[10, 40], [10.01, 40]] } };
    const { slug } = await ready(JSON.stringify({ type: "FeatureCollection", features: [pair] }), "?maxzoom=6");
    expect(names((await tile(slug, 0, 0, 0))?.layers[slug])).toEqual(["pair"]);
  });
});

function readTileLayers(slug: string, z: number): Set<string> {
  const db = new Database(archiveOf(slug), { readonly: true });
  const out = new Set<string>();
  for (const r of db.query<{ d: Uint8Array<ArrayBuffer> }, [number]>("SELECT tile_data AS d FROM tiles WHERE zoom_level = ?").all(z))
    for (const name of Object.keys(new VectorTile(new PbfReader(Bun.gunzipSync(r.d))).layers)) out.add(name);
  db.close();
  return out;
}

function countFeatures(slug: string, z: number): number {
  const db = new Database(archiveOf(slug), { readonly: true });
  let n = 0;
  for (const r of db.query<{ d: Uint8Array<ArrayBuffer> }, [number]>("SELECT tile_data AS d FROM tiles WHERE zoom_level = ?").all(z))
    for (const layer of Object.values(new VectorTile(new PbfReader(Bun.gunzipSync(r.d))).layers))
      for (let i = 0; i < layer.length; i++) {
        // Only count each point in the tile that really holds it (not copies in neighbours' buffers).
        const p = layer.feature(i).loadGeometry()[0]![0]!;
        if (p.x >= 0 && p.x < layer.extent && p.y >= 0 && p.y < layer.extent) n++;
      }
  db.close();
  return n;
}

/** Features in the tiles of one zoom (each in the tile that holds it), and the points they stand for. */
function pointCounts(slug: string, z: number): { features: number; points: number; clusters: number } {
  const db = new Database(archiveOf(slug), { readonly: true });
  const out = { features: 0, points: 0, clusters: 0 };
  for (const r of db.query<{ d: Uint8Array<ArrayBuffer> }, [number]>("SELECT tile_data AS d FROM tiles WHERE zoom_level = ?").all(z))
    for (const layer of Object.values(new VectorTile(new PbfReader(Bun.gunzipSync(r.d))).layers))
      for (let i = 0; i < layer.length; i++) {
        const f = layer.feature(i);
        const p = f.loadGeometry()[0]![0]!;
        if (p.x < 0 || p.x >= layer.extent || p.y < 0 || p.y >= layer.extent) continue;
        out.features++;
        out.points += Number(f.properties.point_count ?? 1);
        if (f.properties.cluster) out.clusters++;
      }
  db.close();
  return out;
}

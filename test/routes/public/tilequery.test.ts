// The Tilequery API through the app: a known GeoJSON (zones, roads, shops) uploaded as three layers,
// tiled to z12 by the real importer and published; then point-in-polygon, nearest features within a
// radius (distances checked against the haversine over the source coordinates), limit, layers, geometry,
// dedupe across tiles, stable and versioned caching, private tilesets, a raster tileset and bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { FeatureCollection } from "geojson";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { PNG_1x1, createTileset, publish, upload, waitForVersion, writeMbtiles } from "../management/tilesets/fixtures";
import { haversine } from "../../../src/tiles/nearest";
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";

let t: TestApp;
let headers: Record<string, string>;
let mapsKey: string;
let otherKey: string;

// Zone 1 straddles the z12 tile column boundary at lon 10.01953125 (columns 2161 and 2162).
const zones: FeatureCollection = {
  type: "FeatureCollection",
  features: [
    { type: "Feature", id: 1, properties: { name: "Old Town", zone: "A" }, geometry: { type: "Polygon", coordinates: [[[10.0, 50.0], [10.03, 50.0], [10.03, 50.02], [10.0, 50.02], [10.0, 50.0]]] } },
    { type: "Feature", id: 2, properties: { name: "Harbour", zone: "B" }, geometry: { type: "Polygon", coordinates: [[[10.1, 50.1], [10.12, 50.1], [10.12, 50.12], [10.1, 50.12], [10.1, 50.1]]] } },
  ],
};
const roads: FeatureCollection = {
  type: "FeatureCollection",
  features: [{ type: "Feature", id: 20, properties: { name: "Ring Road" }, geometry: { type: "LineString", coordinates: [[10.04, 50.0], [10.04, 50.03]] } }],
};
const SHOPS: [number, string, [number, number]][] = [
  [10, "Bakery", [10.05, 50.01]],
  [11, "Books", [10.055, 50.01]],
  [12, "Cafe", [10.08, 50.01]],
];
const shops: FeatureCollection = {
  type: "FeatureCollection",
  features: SHOPS.map(([id, name, coordinates]) => ({ type: "Feature", id, properties: { name }, geometry: { type: "Point", coordinates } })),
};

function form(files: [string, string][], recipe: Record<string, unknown> = {}) {
  const f = new FormData();
  for (const [name, body] of files) f.append("file", new Blob([body]), name);
  f.append("recipe", JSON.stringify({ maxzoom: 12, simplification: 0, ...recipe }));
  return f;
}

async function ready(slug: string, body: BodyInit, extra: Record<string, unknown> = {}, publishIt = true) {
  await createTileset(t, "acme", headers, { slug, ...extra });
  expect((await upload(t, "acme", slug, headers, body)).status).toBe(202);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as { state: string; error: unknown };
  expect(v.error).toBeNull();
  expect(v.state).toBe("ready");
  if (publishIt) expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
}

const town = (recipe: Record<string, unknown> = {}) => form([["zones.geojson", JSON.stringify(zones)], ["roads.geojson", JSON.stringify(roads)], ["shops.geojson", JSON.stringify(shops)]], recipe);

beforeAll(async () => {
  t = await makeTestApp();
  const orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  mapsKey = seedKey(t.ctx, orgId, ["maps:read"]).secret;
  otherKey = seedKey(t.ctx, orgId, ["geocoding"]).secret;
  await ready("town", town());
  await ready("secret", town(), { visibility: "private" });
  // The shops stop at z10, two zooms below the other layers.
  await ready("layered", town({ layers: { shops: { maxzoom: 10 } } }));
  const raster = join(t.dataDir, "raster.mbtiles");
  writeMbtiles(raster, [[0, 0, 0, PNG_1x1]], { name: "Raster", format: "png", minzoom: "0", maxzoom: "0" });
  await ready("raster", Bun.file(raster));
});
afterAll(() => t.close());

interface Answer {
  type: string;
  features: { type: string; id?: number; geometry: { type: string; coordinates: [number, number] }; properties: Record<string, any> & { tilequery: { distance: number; geometry: string; layer: string } } }[];
}

async function query(path: string, init?: RequestInit): Promise<Answer> {
  const res = await t.fetch(path, init);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Answer;
}

async function refused(path: string, init?: RequestInit) {
  const res = await t.fetch(path, init);
  const body = (await res.json()) as { error: { code: string; message: string; details?: { parameter?: string } } };
  return { status: res.status, ...body.error };
}

/** Metres one z12 tile unit spans at 50°N: how far quantisation may move a vertex (half a unit each way). */
const UNIT_M = ((40_075_016 / 4096 / 4096) * Math.cos((50 * Math.PI) / 180));

describe("GET /tilequery/v1/{owner}/{tileset}/{lon},{lat}.json", () => {
  test("a point inside a polygon finds it at distance 0, with the query point and the polygon's properties", async () => {
    const fc = await query("/tilequery/v1/acme/town/10.005,50.01.json");
    expect(fc.type).toBe("FeatureCollection");
    expect(fc.features).toEqual([
      { type: "Feature", id: 1, geometry: { type: "Point", coordinates: [10.005, 50.01] }, properties: { name: "Old Town", zone: "A", tilequery: { distance: 0, geometry: "polygon", layer: "zones" } } },
    ]);
    // Outside every polygon, with no radius: nothing (points and lines need a radius).
    expect((await query("/tilequery/v1/acme/town/10.05,50.01.json")).features).toEqual([]);
  });

  test("a radius finds the nearest points and lines, sorted by distance, with great-circle distances and closest points", async () => {
    const q: [number, number] = [10.046, 50.01];
    const fc = await query(`/tilequery/v1/acme/town/${q[0]},${q[1]}.json?radius=1000`);
    expect(fc.features.map((f) => [f.id, f.properties.tilequery.layer, f.properties.tilequery.geometry])).toEqual([
      [10, "shops", "point"],
      [20, "roads", "linestring"],
      [11, "shops", "point"],
    ]);
    const expected = [haversine(q, [10.05, 50.01]), haversine(q, [10.04, 50.01]), haversine(q, [10.055, 50.01])];
    fc.features.forEach((f, i) => {
      expect(Math.abs(f.properties.tilequery.distance - expected[i]!)).toBeLessThan(2 * UNIT_M);
      // The distance is the one to the point given.
      expect(Math.abs(haversine(q, f.geometry.coordinates) - f.properties.tilequery.distance)).toBeLessThan(0.05);
    });
    expect(fc.features[0]!.properties.name).toBe("Bakery");
    // The road's closest point is level with the query point.
    expect(fc.features[1]!.geometry.coordinates[0]).toBeCloseTo(10.04, 4);
    expect(fc.features[1]!.geometry.coordinates[1]).toBeCloseTo(50.01, 4);
    // A wider radius reaches the zone's edge 1.9 km away, a wider one still the cafe 2.4 km away, in order.
    const wide = await query(`/tilequery/v1/acme/town/${q[0]},${q[1]}.json?radius=2000`);
    expect(wide.features.map((f) => f.id)).toEqual([10, 20, 11, 1]);
    const more = await query(`/tilequery/v1/acme/town/${q[0]},${q[1]}.json?radius=3000&limit=10`);
    expect(more.features.map((f) => f.id)).toEqual([10, 20, 11, 1, 12]);
    expect(Math.abs(more.features[3]!.properties.tilequery.distance - haversine(q, [10.03, 50.01]))).toBeLessThan(2 * UNIT_M);
    expect(Math.abs(more.features[4]!.properties.tilequery.distance - haversine(q, [10.08, 50.01]))).toBeLessThan(2 * UNIT_M);
  });

  test("limit, layers and geometry narrow the answer", async () => {
    const base = "/tilequery/v1/acme/town/10.046,50.01.json?radius=3000";
    expect((await query(`${base}&limit=2`)).features.map((f) => f.id)).toEqual([10, 20]);
    expect((await query(`${base}&limit=1`)).features.map((f) => f.id)).toEqual([10]);
    expect((await query(`${base}&layers=roads,zones`)).features.map((f) => f.id)).toEqual([20, 1]);
    expect((await query(`${base}&layers=shops&limit=50`)).features.map((f) => f.id)).toEqual([10, 11, 12]);
    expect((await query(`${base}&geometry=linestring`)).features.map((f) => f.id)).toEqual([20]);
    expect((await query(`${base}&geometry=polygon`)).features.map((f) => f.id)).toEqual([1]);
    expect((await query(`${base}&geometry=point&layers=zones`)).features).toEqual([]);
  });

  test("a layer that stops below the tileset's maxzoom is read at its own highest zoom", async () => {
    const layers = ((await (await t.fetch("/tiles/v1/acme/layered.json")).json()) as { vector_layers: { id: string; maxzoom: number }[] }).vector_layers;
    expect(layers.find((l) => l.id === "shops")!.maxzoom).toBe(10);
    const q: [number, number] = [10.046, 50.01];
    const fc = await query(`/tilequery/v1/acme/layered/${q[0]},${q[1]}.json?radius=1000`);
    expect(fc.features.map((f) => f.id)).toEqual([10, 20, 11]);
    // Quantised on z10's coarser grid: four times the z12 unit.
    expect(Math.abs(fc.features[0]!.properties.tilequery.distance - haversine(q, [10.05, 50.01]))).toBeLessThan(8 * UNIT_M);
    expect((await query(`/tilequery/v1/acme/layered/${q[0]},${q[1]}.json?radius=1000&layers=shops`)).features.map((f) => f.id)).toEqual([10, 11]);
  });

  test("dedupe: a polygon split across tiles comes once; dedupe=false gives each tile's copy", async () => {
    // Just west of the tile boundary at lon 10.01953125, inside zone 1: both tiles hold part of it.
    const path = "/tilequery/v1/acme/town/10.0194,50.01.json?radius=100&layers=zones";
    const once = await query(path);
    expect(once.features.map((f) => [f.id, f.properties.tilequery.distance])).toEqual([[1, 0]]);
    expect((await query(`${path}&dedupe=true`)).features).toHaveLength(1);
    const copies = await query(`${path}&dedupe=false`);
    expect(copies.features.map((f) => f.id)).toEqual([1, 1]);
    expect(copies.features[0]!.properties.tilequery.distance).toBe(0);
  });

  test("stable URL: the published version for a minute; versioned URL immutable; CORS open", async () => {
    const stable = await t.fetch("/tilequery/v1/acme/town/10.005,50.01.json", { headers: { origin: "https://app.example.com" } });
    expect(stable.status).toBe(200);
    expect(stable.headers.get("cache-control")).toBe("public, max-age=60");
    expect(stable.headers.get("content-type")).toContain("application/json");
    expect(stable.headers.get("access-control-allow-origin")).toBe("*");
    const versioned = await t.fetch("/tilequery/v1/acme/town@1/10.005,50.01.json");
    expect(versioned.status).toBe(200);
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await versioned.json()).toEqual(await stable.json());
    for (const path of ["/tilequery/v1/acme/town@2/10,50.json", "/tilequery/v1/acme/nope/10,50.json", "/tilequery/v1/nobody/town/10,50.json", "/tilequery/v1/acme/town@0/10,50.json"]) {
      const r = await refused(path);
      expect(r.status).toBe(404);
    }
    expect((await refused("/tilequery/v1/acme/nope/10,50.json")).code).toBe("TILESET_NOT_FOUND");
    const preflight = await t.fetch("/tilequery/v1/acme/town/10,50.json", { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "GET" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect((await t.fetch("/tilequery/v1/acme/town/10,50.json", { method: "POST" })).status).toBe(405);
  });

  test("the stable URL follows a publish; the old version's URL keeps its answer", async () => {
    const renamed = { ...zones, features: zones.features.map((f) => ({ ...f, properties: { ...f.properties, name: `${f.properties!.name} (new)` } })) };
    await ready("moving", form([["zones.geojson", JSON.stringify(zones)]]));
    const names = async (path: string) => (await query(path)).features.map((f) => f.properties.name);
    expect(await names("/tilequery/v1/acme/moving/10.005,50.01.json")).toEqual(["Old Town"]);
    expect((await upload(t, "acme", "moving", headers, form([["zones.geojson", JSON.stringify(renamed)]]))).status).toBe(202);
    expect(((await waitForVersion(t, "acme", "moving", 2, headers)) as { state: string }).state).toBe("ready");
    // Not published yet: the stable URL still answers version 1, version 2 only to the organization.
    expect(await names("/tilequery/v1/acme/moving/10.005,50.01.json")).toEqual(["Old Town"]);
    expect((await refused("/tilequery/v1/acme/moving@2/10.005,50.01.json")).status).toBe(404);
    expect(await names("/tilequery/v1/acme/moving@2/10.005,50.01.json?access_token=" + mapsKey)).toEqual(["Old Town (new)"]);
    expect((await publish(t, "acme", "moving", 2, headers)).status).toBe(200);
    expect(await names("/tilequery/v1/acme/moving/10.005,50.01.json")).toEqual(["Old Town (new)"]);
    expect(await names("/tilequery/v1/acme/moving@1/10.005,50.01.json")).toEqual(["Old Town"]);
  });

  test("a private tileset: 404 as if missing without a key, 200 with a maps:read key (header or access_token) or a member session", async () => {
    const path = "/tilequery/v1/acme/secret/10.005,50.01.json";
    const missing = await refused(path);
    expect(missing.status).toBe(404);
    expect(missing.code).toBe("TILESET_NOT_FOUND");
    expect((await refused("/tilequery/v1/acme/secret@1/10.005,50.01.json")).status).toBe(404);
    expect((await refused(path, { headers: { "x-api-key": otherKey } })).status).toBe(404);
    const withKey = await t.fetch(path, { headers: { "x-api-key": mapsKey } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get("cache-control")).toBe("private");
    expect(((await withKey.json()) as Answer).features.map((f) => f.id)).toEqual([1]);
    expect((await t.fetch(`${path}?access_token=${mapsKey}`)).status).toBe(200);
    expect((await t.fetch(path, { headers })).status).toBe(200);
    // A key that is not one reads as none, as for tiles: the tileset stays hidden.
    expect((await refused(path, { headers: { "x-api-key": "msk_nonsense" } })).status).toBe(404);
  });

  test("a raster tileset is a 400 saying tilequery needs a vector tileset", async () => {
    const r = await refused("/tilequery/v1/acme/raster/10,50.json");
    expect(r.status).toBe(400);
    expect(r.code).toBe("BAD_REQUEST");
    expect(r.message).toContain("vector tileset");
  });

  test("every bad input is a 400 naming the parameter", async () => {
    const cases: [string, string][] = [
      ["/tilequery/v1/acme/town/181,50.json", "lon"],
      ["/tilequery/v1/acme/town/-180.5,50.json", "lon"],
      ["/tilequery/v1/acme/town/abc,50.json", "lon"],
      ["/tilequery/v1/acme/town/10,91.json", "lat"],
      ["/tilequery/v1/acme/town/10,NaN.json", "lat"],
      ["/tilequery/v1/acme/town/10,1e3.json", "lat"],
      ["/tilequery/v1/acme/town/10,.json", "lat"],
      ["/tilequery/v1/acme/town/10.json", "lon,lat"],
      ["/tilequery/v1/acme/town/10,50,3.json", "lon,lat"],
      ["/tilequery/v1/acme/town/10,50", "lon,lat"],
      ["/tilequery/v1/acme/town/10,50.json?radius=-1", "radius"],
      ["/tilequery/v1/acme/town/10,50.json?radius=10001", "radius"],
      ["/tilequery/v1/acme/town/10,50.json?radius=far", "radius"],
      ["/tilequery/v1/acme/town/10,50.json?radius=", "radius"],
      ["/tilequery/v1/acme/town/10,50.json?limit=0", "limit"],
      ["/tilequery/v1/acme/town/10,50.json?limit=51", "limit"],
      ["/tilequery/v1/acme/town/10,50.json?limit=2.5", "limit"],
      ["/tilequery/v1/acme/town/10,50.json?dedupe=yes", "dedupe"],
      ["/tilequery/v1/acme/town/10,50.json?geometry=multipolygon", "geometry"],
      ["/tilequery/v1/acme/town/10,50.json?layers=", "layers"],
      ["/tilequery/v1/acme/town/10,50.json?layers=roads,,zones", "layers"],
      ["/tilequery/v1/acme/town/10,50.json?limit=1&limit=2", "limit"],
      ["/tilequery/v1/acme/town/10,50.json?radius=5&radius=5", "radius"],
    ];
    for (const [path, parameter] of cases) {
      const r = await refused(path);
      expect([path, r.status, r.code, r.details?.parameter]).toEqual([path, 400, "BAD_REQUEST", parameter]);
      expect(r.message).toContain(parameter === "lon,lat" ? "{lon},{lat}" : parameter);
    }
    const unknown = await refused("/tilequery/v1/acme/town/10,50.json?layers=roads,rivers");
    expect([unknown.status, unknown.details?.parameter]).toEqual([400, "layers"]);
    expect(unknown.message).toContain("'rivers'");
    for (const layer of ["zones", "roads", "shops"]) expect(unknown.message).toContain(`'${layer}'`);
  });

  test("odd but valid points answer 200 (poles, the antimeridian, the widest radius); odd URLs are 4xx, never a 500", async () => {
    for (const path of [
      "/tilequery/v1/acme/town/180,90.json?radius=10000&limit=50",
      "/tilequery/v1/acme/town/-180,-90.json?radius=10000",
      "/tilequery/v1/acme/town/179.9999,0.json?radius=10000",
      "/tilequery/v1/acme/town/10.046,50.01.json?radius=10000&limit=50&dedupe=false",
      "/tilequery/v1/acme/town/+10.0,-0.json",
      "/tilequery/v1/acme/town/10,50.json?unknown=1",
    ]) {
      const res = await t.fetch(path);
      expect([path, res.status]).toEqual([path, 200]);
    }
    const all = await query("/tilequery/v1/acme/town/10.046,50.01.json?radius=10000&limit=50");
    // The harbour's nearest corner is 10.4 km away: past the widest radius.
    expect(all.features.map((f) => f.id)).toEqual([10, 20, 11, 1, 12]);
    expect((await query("/tilequery/v1/acme/town/10.07,50.06.json?radius=10000&layers=zones")).features.map((f) => f.id)).toEqual([2, 1]);
    for (const path of [
      `/tilequery/v1/acme/town/${"1".repeat(300)},50.json`,
      "/tilequery/v1/acme/town/%ZZ,50.json",
      "/tilequery/v1/acme/town/10,50.json?layers=%F0%9F%97%BA",
      "/tilequery/v1/acme/town/10,50.json?layers=%ZZ",
      "/tilequery/v1/acme/town/10,50.json?limit=%00",
      `/tilequery/v1/acme/${"a".repeat(400)}/10,50.json`,
      "/tilequery/v1/acme/town@1@2/10,50.json",
    ]) {
      const res = await t.fetch(path);
      expect([path, res.status >= 400 && res.status < 500]).toEqual([path, true]);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBeTruthy();
    }
  });

  test("a tileset holding only z24 (or z30) answers a 10 km radius at once: only the tiles nearest the point are listed and read", async () => {
    // A shop at the point, in the one z24 tile holding it; the archive declares z24 (then z30) only.
    const [lon, lat] = [10.05, 50.01];
    for (const z of [24, 30]) {
      const n = 2 ** z;
      const x = Math.floor(((lon + 180) / 360) * n);
      const r = (lat * Math.PI) / 180;
      const y = Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
      // geojson-vt stops at z24: the z30 archive holds the z24 tile's bytes, whose shop then lies inside the z30 tile.
      const z24 = (v: number) => Math.floor(v / 2 ** (z - 24));
      const index = new GeoJSONVT(shops as never, { maxZoom: 24, indexMaxZoom: 0 });
      const tile = Bun.gzipSync(fromGeojsonVt({ shops: index.getTile(24, z24(x), z24(y))! }) as Uint8Array<ArrayBuffer>);
      const path = join(t.dataDir, `deep${z}.mbtiles`);
      writeMbtiles(path, [[z, x, y, tile]], { name: "Deep", format: "pbf", minzoom: String(z), maxzoom: String(z), json: JSON.stringify({ vector_layers: [{ id: "shops", fields: {} }] }) });
      await ready(`deep${z}`, Bun.file(path));
      const started = performance.now();
      const res = await t.fetch(`/tilequery/v1/acme/deep${z}/${lon},${lat}.json?radius=10000&limit=1`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as Answer).features.map((f) => f.properties.name)).toEqual(["Bakery"]);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  }, 60_000);
});

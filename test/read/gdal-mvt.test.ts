// Vector tiles through GDAL's MVT driver, as QGIS's "Add Vector Layer" and ogr2ogr reach them: one tile
// by its URL, and a whole zoom level of a tileset version (GDAL finds the version's TileJSON beside the
// tiles as it does tileserver-gl's, and takes layers, fields and bounds from it), gzip as served, and a
// private tileset with the key in a header. Layer names, fields, feature counts and where the features
// land must be right.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { FeatureCollection, MultiPoint, Point } from "geojson";
import { serveTestApp, tempDir, type TestApp } from "../support/app";
import { seedKey, seedOrg, seedSession } from "../support/seed";
import { gdal, gdalOk, mercator } from "../support/gdal";
import { cities, countries, createTileset, publish, upload, waitForVersion } from "../routes/management/tilesets/fixtures";

let t: TestApp;
let orgId: number;
const dir = tempDir("mapstead-gdal-mvt-");

async function publishedTileset(headers: Record<string, string>, slug: string, body: string, visibility: "public" | "private" = "public") {
  await createTileset(t, "acme", headers, { slug, visibility });
  await upload(t, "acme", slug, headers, body, `?maxzoom=4&layer=${slug}`);
  expect(((await waitForVersion(t, "acme", slug, 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
}

beforeAll(async () => {
  t = await serveTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  const { headers } = await seedSession(t.ctx, { orgId });
  await publishedTileset(headers, "countries", JSON.stringify(countries()));
  await publishedTileset(headers, "cities", JSON.stringify(await cities(300)));
  await publishedTileset(headers, "hidden", JSON.stringify(await cities(20)), "private");
}, 60_000);
afterAll(() => t?.close());

/** ogrinfo's summary of every layer: name, geometry type, feature count, extent and fields. */
async function summary(source: string, args: string[] = [], env: Record<string, string> = {}) {
  const out = await gdalOk("ogrinfo", ["-ro", "-al", "-so", source, ...args], env);
  const layers = [...out.matchAll(/^Layer name: (.+)$/gm)].map((m) => m[1]);
  const extent = /^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)$/m.exec(out)?.slice(1).map(Number);
  const fields = Object.fromEntries([...out.matchAll(/^(\w+): (String|Real|Integer|Integer64) \(/gm)].map((m) => [m[1], m[2]]));
  const count = Number(/^Feature Count: (\d+)$/m.exec(out)?.[1]);
  const geometry = /^Geometry: (.+)$/m.exec(out)?.[1];
  return { out, layers, extent, fields, count, geometry };
}

/** The features of a source as GeoJSON in lon/lat (ogr2ogr -t_srs EPSG:4326). */
async function features(source: string, name: string, args: string[] = [], env: Record<string, string> = {}) {
  const out = join(dir, `${name}.geojson`);
  // No -skipfailures: a tileset read asks for one column and row past the east and south bounds, and
  // ogr2ogr exits 1 unless those answer 204 (empty) rather than 404.
  await gdalOk("ogr2ogr", ["-f", "GeoJSON", "-t_srs", "EPSG:4326", out, source, ...args], env);
  return (await Bun.file(out).json()) as FeatureCollection;
}

const HALF = 20037508.342789244;

describe("one tile", () => {
  test("ogrinfo MVT:{tile URL}: the layer, its fields and its polygons, georeferenced as tile 1/1/0; gzip asked for and sent", async () => {
    const verbose = { CPL_DEBUG: "ON", CPL_CURL_VERBOSE: "YES" };
    const r = await gdal("ogrinfo", ["-ro", "-al", "-so", `MVT:${t.baseUrl}/tiles/v1/acme/countries@1/1/1/0.mvt`], verbose);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^Accept-Encoding: gzip/im);
    expect(r.stderr).toMatch(/Content-Encoding: gzip/i);
    expect(r.stdout).toContain("Layer name: countries");
    expect(r.stdout).toContain("Geometry: Multi Polygon");
    expect(r.stdout).toMatch(/^name: String/m);
    // Clipped to the tile: the north-east quarter of the Web Mercator square.
    const extent = /^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)$/m.exec(r.stdout)!.slice(1).map(Number);
    expect(extent[0]).toBeGreaterThanOrEqual(-1);
    expect(extent[1]).toBeGreaterThanOrEqual(-1);
    expect(extent[2]).toBeCloseTo(HALF, 0);
    expect(extent[3]).toBeGreaterThan(HALF * 0.8);
    expect(Number(/^Feature Count: (\d+)$/m.exec(r.stdout)![1])).toBeGreaterThan(50);
  });

  test("a point lands where the city is", async () => {
    // 4/8/5 holds Paris (2.35°E 48.86°N).
    const fc = (await features(`MVT:${t.baseUrl}/tiles/v1/acme/cities@1/4/8/5.mvt`, "tile-paris", ["-where", "name = 'Paris'"])) as FeatureCollection<Point>;
    expect(fc.features).toHaveLength(1);
    const [lon, lat] = fc.features[0]!.geometry.coordinates;
    expect(lon).toBeCloseTo(2.35, 1);
    expect(lat).toBeCloseTo(48.86, 1);
    expect(fc.features[0]!.properties).toMatchObject({ name: "Paris", country: "FR" });
  });
});

describe("a zoom level of a tileset version", () => {
  test("MVT:{base}/tiles/v1/{owner}/{tileset}@{v}/{z}: layers, fields and extent from the version's TileJSON", async () => {
    const s = await summary(`MVT:${t.baseUrl}/tiles/v1/acme/cities@1/4`, ["-oo", "TILE_EXTENSION=mvt"]);
    expect(s.layers).toEqual(["cities"]);
    expect(s.fields).toEqual({ mvt_id: "Integer64", name: "String", country: "String", population: "Real" });
    // The geometry type, from the TileJSON's tilestats (without them: "Unknown (any)").
    expect(s.geometry).toBe("Multi Point");
    const tilejson = (await (await t.fetch("/tiles/v1/acme/cities@1.json")).json()) as { bounds: [number, number, number, number] };
    const [w, south] = mercator(tilejson.bounds[0], tilejson.bounds[1]);
    const [e, north] = mercator(tilejson.bounds[2], tilejson.bounds[3]);
    expect(s.extent![0]).toBeCloseTo(w, 0);
    expect(s.extent![1]).toBeCloseTo(south, 0);
    expect(s.extent![2]).toBeCloseTo(e, 0);
    expect(s.extent![3]).toBeCloseTo(north, 0);
  });

  test("ogr2ogr of the whole level: every city once, in place, with its attributes", async () => {
    // A layer typed Point by its tilestats comes out as MultiPoint, as GDAL reads tippecanoe's tilesets.
    const fc = (await features(`MVT:${t.baseUrl}/tiles/v1/acme/cities@1/4`, "level-cities", ["-oo", "TILE_EXTENSION=mvt"])) as FeatureCollection<MultiPoint>;
    expect(fc.features).toHaveLength(300);
    const input = await cities(300);
    const tokyo = input.features.find((f) => f.properties!.name === "Tokyo")!;
    const got = fc.features.find((f) => f.properties!.name === "Tokyo")!;
    expect(got.properties).toMatchObject({ country: "JP", population: tokyo.properties!.population });
    expect(got.geometry.type).toBe("MultiPoint");
    expect(got.geometry.coordinates[0]![0]).toBeCloseTo(tokyo.geometry.coordinates[0]!, 1);
    expect(got.geometry.coordinates[0]![1]).toBeCloseTo(tokyo.geometry.coordinates[1]!, 1);
  });

  test("polygons: the countries layer at zoom 2, France around Paris", async () => {
    const fc = await features(`MVT:${t.baseUrl}/tiles/v1/acme/countries@1/2`, "level-countries", ["-oo", "TILE_EXTENSION=mvt", "-where", "name = 'France'"]);
    expect(fc.features.length).toBeGreaterThan(0);
    expect(fc.features.every((f) => f.geometry.type === "Polygon" || f.geometry.type === "MultiPolygon")).toBe(true);
    // Paris is inside one of France's pieces (a tile-clipped ring box is enough to tell the place).
    const boxes = fc.features.flatMap((f) => {
      const polys = f.geometry.type === "Polygon" ? [f.geometry.coordinates] : (f.geometry as { coordinates: number[][][][] }).coordinates;
      return polys.map((p) => {
        const xs = p[0]!.map((c) => c[0]!);
        const ys = p[0]!.map((c) => c[1]!);
        return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
      });
    });
    expect(boxes.some(([w, s, e, n]) => w! < 2.35 && e! > 2.35 && s! < 48.86 && n! > 48.86)).toBe(true);
  });

  test("a private tileset: nothing without a key; with X-API-Key in GDAL_HTTP_HEADERS, its layer and features", async () => {
    const source = `MVT:${t.baseUrl}/tiles/v1/acme/hidden@1/4`;
    const anon = await gdal("ogrinfo", ["-ro", "-al", "-so", source, "-oo", "TILE_EXTENSION=mvt"]);
    expect(anon.stdout).not.toContain("Layer name: hidden");
    const key = seedKey(t.ctx, orgId, ["maps:read"]).secret;
    const env = { GDAL_HTTP_HEADERS: `X-API-Key: ${key}` };
    expect((await summary(source, ["-oo", "TILE_EXTENSION=mvt"], env)).layers).toEqual(["hidden"]);
    expect((await features(source, "hidden", ["-oo", "TILE_EXTENSION=mvt"], env)).features).toHaveLength(20);
  });
});

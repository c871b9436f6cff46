// One rule for the coordinate system of every format: longitude/latitude on a datum within a metre
// or two of WGS84 (ETRS89, GDA94, NAD83 ...) reads as WGS84 whether it comes as Shapefile, GeoPackage
// or FlatGeobuf (or GeoJSON with GDAL's "crs" member), and Web Mercator data reaching the antimeridian
// keeps those features. The inputs are written by ogr2ogr, as a user's would be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import type { TestApp } from "../../../support/app";
import { tempDir } from "../../../support/temp";
import { acmeApp, createTileset, upload, uploadReady, waitForVersion } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let slugs = 0;
beforeAll(async () => ({ t, headers } = await acmeApp()));
afterAll(() => t?.close());

const CSV = "name,lon,lat\nBern,7.45,46.95\nSuva,178.44,-18.14\nEdge,180,-16.5\nWest,-180,65\n";

/** ogr2ogr's output for the CSV above in `srs` (assigned with -a_srs, or reprojected with -t_srs). */
const FORMATS = ["ESRI Shapefile", "GPKG", "FlatGeobuf", "GeoJSON"] as const;

function ogr(format: (typeof FORMATS)[number], srs: string, how: "-a_srs" | "-t_srs"): Uint8Array<ArrayBuffer> {
  const dir = tempDir();
  writeFileSync(join(dir, "places.csv"), CSV);
  const out = { "ESRI Shapefile": "places.shp", GPKG: "places.gpkg", FlatGeobuf: "places.fgb", GeoJSON: "places.geojson" }[format];
  const args = ["ogr2ogr", "-f", format, ...(how === "-t_srs" ? ["-s_srs", "EPSG:4326"] : []), how, srs, "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", out, "places.csv"];
  const run = Bun.spawnSync(args, { cwd: dir });
  expect(run.exitCode).toBe(0);
  if (format !== "ESRI Shapefile") return new Uint8Array(readFileSync(join(dir, out)));
  const files = Object.fromEntries(readdirSync(dir).filter((f) => f.startsWith("places.") && !f.endsWith(".csv")).map((f) => [f, new Uint8Array(readFileSync(join(dir, f)))]));
  return zipSync(files) as Uint8Array<ArrayBuffer>;
}

describe.skipIf(!Bun.which("ogr2ogr"))("coordinate systems", () => {
  for (const srs of ["EPSG:4258", "EPSG:4283", "EPSG:4269"])
    test(`${srs} longitude/latitude reads as WGS84 in every format`, async () => {
      for (const format of FORMATS) {
        const { v } = await uploadReady(t, headers, `datum-${++slugs}`, ogr(format, srs, "-a_srs"));
        expect(v.stats.features).toBe(4);
        expect(v.stats.features_skipped).toBe(0);
        expect(v.bounds[0]).toBeCloseTo(-180, 5);
        expect(v.bounds[3]).toBeCloseTo(65, 5);
      }
    });

  test("Web Mercator reaching the antimeridian keeps its features in every format", async () => {
    for (const format of FORMATS) {
      const { v } = await uploadReady(t, headers, `mercator-${++slugs}`, ogr(format, "EPSG:3857", "-t_srs"));
      expect(v.stats.features_skipped).toBe(0);
      expect(v.stats.features).toBe(4);
      // Read as metres, Bern would be far outside the world; unprojected it is where the CSV put it.
      expect(v.bounds[0]).toBeCloseTo(-180, 5);
      expect(v.bounds[3]).toBeCloseTo(65, 4);
    }
  });

  test("GeoJSON whose crs member names another system is refused at upload, naming it", async () => {
    const geojson = ogr("GeoJSON", "EPSG:2056", "-t_srs");
    expect(new TextDecoder().decode(geojson)).toContain('"crs"');
    const slug = `crs-${++slugs}`;
    await createTileset(t, "acme", headers, { slug });
    const res = await upload(t, "acme", slug, headers, geojson);
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("INVALID_SOURCE_DATA");
    expect(error.message).toContain("EPSG::2056");
    expect(error.message).toContain("EPSG:4326");
    // Beyond the head the upload is looked at, the reader refuses it alike: the version fails naming it.
    const late = ' '.repeat(70_000);
    const padded = new TextDecoder().decode(geojson).replace('"crs"', `${late}"crs"`);
    const v = await failedWith(padded);
    expect(v.error).toContain("EPSG::2056");
  });
});

async function failedWith(body: BodyInit) {
  const slug = `crs-${++slugs}`;
  await createTileset(t, "acme", headers, { slug });
  expect((await upload(t, "acme", slug, headers, body)).status).toBe(202);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
  expect(v.state).toBe("failed");
  return v;
}

describe("the GeoJSON crs member, written by hand", () => {
  const point = (x: number, y: number) => ({ type: "Feature", geometry: { type: "Point", coordinates: [x, y] }, properties: {} });
  const mercatorCrs = { type: "name", properties: { name: "urn:ogc:def:crs:EPSG::3857" } };

  test("CRS84 and EPSG:4326 in its legacy forms read as they are", async () => {
    for (const crs of [{ type: "name", properties: { name: "urn:ogc:def:crs:OGC:1.3:CRS84" } }, { type: "EPSG", properties: { code: 4326 } }]) {
      const { v } = await uploadReady(t, headers, `crs-${++slugs}`, JSON.stringify({ type: "FeatureCollection", crs, features: [point(7.45, 46.95)] }));
      expect(v.bounds[0]).toBeCloseTo(7.45, 5);
    }
  });

  test("a single Feature in Web Mercator is unprojected, on one line (read as NDJSON) or laid out", async () => {
    for (const indent of [undefined, 2]) {
      const { v } = await uploadReady(t, headers, `crs-${++slugs}`, JSON.stringify({ ...point(829_330.2, 5_933_916.6), crs: mercatorCrs }, null, indent));
      expect(v.bounds[0]).toBeCloseTo(7.45, 5);
      expect(v.bounds[1]).toBeCloseTo(46.95, 5);
    }
  });

  test("Web Mercator named after the features began fails, saying to put crs first; a link is not followed", async () => {
    const late = await failedWith(JSON.stringify({ type: "FeatureCollection", features: [point(829_330.2, 5_933_916.6)], crs: mercatorCrs }));
    expect(late.error).toContain('put "crs" before "features"');
    const link = await failedWith(JSON.stringify({ type: "FeatureCollection", crs: { type: "link", properties: { href: "http://example.com/crs" } }, features: [point(1, 1)] }));
    expect(link.error).toContain("is not read here");
  });
});

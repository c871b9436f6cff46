// One rule for the coordinate system of every format: longitude/latitude on a datum within a metre
// or two of WGS84 (ETRS89, GDA94, NAD83 ...) reads as WGS84 whether it comes as Shapefile, GeoPackage
// or FlatGeobuf, and Web Mercator data reaching the antimeridian keeps those features. The inputs are
// written by ogr2ogr, as a user's would be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import type { TestApp } from "../../../support/app";
import { tempDir } from "../../../support/temp";
import { acmeApp, uploadReady } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let slugs = 0;
beforeAll(async () => ({ t, headers } = await acmeApp()));
afterAll(() => t?.close());

const CSV = "name,lon,lat\nBern,7.45,46.95\nSuva,178.44,-18.14\nEdge,180,-16.5\nWest,-180,65\n";

/** ogr2ogr's output for the CSV above in `srs` (assigned with -a_srs, or reprojected with -t_srs). */
function ogr(format: "ESRI Shapefile" | "GPKG" | "FlatGeobuf", srs: string, how: "-a_srs" | "-t_srs"): Uint8Array<ArrayBuffer> {
  const dir = tempDir();
  writeFileSync(join(dir, "places.csv"), CSV);
  const out = { "ESRI Shapefile": "places.shp", GPKG: "places.gpkg", FlatGeobuf: "places.fgb" }[format];
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
      for (const format of ["ESRI Shapefile", "GPKG", "FlatGeobuf"] as const) {
        const { v } = await uploadReady(t, headers, `datum-${++slugs}`, ogr(format, srs, "-a_srs"));
        expect(v.stats.features).toBe(4);
        expect(v.stats.features_skipped).toBe(0);
        expect(v.bounds[0]).toBeCloseTo(-180, 5);
        expect(v.bounds[3]).toBeCloseTo(65, 5);
      }
    });

  test("Web Mercator reaching the antimeridian keeps its features in every format", async () => {
    for (const format of ["ESRI Shapefile", "GPKG", "FlatGeobuf"] as const) {
      const { v } = await uploadReady(t, headers, `mercator-${++slugs}`, ogr(format, "EPSG:3857", "-t_srs"));
      expect(v.stats.features_skipped).toBe(0);
      expect(v.stats.features).toBe(4);
    }
  });
});

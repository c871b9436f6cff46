// The MBTiles files Mapstead makes, opened by GDAL as QGIS opens a dropped .mbtiles: a vector version's
// archive in DATA_DIR (the tiler's), the MBTiles `tilesets export` writes from a PMTiles version, and a
// raster-DEM version built from .hgt. Metadata (name, format, bounds, zooms, the `json` vector_layers),
// layers, fields, feature counts and georeferencing must come out as GDAL's MBTiles driver reads them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { gdalOk, mercator } from "../../../support/gdal";
import { hgtBytes, ramp } from "../../../support/dem";
import { exportArchive } from "../../../../src/tiles/export";
import { encodeDemTile } from "../../../../src/tiles/dem/encoding";
import { inspectMbtiles } from "../../../../src/tiles/mbtiles";
import { inspectPmtiles } from "../../../../src/tiles/pmtiles";
import { cities, createTileset, pmtiles, upload, waitForVersion } from "./fixtures";

let t: TestApp;
let org: ReturnType<typeof seedOrg>;
const dir = tempDir("mapstead-gdal-mbtiles-");

async function ready(headers: Record<string, string>, slug: string, body: BodyInit | Uint8Array, query: string) {
  await createTileset(t, "acme", headers, { slug, name: slug === "alps" ? "Alps" : `Towns (${slug})`, attribution: "© Test Atlas" });
  await upload(t, "acme", slug, headers, body, query);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as { state: string; error?: string };
  expect(v.error ?? null).toBeNull();
  expect(v.state).toBe("ready");
}

beforeAll(async () => {
  t = await makeTestApp();
  org = seedOrg(t.ctx, "acme");
  const { headers } = await seedSession(t.ctx, { orgId: org.id });
  const towns = JSON.stringify(await cities(300));
  await ready(headers, "towns", towns, "?maxzoom=4&layer=cities");
  await ready(headers, "towns-pm", towns, "?maxzoom=4&layer=cities&output=pmtiles");
  await ready(headers, "alps", hgtBytes(121, { lon: 7, lat: 46 }, ramp), "?filename=N46E007.hgt&maxzoom=9");
  // A DEM kept as the PMTiles it was uploaded as: one Terrarium tile of the whole world at 321 m.
  const flat = encodeDemTile(new Float32Array(256 * 256).fill(321), 256, "terrarium");
  await ready(headers, "flat", pmtiles([[0, 0, 0, flat]], { tileType: 2, tileCompression: 1, metadata: { name: "flat" }, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 0 }), "?encoding=terrarium");
}, 60_000);
afterAll(() => t?.close());

const archive = (slug: string) => t.services.tilesets.archiveOf(org as never, slug, 1);

/** What ogrinfo says of a vector MBTiles (GDAL 3.6's ogrinfo has no -json: parsed from its text). */
async function vectorMbtiles(path: string) {
  const text = await gdalOk("ogrinfo", ["-ro", "-al", "-so", path]);
  // The dataset's metadata block: "Metadata:" then "  key=value" lines.
  const block = /^Metadata:\n((?: {2}.+\n)+)/m.exec(text)?.[1] ?? "";
  const meta: Record<string, string> = Object.fromEntries(block.split("\n").filter(Boolean).map((l) => [l.trim().split("=")[0]!, l.trim().slice(l.trim().indexOf("=") + 1)]));
  const extent = /^Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)$/m.exec(text)!.slice(1).map(Number);
  return {
    text,
    meta,
    layers: [...text.matchAll(/^Layer name: (.+)$/gm)].map((m) => m[1]),
    fields: Object.fromEntries([...text.matchAll(/^(\w+): (String|Real|Integer|Integer64) \(/gm)].map((m) => [m[1], m[2]])),
    geometry: /^Geometry: (.+)$/m.exec(text)?.[1],
    extent,
  };
}

/** Every feature of the MBTiles' deepest zoom as GeoJSON in lon/lat. */
async function featuresOf(path: string, name: string) {
  const out = join(dir, `${name}.geojson`);
  await gdalOk("ogr2ogr", ["-f", "GeoJSON", "-t_srs", "EPSG:4326", out, path]);
  return (await Bun.file(out).json()) as { features: { properties: Record<string, unknown>; geometry: { type: string; coordinates: number[][] } }[] };
}

async function expectTownsMbtiles(path: string, name: string, title: string, facts: { bounds: number[] }) {
  const m = await vectorMbtiles(path);
  expect(m.text).toContain("using driver `MBTiles' successful");
  expect(m.meta).toMatchObject({ name: title, format: "pbf", minzoom: "0", maxzoom: "4", attribution: "© Test Atlas", ZOOM_LEVEL: "4" });
  const bounds = m.meta.bounds!.split(",").map(Number);
  expect(bounds).toEqual(facts.bounds);
  // GDAL lists a vector MBTiles' layers, and their fields, only from the `json` metadata's vector_layers.
  expect(m.layers).toEqual(["cities"]);
  expect(m.fields).toEqual({ mvt_id: "Integer64", name: "String", country: "String", population: "Real" });
  // Its geometry type, from the `json` metadata's tilestats (without them: "Unknown (any)").
  expect(m.geometry).toBe("Multi Point");
  // The layer's extent is the metadata bounds, in Web Mercator.
  const [w, s] = mercator(bounds[0]!, bounds[1]!);
  const [e, n] = mercator(bounds[2]!, bounds[3]!);
  expect(m.extent[0]).toBeCloseTo(w, 0);
  expect(m.extent[1]).toBeCloseTo(s, 0);
  expect(m.extent[2]).toBeCloseTo(e, 0);
  expect(m.extent[3]).toBeCloseTo(n, 0);
  const fc = await featuresOf(path, name);
  expect(fc.features).toHaveLength(300);
  const paris = fc.features.find((f) => f.properties.name === "Paris")!;
  expect(paris.properties.country).toBe("FR");
  // Typed Point by the tilestats, the layer's features come out as MultiPoint (as tippecanoe's do).
  expect(paris.geometry.type).toBe("MultiPoint");
  expect(paris.geometry.coordinates[0]![0]).toBeCloseTo(2.35, 1);
  expect(paris.geometry.coordinates[0]![1]).toBeCloseTo(48.86, 1);
}

describe("vector", () => {
  test("a version's archive in DATA_DIR, as the tiler wrote it", async () => {
    const a = archive("towns");
    expect(a.format).toBe("mbtiles");
    expect(a.path.startsWith(t.dataDir)).toBe(true);
    await expectTownsMbtiles(a.path, "archive", "Towns (towns)", a.facts);
  });

  test("`tilesets export` of a PMTiles version to MBTiles", async () => {
    const a = archive("towns-pm");
    expect(a.format).toBe("pmtiles");
    const out = join(dir, "towns.mbtiles");
    expect(await exportArchive(a, out, "mbtiles")).toBeGreaterThan(10);
    await expectTownsMbtiles(out, "export", "Towns (towns-pm)", a.facts);
  });
});

describe("raster-DEM", () => {
  test("gdalinfo: georeferenced at the DEM's bounds, its metadata, and a pixel that decodes to the height there", async () => {
    const path = archive("alps").path;
    const info = JSON.parse(await gdalOk("gdalinfo", ["-json", path])) as { size: [number, number]; geoTransform: number[]; metadata: { "": Record<string, string> }; bands: unknown[] };
    expect(info.metadata[""]).toMatchObject({ name: "Alps", format: "png", encoding: "terrarium", minzoom: "0", maxzoom: "9", bounds: "7,46,8,47", ZOOM_LEVEL: "9" });
    expect(info.bands).toHaveLength(4);
    // Zoom 9 of 256 px tiles: 305.7 m a pixel, the top-left corner at 7°E 47°N.
    const [x0, dx, , y0, , dy] = info.geoTransform as [number, number, number, number, number, number];
    expect(dx).toBeCloseTo((2 * 20037508.342789244) / (256 * 2 ** 9), 6);
    expect(dy).toBeCloseTo(-dx, 6);
    const [w, n] = mercator(7, 47);
    const [e, s] = mercator(8, 46);
    expect(Math.abs(x0 - w)).toBeLessThan(dx);
    expect(Math.abs(y0 - n)).toBeLessThan(dx);
    expect(Math.abs(x0 + dx * info.size[0] - e)).toBeLessThan(dx);
    expect(Math.abs(y0 + dy * info.size[1] - s)).toBeLessThan(dx);
    // gdallocationinfo at 7.5°E 46.5°N: the RGB there is the Terrarium encoding of the ramp's height.
    const out = await gdalOk("gdallocationinfo", ["-valonly", "-wgs84", path, "7.5", "46.5"]);
    const [r, g, b] = out.trim().split("\n").map(Number);
    const height = r! * 256 + g! + b! / 256 - 32768;
    expect(Math.abs(height - ramp(7.5, 46.5))).toBeLessThan(5);
  });

  test("`tilesets export` of a DEM keeps its encoding: gdalinfo shows it in the MBTiles of a PMTiles DEM, which imports again as that DEM, and the other way round", async () => {
    const a = archive("flat");
    expect(a.format).toBe("pmtiles");
    const out = join(dir, "flat.mbtiles");
    expect(await exportArchive(a, out, "mbtiles")).toBe(1);
    const info = JSON.parse(await gdalOk("gdalinfo", ["-json", out])) as { size: [number, number]; metadata: { "": Record<string, string> } };
    expect(info.size[0]).toBe(256); // the whole world across one 256 px tile
    // Without `encoding` the heights read as a picture: Mapstead itself (and TileServer GL) take the file for
    // plain PNG tiles, or guess Terrain-RGB.
    expect(info.metadata[""]).toMatchObject({ name: "flat", format: "png", encoding: "terrarium", minzoom: "0", maxzoom: "0" });
    expect(inspectMbtiles(out, "flat.mbtiles").facts.encoding).toBe("terrarium");
    // And the other way: an MBTiles DEM exported as PMTiles.
    const pm = join(dir, "alps.pmtiles");
    await exportArchive(archive("alps"), pm, "pmtiles");
    expect((await inspectPmtiles(pm, "alps.pmtiles")).facts.encoding).toBe("terrarium");
  });
});

// Raster-DEM tilesets over HTTP: Terrarium and Terrain-RGB archives imported (by recipe `encoding` or
// their own metadata), DEMs built from .hgt, zipped .hgt and GeoTIFF in the worker, the TileJSON that
// tells MapLibre the encoding, styles with a raster-dem source, and bad inputs refused with a reason.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeArrayBuffer } from "geotiff";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { demMbtiles, demWebpMbtiles, encodeDemTileWebp, geotiffBytes, hgtBytes, lonLatOfPixel, ramp } from "../../../support/dem";
import { decodeDemTile, encodeDemTile } from "../../../../src/tiles/dem/encoding";
import { PNG_1x1, createTileset, pmtiles, publish, upload, vectorTiles, waitForVersion, writeMbtiles, cities } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let counter = 0;
const dir = tempDir("dem-fixtures-");
const ALPS: [number, number, number, number] = [7, 46, 8, 47];

beforeAll(async () => {
  t = await makeTestApp();
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
});
afterAll(() => t.close());

async function importInto(body: BodyInit | Uint8Array, query = "", extra: Record<string, string> = {}) {
  const slug = `dem-${++counter}`;
  await createTileset(t, "acme", headers, { slug, attribution: "Test DEM" });
  const res = await upload(t, "acme", slug, { ...headers, ...extra }, body, query);
  return { slug, res };
}

async function importReady(body: BodyInit | Uint8Array, query = "") {
  const { slug, res } = await importInto(body, query);
  expect(res.status).toBe(202);
  const v = await waitForVersion(t, "acme", slug, 1, headers);
  expect(v.error ?? null).toBeNull();
  expect(v.state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
  return { slug, version: v as Record<string, unknown> };
}

async function tilejson(slug: string) {
  const res = await t.fetch(`/tiles/v1/acme/${slug}.json`);
  expect(res.status).toBe(200);
  return res.json();
}

function mbtilesFile(encoding: "terrarium" | "mapbox", declare = false): Uint8Array {
  const path = join(dir, `${encoding}-${declare}-${++counter}.mbtiles`);
  demMbtiles(path, encoding, 8, ALPS, ramp, { declareEncoding: declare });
  return new Uint8Array(readFileSync(path));
}

describe("importing DEM archives", () => {
  test("a Terrarium MBTiles with ?encoding=terrarium becomes a DEM: version, TileJSON and PNG tiles say so", async () => {
    const { slug, version } = await importReady(mbtilesFile("terrarium"), "?encoding=terrarium");
    expect(version).toMatchObject({ source_format: "mbtiles", format: "png", encoding: "terrarium", layers: [] });
    const tj = await tilejson(slug);
    expect(tj).toMatchObject({ format: "png", encoding: "terrarium", tileSize: 256, minzoom: 8, maxzoom: 8 });
    expect(tj.vector_layers).toBeUndefined();
    expect(tj.tiles[0]).toEndWith("/{z}/{x}/{y}.png");
    const tile = await t.fetch(tj.tiles[0].replace(t.baseUrl, "").replace("{z}/{x}/{y}", "8/133/90"));
    expect(tile.status).toBe(200);
    expect(tile.headers.get("content-type")).toBe("image/png");
    const heights = await decodeDemTile(new Uint8Array(await tile.arrayBuffer()), "terrarium", "tile");
    expect(heights.size).toBe(256);
  });

  test("a Terrain-RGB MBTiles that declares encoding=mapbox in its metadata needs no recipe", async () => {
    const { slug, version } = await importReady(mbtilesFile("mapbox", true));
    expect(version.encoding).toBe("mapbox");
    expect((await tilejson(slug)).encoding).toBe("mapbox");
  });

  test("the same archive without encoding stays a plain raster tileset", async () => {
    const { slug, version } = await importReady(mbtilesFile("terrarium"));
    expect(version.encoding).toBeNull();
    expect((await tilejson(slug)).encoding).toBeUndefined();
  });

  test("an MBTiles of lossless WebP Terrain-RGB tiles becomes a DEM serving WebP tiles that decode to the heights", async () => {
    const path = join(dir, "mapbox-webp.mbtiles");
    await demWebpMbtiles(path, "mapbox", 8, ALPS, ramp);
    const { slug, version } = await importReady(new Uint8Array(readFileSync(path)), "?encoding=mapbox");
    expect(version).toMatchObject({ format: "webp", encoding: "mapbox" });
    const tj = await tilejson(slug);
    expect(tj).toMatchObject({ format: "webp", encoding: "mapbox", tileSize: 256 });
    const tile = await t.fetch(tj.tiles[0].replace(t.baseUrl, "").replace("{z}/{x}/{y}", "8/133/90"));
    expect(tile.headers.get("content-type")).toBe("image/webp");
    const heights = (await decodeDemTile(new Uint8Array(await tile.arrayBuffer()), "mapbox", "tile")).heights;
    const [lon, lat] = lonLatOfPixel(133 * 256 + 10, 90 * 256 + 20, 8, 256);
    expect(Math.abs(heights[20 * 256 + 10]! - ramp(lon, lat))).toBeLessThan(0.06);
  });

  test("a PMTiles of Terrarium PNG tiles with encoding in a multipart field", async () => {
    const heights = new Float32Array(256 * 256).fill(321);
    const archive = pmtiles([[0, 0, 0, encodeDemTile(heights, 256, "terrarium")]], { tileType: 2, tileCompression: 1, metadata: { name: "flat" }, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 0 });
    const form = new FormData();
    form.append("file", new Blob([archive]), "flat.pmtiles");
    form.append("encoding", "terrarium");
    const { slug, version } = await importReady(form);
    expect(version).toMatchObject({ archive_format: "pmtiles", encoding: "terrarium" });
    expect(await tilejson(slug)).toMatchObject({ encoding: "terrarium", tileSize: 256 });
  });
});

describe("building DEMs from elevation files", () => {
  test("an SRTM .hgt (named by ?filename=) is built into a Terrarium MBTiles at the chosen max zoom, with progress", async () => {
    const { slug, version } = await importReady(hgtBytes(121, { lon: 7, lat: 46 }, ramp), "?filename=N46E007.hgt&maxzoom=9");
    expect(version).toMatchObject({ source_format: "hgt", archive_format: "mbtiles", format: "png", encoding: "terrarium", minzoom: 0, maxzoom: 9, bounds: ALPS, progress: 100 });
    expect((version.stats as { tiles: number }).tiles).toBeGreaterThan(9);
    expect(await tilejson(slug)).toMatchObject({ encoding: "terrarium", tileSize: 256, maxzoom: 9, bounds: ALPS, attribution: "Test DEM" });
  });

  test("a zip of .hgt files becomes one Terrain-RGB DEM covering all of them", async () => {
    const zip = zipSync({ "N46E007.hgt": hgtBytes(31, { lon: 7, lat: 46 }, ramp), "srtm/N46E008.hgt": hgtBytes(31, { lon: 8, lat: 46 }, ramp) });
    const { version } = await importReady(zip, "?encoding=mapbox&maxzoom=7");
    expect(version).toMatchObject({ source_format: "hgt", encoding: "mapbox", bounds: [7, 46, 9, 47], maxzoom: 7 });
  });

  test("a GeoTIFF uploaded as multipart, its max zoom from its resolution", async () => {
    const form = new FormData();
    form.append("file", new Blob([geotiffBytes(64, 64, ALPS, ramp)]), "alps.tif");
    const { slug, version } = await importReady(form);
    // 1/64 degree per sample: zoom 7 is the first whose pixels (360/256/128 = 1/91 degree) are as fine.
    expect(version).toMatchObject({ source_format: "geotiff", encoding: "terrarium", maxzoom: 7, bounds: ALPS });
    expect((await tilejson(slug)).encoding).toBe("terrarium");
  });
});

describe("bad DEM uploads", () => {
  const expectRefused = async (r: Response, status: number, pattern: RegExp) => {
    expect(r.status).toBe(status);
    const body = await r.json();
    expect(body.error.message).toMatch(pattern);
    return body;
  };

  test("an unknown encoding is 400 naming the option", async () => {
    const { res } = await importInto(mbtilesFile("terrarium"), "?encoding=rgb");
    await expectRefused(res, 400, /encoding must be terrarium or mapbox/);
  });

  test("encoding on vector data or GeoJSON is 422", async () => {
    const fc = await cities(20);
    const path = join(dir, "vector.mbtiles");
    writeMbtiles(path, vectorTiles(fc, "cities", 2), { format: "pbf", json: JSON.stringify({ vector_layers: [{ id: "cities", fields: {} }] }) });
    const vector = await importInto(new Uint8Array(readFileSync(path)), "?encoding=terrarium");
    expect((await expectRefused(vector.res, 422, /holds mvt tiles; DEM tiles must be PNG/)).error.code).toBe("INVALID_SOURCE_DATA");
    const geojson = await importInto(JSON.stringify(fc), "?encoding=mapbox");
    await expectRefused(geojson.res, 422, /encoding=mapbox is for raster-DEM data.*this upload is geojson/);
  });

  test("lossy WebP DEM tiles: 422 at once in an MBTiles, a failed version naming why in a PMTiles", async () => {
    const path = join(dir, "lossy.mbtiles");
    await demWebpMbtiles(path, "terrarium", 6, ALPS, ramp, { lossy: true });
    const { res } = await importInto(new Uint8Array(readFileSync(path)), "?encoding=terrarium");
    const body = await expectRefused(res, 422, /upload: its WebP tiles are lossy.*encode them as lossless WebP or PNG/);
    expect(body.error.code).toBe("INVALID_SOURCE_DATA");
    const lossy = await encodeDemTileWebp(new Float32Array(256 * 256).fill(321), 256, "terrarium", { lossy: true });
    const archive = pmtiles([[0, 0, 0, lossy]], { tileType: 4, tileCompression: 1, metadata: {}, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 0 });
    const pm = await importInto(archive, "?encoding=terrarium");
    expect(pm.res.status).toBe(202);
    const v = await waitForVersion(t, "acme", pm.slug, 1, headers);
    expect(v).toMatchObject({ state: "failed", archive_format: null });
    expect(v.error).toMatch(/a tile: lossy WebP DEM tiles are refused/);
  });

  test("an .hgt without its corner in the name is 422; without any name, a grid of no SRTM size is not recognised (415)", async () => {
    const bytes = hgtBytes(11, { lon: 7, lat: 46 }, ramp);
    await expectRefused((await importInto(bytes, "?filename=dem.hgt")).res, 422, /named after its south-west corner, like N46E007\.hgt/);
    expect((await importInto(bytes)).res.status).toBe(415);
  });

  test("a bare SRTM tile sent without a name (curl --data-binary) is 422 saying to add ?filename=, which then works", async () => {
    const bytes = hgtBytes(1201, { lon: 7, lat: 46 }, ramp);
    const body = await expectRefused(
      (await importInto(bytes)).res,
      422,
      /^upload: 2884802 bytes is the size of an SRTM \.hgt tile \(1201 x 1201 heights\), whose position comes from its file name alone, and the upload has none; add \?filename=N46E007\.hgt/,
    );
    expect(body.error.code).toBe("INVALID_SOURCE_DATA");
    await expectRefused((await importInto(bytes, "?filename=tile.bin")).res, 422, /^tile\.bin: .*SRTM \.hgt tile.*; if it is one, name it after its south-west corner, like N46E007\.hgt$/);
    // Waited for, so its build does not hold up the jobs of the tests after it.
    const { version } = await importReady(bytes, "?filename=N46E007.hgt&maxzoom=6");
    expect(version).toMatchObject({ source_format: "hgt", bounds: ALPS });
  });

  test("a DEM archive whose PNG tiles do not decode fails processing naming the problem", async () => {
    const path = join(dir, "broken-dem.mbtiles");
    writeMbtiles(path, [[0, 0, 0, PNG_1x1.slice(0, 40)]], { format: "png" });
    const { slug, res } = await importInto(new Uint8Array(readFileSync(path)), "?encoding=terrarium");
    expect(res.status).toBe(202);
    const v = await waitForVersion(t, "acme", slug, 1, headers);
    expect(v.state).toBe("failed");
    expect(v.error).toMatch(/a tile: not a readable PNG DEM tile/);
  });

  test("a projected GeoTIFF and an .hgt of the wrong size fail processing with the fix, leaving no archive", async () => {
    const utm = new Uint8Array(writeArrayBuffer(new Float32Array(4), { width: 2, height: 2, ModelPixelScale: [10, 10, 0], ModelTiepoint: [0, 0, 0, 500000, 5000000, 0], ProjectedCSTypeGeoKey: 32632, GTModelTypeGeoKey: 1 } as never));
    const a = await importInto(utm, "?filename=utm.tif");
    expect(a.res.status).toBe(202);
    const va = await waitForVersion(t, "acme", a.slug, 1, headers);
    expect(va).toMatchObject({ state: "failed", archive_format: null });
    expect(va.error).toMatch(/utm\.tif: .*EPSG:32632.*gdalwarp -t_srs EPSG:4326/);
    const b = await importInto(new Uint8Array(1000), "?filename=N46E007.hgt");
    const vb = await waitForVersion(t, "acme", b.slug, 1, headers);
    expect(vb.error).toMatch(/1000 bytes is not a square grid/);
  });
});

describe("styles with a raster-dem source", () => {
  test("mapstead://tilesets/... as a raster-dem source is accepted and rewritten to the TileJSON URL", async () => {
    const { slug } = await importReady(mbtilesFile("terrarium"), "?encoding=terrarium");
    const style = {
      version: 8,
      sources: { dem: { type: "raster-dem", url: `mapstead://tilesets/acme/${slug}`, tileSize: 256, encoding: "terrarium" } },
      terrain: { source: "dem", exaggeration: 1.5 },
      layers: [{ id: "hills", type: "hillshade", source: "dem" }],
    };
    const res = await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "relief", style }) });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.draft_preview.sources.dem).toEqual({ type: "raster-dem", url: `${t.baseUrl}/tiles/v1/acme/${slug}.json`, tileSize: 256, encoding: "terrarium" });
    const bad = await t.fetch("/api/v1/orgs/acme/styles", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ slug: "relief-2", style: { ...style, sources: { dem: { type: "raster-dem", url: "mapstead://tilesets/acme/no-such-dem" } } } }),
    });
    expect(bad.status).toBe(422);
    expect((await bad.json()).error.details).toContainEqual(expect.objectContaining({ path: "sources.dem.url" }));
  });

  test("a raster-dem source over vector tiles, and a DEM as a vector source, are 422 naming the source", async () => {
    const vector = await importReady(JSON.stringify(await cities(20)), "?maxzoom=2");
    const { slug: dem } = await importReady(mbtilesFile("terrarium"), "?encoding=terrarium");
    const post = (slug: string, sources: Record<string, unknown>, layers: unknown[]) =>
      t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug, style: { version: 8, sources, layers } }) });
    const wrongDem = await post("wrong-dem", { dem: { type: "raster-dem", url: `mapstead://tilesets/acme/${vector.slug}` } }, [{ id: "h", type: "hillshade", source: "dem" }]);
    expect(wrongDem.status).toBe(422);
    expect((await wrongDem.json()).error.details).toContainEqual({ path: "sources.dem.url", message: expect.stringContaining("a raster-dem source needs a raster-DEM tileset") });
    const demAsVector = await post("dem-as-vector", { v: { type: "vector", url: `mapstead://tilesets/acme/${dem}@1` } }, [{ id: "f", type: "fill", source: "v", "source-layer": "x" }]);
    expect(demAsVector.status).toBe(422);
    expect((await demAsVector.json()).error.details).toContainEqual({ path: "sources.v.url", message: expect.stringContaining("use it in a source of type raster-dem") });
  });
});

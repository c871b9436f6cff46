// Recipe `output: "pmtiles"`: source data tiled straight into a clustered, deduplicated PMTiles v3
// archive, read back by the `pmtiles` package, served by the PMTiles source, drawn by MapLibre GL JS
// (the cities layer clustered below zoom 4, its clusters drawn by their point_count).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { PMTiles, SharedPromiseCache } from "pmtiles";
import type { Browser } from "playwright-core";
import { join } from "node:path";
import { LocalFileSource } from "../../src/tiles/pmtiles";
import { countColor, launchBrowser, openMap } from "../support/browser";
import { serveTestApp, type TestApp } from "../support/app";
import { seedOrg, seedSession } from "../support/seed";
import { cities, countries, createTileset, publish, upload, waitForVersion } from "../routes/management/tilesets/fixtures";

let t: TestApp;
let headers: Record<string, string>;
let browser: Browser | undefined;

beforeAll(async () => {
  t = await serveTestApp();
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
  await createTileset(t, "acme", headers, { slug: "atlas" });
  const form = new FormData();
  form.append("file", new Blob([JSON.stringify(countries())]), "countries.geojson");
  form.append("file", new Blob([JSON.stringify(await cities(500))]), "cities.geojson");
  form.append("recipe", JSON.stringify({ output: "pmtiles", maxzoom: 5, layers: { cities: { cluster: { radius: 40, maxzoom: 4 } } } }));
  expect((await upload(t, "acme", "atlas", headers, form)).status).toBe(202);
  const v = (await waitForVersion(t, "acme", "atlas", 1, headers)) as any;
  expect(v.error).toBeNull();
  expect(v.archive_format).toBe("pmtiles");
  expect((await publish(t, "acme", "atlas", 1, headers)).status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test("the archive reads back with the pmtiles package: header, metadata, tiles, deduplication", async () => {
  const id = t.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM tilesets WHERE slug = 'atlas'").get()!.id;
  const archive = new PMTiles(new LocalFileSource(join(t.dataDir, "tilesets", String(id), "v1.pmtiles")), new SharedPromiseCache());
  const header = await archive.getHeader();
  expect(header.specVersion).toBe(3);
  expect(header.clustered).toBe(true);
  expect([header.minZoom, header.maxZoom]).toEqual([0, 5]);
  // Inland and open-sea tiles repeat: stored once, addressed many times.
  expect(header.numTileContents).toBeLessThan(header.numAddressedTiles);
  const metadata = (await archive.getMetadata()) as any;
  expect(metadata.vector_layers.map((l: any) => l.id)).toEqual(["countries", "cities"]);
  const world = await archive.getZxy(0, 0, 0);
  const tile = new VectorTile(new PbfReader(new Uint8Array(world!.data)));
  expect(Object.keys(tile.layers).sort()).toEqual(["cities", "countries"]);
  // Served through the existing PMTiles source like any uploaded archive.
  const served = await t.fetch("/tiles/v1/acme/atlas@1/3/4/2.mvt");
  expect(served.status).toBe(200);
});

test("MapLibre GL JS draws the PMTiles-backed tileset, clusters and single cities, with no failed request", async () => {
  browser = await launchBrowser();
  const LAND: [number, number, number] = [40, 180, 60];
  const CITY: [number, number, number] = [230, 30, 30];
  const CLUSTER: [number, number, number] = [250, 210, 20];
  const style = {
    version: 8,
    sources: { atlas: { type: "vector", url: `${t.baseUrl}/tiles/v1/acme/atlas.json` } },
    layers: [
      { id: "ocean", type: "background", paint: { "background-color": "rgb(20,60,160)" } },
      { id: "land", type: "fill", source: "atlas", "source-layer": "countries", paint: { "fill-color": `rgb(${LAND})`, "fill-antialias": false } },
      { id: "towns", type: "circle", source: "atlas", "source-layer": "cities", filter: ["!", ["has", "point_count"]], paint: { "circle-color": `rgb(${CITY})`, "circle-radius": 3 } },
      {
        id: "clusters",
        type: "circle",
        source: "atlas",
        "source-layer": "cities",
        filter: ["has", "point_count"],
        paint: { "circle-color": `rgb(${CLUSTER})`, "circle-radius": ["step", ["get", "point_count"], 6, 10, 10, 50, 14] },
      },
    ],
  };
  const map = await openMap(browser, { style, center: [10, 30], zoom: 2 });
  try {
    const px = await map.pixels();
    expect(countColor(px, LAND)).toBeGreaterThan(px.width * px.height * 0.1);
    expect(countColor(px, CITY, 30)).toBeGreaterThan(100);
    expect(countColor(px, CLUSTER, 30)).toBeGreaterThan(500);
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
  } finally {
    await map.close();
  }
});

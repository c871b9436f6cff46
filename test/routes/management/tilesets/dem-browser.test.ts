// A DEM tileset in a real map client: MapLibre GL JS in headless Chromium loads a published Terrarium
// tileset through a style's raster-dem source (the stored style's mapstead:// reference, rewritten),
// draws hillshading, and drapes the map over 3D terrain whose heights are the ones that were uploaded;
// where a built DEM has no data, the map reads the 0 m drawn there, not the mark's side effects.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchBrowser, openMap } from "../../../support/browser";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { demMbtiles, hgtBytes, ramp } from "../../../support/dem";
import { readPng } from "../../../../src/sprites/png";
import { tileCoordinates } from "../../../../src/tiles/dem/sample";
import { createTileset, publish, upload, waitForVersion } from "./fixtures";

let browser: Browser;
let t: TestApp;
let headers: Record<string, string>;

/** A 3000 m mountain on a 500 m plateau at 7.5,46.5: steep enough to shade strongly. */
const mountain = (lon: number, lat: number) => 500 + 3000 * Math.exp(-((lon - 7.5) ** 2 + ((lat - 46.5) * 1.4) ** 2) / 0.01);
const BACKGROUND: [number, number, number] = [40, 160, 60];

beforeAll(async () => {
  t = await serveTestApp();
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
  await createTileset(t, "acme", headers, { slug: "relief" });
  const path = join(t.dataDir, "relief-source.mbtiles");
  demMbtiles(path, "terrarium", 9, [7, 46, 8, 47], mountain);
  expect((await upload(t, "acme", "relief", headers, new Uint8Array(readFileSync(path)), "?encoding=terrarium")).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "relief", 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "relief", 1, headers)).status).toBe(200);
  const style = {
    version: 8,
    // No tileSize or encoding here: MapLibre takes both from the TileJSON (its default, mapbox encoding,
    // would turn these Terrarium heights into nonsense and fail the terrain test below).
    sources: { dem: { type: "raster-dem", url: "mapstead://tilesets/acme/relief" } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": `rgb(${BACKGROUND})` } },
      { id: "hills", type: "hillshade", source: "dem", paint: { "hillshade-shadow-color": "rgb(200,0,0)", "hillshade-highlight-color": "rgb(0,0,220)", "hillshade-exaggeration": 1 } },
    ],
  };
  const res = await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "relief", style }) });
  expect(res.status).toBe(201);
  expect((await t.fetch("/api/v1/orgs/acme/styles/relief/publish", { method: "POST", headers })).status).toBe(200);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test("a raster-dem source renders hillshading: shadowed and lit slopes around the mountain", async () => {
  const map = await openMap(browser, { style: `${t.baseUrl}/styles/v1/acme/relief`, center: [7.5, 46.5], zoom: 9 });
  try {
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    expect(map.requests.some((u) => /\/tiles\/v1\/acme\/relief@1\/9\/\d+\/\d+\.png$/.test(u))).toBe(true);
    const px = await map.pixels();
    let shadow = 0;
    let light = 0;
    for (let i = 0; i < px.data.length; i += 4) {
      const [r, g, b] = [px.data[i]!, px.data[i + 1]!, px.data[i + 2]!];
      if (r > g + 40 && r > b + 40) shadow++;
      if (b > g + 20 && b > r + 40) light++;
    }
    const total = px.width * px.height;
    expect(shadow).toBeGreaterThan(total * 0.01);
    expect(light).toBeGreaterThan(total * 0.01);
  } finally {
    await map.close();
  }
});

test("the same source drives 3D terrain: MapLibre reads the uploaded heights back", async () => {
  const map = await openMap(browser, { style: `${t.baseUrl}/styles/v1/acme/relief`, center: [7.5, 46.5], zoom: 9 });
  try {
    const heights = await map.page.evaluate(
      () =>
        new Promise<{ peak: number | null; plain: number | null }>((resolve) => {
          const m = (window as any).map;
          m.setTerrain({ source: "dem", exaggeration: 1 });
          m.setPitch(60);
          m.once("idle", () => resolve({ peak: m.queryTerrainElevation([7.5, 46.5]), plain: m.queryTerrainElevation([7.9, 46.9]) }));
        }),
    );
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    // MapLibre samples its own (coarser) mesh, so allow some metres; the shape must be the uploaded one.
    expect(Math.abs(heights.peak! - mountain(7.5, 46.5))).toBeLessThan(150);
    expect(Math.abs(heights.plain! - mountain(7.9, 46.9))).toBeLessThan(150);
  } finally {
    await map.close();
  }
});

test("where a built DEM has no data, MapLibre's terrain reads the 0 m drawn there (the no-data mark is invisible to it)", async () => {
  // A mosaic of N46E007 and N46E009: the gap between them is no data, marked in the tiles that also hold
  // data. Marking by alpha instead would read as -32768 m here: browsers drop the colour of transparent pixels.
  await createTileset(t, "acme", headers, { slug: "gap" });
  const zip = zipSync({ "N46E007.hgt": hgtBytes(61, { lon: 7, lat: 46 }, ramp), "N46E009.hgt": hgtBytes(61, { lon: 9, lat: 46 }, ramp) });
  expect((await upload(t, "acme", "gap", headers, zip, "?filename=gap.hgt.zip&maxzoom=9")).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "gap", 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "gap", 1, headers)).status).toBe(200);
  const { fx, fy } = tileCoordinates(8.3, 46.5, 9);
  const tile = await t.fetch(`/tiles/v1/acme/gap@1/9/${Math.floor(fx)}/${Math.floor(fy)}.png`);
  expect(Object.keys(readPng(new Uint8Array(await tile.arrayBuffer()), { chunks: ["noDt"] }).chunks!)).toEqual(["noDt"]);
  const style = { version: 8, sources: { dem: { type: "raster-dem", url: `${t.baseUrl}/tiles/v1/acme/gap.json` } }, layers: [{ id: "hills", type: "hillshade", source: "dem" }] };
  const map = await openMap(browser, { style, center: [8, 46.5], zoom: 9 });
  try {
    const heights = await map.page.evaluate(
      () =>
        new Promise<{ data: number | null; gap: number | null }>((resolve) => {
          const m = (window as any).map;
          m.setTerrain({ source: "dem", exaggeration: 1 });
          m.once("idle", () => resolve({ data: m.queryTerrainElevation([7.85, 46.5]), gap: m.queryTerrainElevation([8.3, 46.5]) }));
        }),
    );
    expect(await map.mapErrors()).toEqual([]);
    expect(Math.abs(heights.data! - ramp(7.85, 46.5))).toBeLessThan(150);
    expect(Math.abs(heights.gap!)).toBeLessThan(50);
  } finally {
    await map.close();
  }
});

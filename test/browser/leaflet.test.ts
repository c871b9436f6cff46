// A third real map client: Leaflet 1.9 showing Mapstead's raster tiles of a published style in an
// L.tileLayer, at 256 px (Leaflet's own grid) and at 512 px (tileSize 512, zoomOffset -1), and a private
// style with its key in access_token (a tile URL template cannot send headers). Every visible tile must
// fire `load` as a real image of the tile size, and the screen must show the map's colours where they are.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { launchBrowser, openLeaflet } from "../support/browser";
import { buildWorld, CLIENT_VIEW, expectClientViewShown, type World } from "../read/render/world";

let browser: Browser;
let t: TestApp;
let world: World;

beforeAll(async () => {
  t = await serveTestApp();
  world = await buildWorld(t);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

// Leaflet's zoom 2 equals MapLibre's and OpenLayers' here: the world is 1024 px wide in all three.
const { center: CENTER, zoom: ZOOM } = CLIENT_VIEW;

async function show(url: string, tileSize: number, zoomOffset: number, name: string) {
  const map = await openLeaflet(browser, { url, tileSize, zoomOffset, center: CENTER, zoom: ZOOM, width: 512, height: 512 });
  await map.screenshot(name);
  return map;
}


test("256 px raster tiles of a published style in L.tileLayer: every tile loads as a 256 px image and the map shows", async () => {
  const map = await show(`${t.baseUrl}/styles/v1/acme/world/tiles/256/{z}/{x}/{y}.png`, 256, 0, "leaflet-256");
  try {
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    const tiles = await map.tiles();
    expect(tiles.errors).toEqual([]);
    expect(tiles.loaded.length).toBeGreaterThanOrEqual(4);
    for (const tile of tiles.loaded) {
      expect(tile.src).toMatch(/\/styles\/v1\/acme\/world\/tiles\/256\/2\/\d+\/\d+\.png$/);
      expect([tile.width, tile.height]).toEqual([256, 256]);
    }
    expectClientViewShown(await map.pixels());
  } finally {
    await map.close();
  }
});

test("512 px raster tiles (tileSize 512, zoomOffset -1) with the @2x suffix load as 1024 px images", async () => {
  const map = await show(`${t.baseUrl}/styles/v1/acme/world/tiles/512/{z}/{x}/{y}@2x.png`, 512, -1, "leaflet-512");
  try {
    expect(map.failedRequests).toEqual([]);
    const tiles = await map.tiles();
    expect(tiles.errors).toEqual([]);
    expect(tiles.loaded.length).toBeGreaterThanOrEqual(2);
    for (const tile of tiles.loaded) {
      expect(tile.src).toMatch(/\/styles\/v1\/acme\/world\/tiles\/512\/1\/\d+\/\d+@2x\.png$/);
      expect([tile.width, tile.height]).toEqual([1024, 1024]);
    }
    expectClientViewShown(await map.pixels());
  } finally {
    await map.close();
  }
});

test("a private style's raster tiles load with the key in access_token, and are refused without it", async () => {
  const url = `${t.baseUrl}/styles/v1/acme/secret/tiles/256/{z}/{x}/{y}.png`;
  const map = await show(`${url}?access_token=${world.privateKey}`, 256, 0, "leaflet-private");
  try {
    expect(map.failedRequests).toEqual([]);
    const tiles = await map.tiles();
    expect(tiles.errors).toEqual([]);
    expect(tiles.loaded.length).toBeGreaterThanOrEqual(4);
    expectClientViewShown(await map.pixels());
  } finally {
    await map.close();
  }
  expect((await fetch(url.replace("{z}/{x}/{y}", "2/2/1"))).status).toBe(404);
  const anonymous = await openLeaflet(browser, { url, center: CENTER, zoom: ZOOM, width: 256, height: 256 });
  {
    try {
      const tiles = await anonymous.tiles();
      expect(tiles.loaded).toEqual([]);
      expect(tiles.errors.length).toBeGreaterThan(0);
      // The 404 answers JSON (the error envelope), which Chromium's opaque-response blocking withholds from an <img>.
      expect(anonymous.failedRequests.length).toBeGreaterThan(0);
      expect(anonymous.failedRequests.every((r) => /\((HTTP 404|net::ERR_BLOCKED_BY_ORB)\)$/.test(r))).toBe(true);
    } finally {
      await anonymous.close();
    }
  }
});

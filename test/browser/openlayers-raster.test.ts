// Raster clients of OpenLayers against Mapstead. Its own WMTS reader (ol/format/WMTSCapabilities and
// optionsFromCapabilities, the code path desktop-GIS-like web clients use), given only a style's wmts.xml
// URL, must find the layer and its tile matrix set and request raster tiles from the document's template;
// its TileJSON source, given a private style's raster TileJSON URL with access_token, the tiles as listed.
// The screen must show land and ocean where they are, with no failed request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { countColor, launchBrowser, openOpenLayers, pixelAt } from "../support/browser";
import { seedKey } from "../support/seed";
import { buildWorld, LAND, OCEAN, type World } from "../read/render/world";

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

function expectMapShown(px: { width: number; height: number; data: Uint8Array }) {
  const total = px.width * px.height;
  expect(countColor(px, LAND, 16)).toBeGreaterThan(total * 0.1);
  expect(countColor(px, OCEAN, 16)).toBeGreaterThan(total * 0.1);
  expect(pixelAt(px, 256, 256).every((c, i) => Math.abs(c - LAND[i]!) <= 16)).toBe(true);
  expect(pixelAt(px, 86, 256).every((c, i) => Math.abs(c - OCEAN[i]!) <= 16)).toBe(true);
}

// OpenLayers' zoom 2 on a 512x512 page centred at 10°E 30°N: the centre is the Sahara, 50°W 30°N (170 px
// left of it at 1024 px per world) the North Atlantic.
for (const tileSize of [256, 512] as const) {
  test(`OpenLayers draws the map from the ${tileSize} px WMTS capabilities of a published style`, async () => {
    const query = tileSize === 512 ? "?tile_size=512" : "";
    const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/world@1/wmts.xml${query}`, mode: "wmts", source: "world@1", center: [10, 30], zoom: 2, width: 512, height: 512 });
    try {
      await map.screenshot(`openlayers-wmts-${tileSize}`);
      expect(map.failedRequests).toEqual([]);
      expect(await map.clientErrors()).toEqual([]);
      // At view zoom 2, 256 px tiles come from matrix 2 and 512 px tiles from matrix 1.
      const tiles = map.requests.filter((u) => u.includes("/tiles/"));
      expect(tiles.length).toBeGreaterThanOrEqual(tileSize === 256 ? 4 : 2);
      for (const url of tiles) expect(url).toMatch(new RegExp(`/styles/v1/acme/world@1/tiles/${tileSize}/${tileSize === 256 ? 2 : 1}/\\d+/\\d+\\.png$`));
      expectMapShown(await map.pixels());
    } finally {
      await map.close();
    }
  });
}

test("OpenLayers' TileJSON source draws a private style's raster tiles from its TileJSON asked for with access_token", async () => {
  const key = seedKey(t.ctx, world.orgId, ["maps:read"]).secret;
  const token = `access_token=${encodeURIComponent(key)}`;
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/secret/tiles.json?${token}`, mode: "tilejson", center: [10, 30], zoom: 2, width: 512, height: 512 });
  try {
    await map.screenshot("openlayers-tilejson-private");
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    // The tiles are requested as the TileJSON lists them: with the key it was asked with.
    const tiles = map.requests.filter((u) => u.includes("/tiles/"));
    expect(tiles.length).toBeGreaterThanOrEqual(4);
    for (const url of tiles) expect(url).toEndWith(`.png?${token}`);
    expectMapShown(await map.pixels());
  } finally {
    await map.close();
  }
});

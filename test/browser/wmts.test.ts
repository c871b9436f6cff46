// A WMTS client against Mapstead: OpenLayers' own WMTS reader (ol/format/WMTSCapabilities and
// optionsFromCapabilities, the code path desktop-GIS-like web clients use) given only a style's
// wmts.xml URL. It must find the layer and its tile matrix set, request raster tiles from the document's
// template, and the screen must show land and ocean where they are, with no failed request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { countColor, launchBrowser, openOpenLayers, pixelAt } from "../support/browser";
import { buildWorld, LAND, OCEAN } from "../read/render/world";

let browser: Browser;
let t: TestApp;

beforeAll(async () => {
  t = await serveTestApp();
  await buildWorld(t);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

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
      const px = await map.pixels();
      const total = px.width * px.height;
      expect(countColor(px, LAND, 16)).toBeGreaterThan(total * 0.1);
      expect(countColor(px, OCEAN, 16)).toBeGreaterThan(total * 0.1);
      expect(pixelAt(px, 256, 256).every((c, i) => Math.abs(c - LAND[i]!) <= 16)).toBe(true);
      expect(pixelAt(px, 86, 256).every((c, i) => Math.abs(c - OCEAN[i]!) <= 16)).toBe(true);
    } finally {
      await map.close();
    }
  });
}

// Raster clients of OpenLayers against Mapstead. Its own WMTS reader (ol/format/WMTSCapabilities and
// optionsFromCapabilities, the code path desktop-GIS-like web clients use), given only a style's wmts.xml
// URL, must find the layer and its tile matrix set and request raster tiles from the document's template;
// its TileJSON source, given a private style's raster TileJSON URL with access_token, the tiles as listed.
// The screen must show land and ocean where they are, with no failed request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { launchBrowser, openOpenLayers } from "../support/browser";
import { seedKey } from "../support/seed";
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

for (const tileSize of [256, 512] as const) {
  test(`OpenLayers draws the map from the ${tileSize} px WMTS capabilities of a published style`, async () => {
    const query = tileSize === 512 ? "?tile_size=512" : "";
    const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/world@1/wmts.xml${query}`, mode: "wmts", source: "world@1", ...CLIENT_VIEW });
    try {
      await map.screenshot(`openlayers-wmts-${tileSize}`);
      expect(map.failedRequests).toEqual([]);
      expect(await map.clientErrors()).toEqual([]);
      // At view zoom 2, 256 px tiles come from matrix 2 and 512 px tiles from matrix 1.
      const tiles = map.requests.filter((u) => u.includes("/tiles/"));
      expect(tiles.length).toBeGreaterThanOrEqual(tileSize === 256 ? 4 : 2);
      for (const url of tiles) expect(url).toMatch(new RegExp(`/styles/v1/acme/world@1/tiles/${tileSize}/${tileSize === 256 ? 2 : 1}/\\d+/\\d+\\.png$`));
      expectClientViewShown(await map.pixels());
    } finally {
      await map.close();
    }
  });
}

test("OpenLayers' TileJSON source draws a private style's raster tiles from its TileJSON asked for with access_token", async () => {
  const key = seedKey(t.ctx, world.orgId, ["maps:read"]).secret;
  const token = `access_token=${encodeURIComponent(key)}`;
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/secret/tiles.json?${token}`, mode: "tilejson", ...CLIENT_VIEW });
  try {
    await map.screenshot("openlayers-tilejson-private");
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    // The tiles are requested as the TileJSON lists them: with the key it was asked with.
    const tiles = map.requests.filter((u) => u.includes("/tiles/"));
    expect(tiles.length).toBeGreaterThanOrEqual(4);
    for (const url of tiles) expect(url).toEndWith(`.png?${token}`);
    expectClientViewShown(await map.pixels());
  } finally {
    await map.close();
  }
});

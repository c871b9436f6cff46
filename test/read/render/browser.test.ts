// Raster tiles used the way Leaflet, OpenLayers and QGIS use them, in real Chromium: MapLibre GL JS with
// a raster source pointing at the raster TileJSON, and a plain <img> of one tile read back through a
// canvas (which needs the CORS header of public map assets).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, openMap } from "../../support/browser";
import { serveTestApp, type TestApp } from "../../support/app";
import { seedKey } from "../../support/seed";
import { buildWorld, countColor, LAND, OCEAN, type World } from "./world";

let browser: Browser;
let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await serveTestApp();
  w = await buildWorld(t);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

test("MapLibre GL JS draws a published style from its raster tiles, with no failed request", async () => {
  const style = {
    version: 8,
    sources: { world: { type: "raster", url: `${t.baseUrl}/styles/v1/acme/world/tiles.json`, tileSize: 256 } },
    layers: [{ id: "world", type: "raster", source: "world" }],
  };
  const map = await openMap(browser, { style, center: [10, 30], zoom: 2, width: 512, height: 384, timeoutMs: 120_000 });
  try {
    await map.screenshot("render-service-raster-maplibre");
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    expect(map.requests.filter((u) => /\/styles\/v1\/acme\/world\/tiles\/256\/\d+\/\d+\/\d+\.png$/.test(u)).length).toBeGreaterThanOrEqual(4);
    const px = await map.pixels();
    const total = px.width * px.height;
    expect(countColor(px, LAND, 20)).toBeGreaterThan(total * 0.2);
    expect(countColor(px, OCEAN, 20)).toBeGreaterThan(total * 0.1);
  } finally {
    await map.close();
  }
});

test("MapLibre GL JS draws a private style's raster tiles from a TileJSON URL with ?access_token=", async () => {
  const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
  const style = {
    version: 8,
    sources: { world: { type: "raster", url: `${t.baseUrl}/styles/v1/acme/secret/tiles.json?access_token=${encodeURIComponent(key)}`, tileSize: 256 } },
    layers: [{ id: "world", type: "raster", source: "world" }],
  };
  const map = await openMap(browser, { style, center: [10, 30], zoom: 2, width: 512, height: 384, timeoutMs: 120_000 });
  try {
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    const px = await map.pixels();
    expect(countColor(px, LAND, 20)).toBeGreaterThan(px.width * px.height * 0.2);
  } finally {
    await map.close();
  }
});

test("a plain <img> loads a tile, and a canvas may read it (CORS)", async () => {
  const page = await browser.newPage();
  try {
    const url = `${t.baseUrl}/styles/v1/acme/world@1/tiles/256/1/1/0.png`;
    const result = await page.evaluate(
      (src) =>
        new Promise<{ width: number; land: number }>((resolve, reject) => {
          const img = new Image();
          img.crossOrigin = "anonymous";
          img.onerror = () => reject(new Error("the tile did not load"));
          img.onload = () => {
            const c = document.createElement("canvas");
            c.width = img.naturalWidth;
            c.height = img.naturalHeight;
            const g = c.getContext("2d")!;
            g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data;
            let land = 0;
            for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - 40) < 15 && Math.abs(d[i + 1]! - 180) < 15 && Math.abs(d[i + 2]! - 60) < 15) land++;
            resolve({ width: img.naturalWidth, land });
          };
          img.src = src;
        }),
      url,
    );
    expect(result.width).toBe(256);
    expect(result.land).toBeGreaterThan(256 * 256 * 0.25);
  } finally {
    await page.close();
  }
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { countColor, launchBrowser, openMap } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

test("MapLibre GL JS renders with WebGL in headless chromium", async () => {
  const map = await openMap(browser, {
    style: {
      version: 8,
      sources: { pts: { type: "geojson", data: { type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [0, 0] }, properties: {} }] } } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "rgb(10, 200, 30)" } },
        { id: "dot", type: "circle", source: "pts", paint: { "circle-radius": 40, "circle-color": "rgb(200, 20, 180)" } },
      ],
    },
  });
  const px = await map.pixels();
  expect(countColor(px, [10, 200, 30])).toBeGreaterThan(px.width * px.height * 0.5);
  expect(countColor(px, [200, 20, 180])).toBeGreaterThan(3000);
  expect(await map.mapErrors()).toEqual([]);
  expect(map.failedRequests).toEqual([]);
  await map.close();
});

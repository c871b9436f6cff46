// A web page on another origin asks Mapstead for a route with a browser key (CORS preflight included)
// and hands the answer's geometry straight to MapLibre GL JS in real Chromium: the line is drawn.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { countColor, harnessUrl, launchBrowser, openMap } from "../../../support/browser";
import { startFakeOsrm, type FakeRouter } from "../../../support/fake-osrm";

let browser: Browser;
let fake: FakeRouter;
let t: TestApp;
beforeAll(async () => {
  fake = startFakeOsrm();
  t = await serveTestApp({ ROUTING_INTERNAL_URL: fake.url });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t.close();
  await fake.stop();
});

test("a page on another origin fetches a route with its key; the GeoJSON geometry draws as a line in MapLibre", async () => {
  const key = seedKey(t.ctx, seedOrg(t.ctx, "web").id, ["routing"], { allowedOrigins: [harnessUrl()] }).secret;
  const map = await openMap(browser, {
    style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "rgb(255, 255, 255)" } }] },
    center: [13.393, 52.523],
    zoom: 13,
  });
  const drawn = await map.page.evaluate(
    async ({ api, key }) => {
      const w = window as any;
      const res = await fetch(`${api}/routing/v1/driving/13.38886,52.517037;13.397634,52.529407?overview=full&geometries=geojson`, { headers: { "x-api-key": key } });
      const body = await res.json();
      w.map.addSource("route", { type: "geojson", data: { type: "Feature", geometry: body.routes[0].geometry, properties: {} } });
      w.map.addLayer({ id: "route", type: "line", source: "route", paint: { "line-color": "rgb(220, 20, 60)", "line-width": 8 } });
      await new Promise((resolve) => w.map.once("idle", resolve));
      return { status: res.status, rateLimit: res.headers.get("x-ratelimit-limit") };
    },
    { api: t.baseUrl, key },
  );
  expect(drawn.status).toBe(200);
  expect(drawn.rateLimit).not.toBeNull();
  const px = await map.pixels();
  // A 1.5 km line at zoom 13 is a few hundred pixels long and 8 wide.
  expect(countColor(px, [220, 20, 60], 30)).toBeGreaterThan(800);
  expect(await map.mapErrors()).toEqual([]);
  expect(map.failedRequests).toEqual([]);
  await map.close();
}, 60_000);

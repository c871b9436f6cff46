// A real map client: MapLibre GL JS in headless Chromium loads published tilesets through a minimal
// style (TileJSON URL as the source), draws countries (fill) and cities (circle), with no failed request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { countColor, launchBrowser, openMap } from "../../../support/browser";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { cities, countries, createTileset, publish, upload, waitForVersion } from "../../management/tilesets/fixtures";

let browser: Browser;
let t: TestApp;
let headers: Record<string, string>;
let orgId: number;

async function published(slug: string, body: string, visibility: "public" | "private" = "public") {
  await createTileset(t, "acme", headers, { slug, visibility });
  await upload(t, "acme", slug, headers, body, `?maxzoom=5&layer=${slug === "cities" ? "cities" : "countries"}`);
  expect(((await waitForVersion(t, "acme", slug, 1, headers)) as any).state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
}

beforeAll(async () => {
  t = await serveTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  await published("countries", JSON.stringify(countries()));
  await published("cities", JSON.stringify(await cities(2000)));
  await published("hidden", JSON.stringify(countries()), "private");
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const OCEAN: [number, number, number] = [20, 60, 160];
const LAND: [number, number, number] = [40, 180, 60];
const CITY: [number, number, number] = [230, 30, 30];

function style(countriesUrl: string) {
  return {
    version: 8,
    sources: {
      countries: { type: "vector", url: countriesUrl },
      cities: { type: "vector", url: `${t.baseUrl}/tiles/v1/acme/cities.json` },
    },
    layers: [
      { id: "ocean", type: "background", paint: { "background-color": `rgb(${OCEAN})` } },
      { id: "land", type: "fill", source: "countries", "source-layer": "countries", paint: { "fill-color": `rgb(${LAND})`, "fill-antialias": false } },
      { id: "towns", type: "circle", source: "cities", "source-layer": "cities", paint: { "circle-color": `rgb(${CITY})`, "circle-radius": 3 } },
    ],
  };
}

test("a published tileset renders in MapLibre GL JS with zero failed requests", async () => {
  const map = await openMap(browser, { style: style(`${t.baseUrl}/tiles/v1/acme/countries.json`), center: [10, 30], zoom: 2 });
  try {
    const px = await map.pixels();
    const total = px.width * px.height;
    expect(countColor(px, LAND)).toBeGreaterThan(total * 0.1);
    expect(countColor(px, OCEAN)).toBeGreaterThan(total * 0.2);
    expect(countColor(px, CITY, 30)).toBeGreaterThan(500);
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    const tiles = map.requests.filter((u) => /\/tiles\/v1\/acme\/(countries|cities)@1\/2\/\d+\/\d+\.mvt$/.test(u));
    expect(tiles.length).toBeGreaterThan(4);
  } finally {
    await map.close();
  }
});

test("a private tileset renders with a maps:read key and is a 404 without one", async () => {
  const key = seedKey(t.ctx, orgId, ["maps:read"]);
  const withKey = await openMap(browser, { style: style(`${t.baseUrl}/tiles/v1/acme/hidden.json`), center: [10, 30], zoom: 2, headers: { "X-API-Key": key.secret } });
  try {
    expect(await withKey.mapErrors()).toEqual([]);
    const px = await withKey.pixels();
    expect(countColor(px, LAND)).toBeGreaterThan(px.width * px.height * 0.1);
    expect(withKey.failedRequests).toEqual([]);
  } finally {
    await withKey.close();
  }
  const anonymous = await fetch(`${t.baseUrl}/tiles/v1/acme/hidden.json`);
  expect(anonymous.status).toBe(404);
});

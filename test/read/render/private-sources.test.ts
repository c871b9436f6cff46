// A public style drawing a private tileset of its organization: members see the private points, everyone
// else sees the map without them. Neither answer may land in a shared cache (CDN, proxy) that would hand
// it to the other, a 304 must never confirm one viewer's bytes to another, and the server's own image
// caches must keep the two apart. Through the real app: tilesets uploaded and tiled by the importer,
// images decoded and their pixels counted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { createTileset, publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { countColor, createStyle, OCEAN, pixelsOf } from "./world";

const SECRET: [number, number, number] = [255, 0, 255];

let t: TestApp;
let member: Record<string, string>;
/** static_maps only: may draw images, but not see private data */
let staticKey: string;
/** static_maps and maps:read */
let readKey: string;

/** Points around Zürich, where tile 256/9/268/179 and the static views below look. */
function secretPoints() {
  const features = [];
  for (let i = 0; i < 5; i++)
    for (let j = 0; j < 5; j++)
      features.push({ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [8.45 + i * 0.15, 47.1 + j * 0.1] } });
  return { type: "FeatureCollection", features };
}

beforeAll(async () => {
  t = await makeTestApp();
  const orgId = seedOrg(t.ctx, "acme").id;
  member = (await seedSession(t.ctx, { orgId })).headers;
  await createTileset(t, "acme", member, { slug: "secret", visibility: "private" });
  expect((await upload(t, "acme", "secret", member, JSON.stringify(secretPoints()), "?maxzoom=8&layer=secret")).status).toBeLessThan(300);
  expect(((await waitForVersion(t, "acme", "secret", 1, member)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "secret", 1, member)).status).toBe(200);
  await createStyle(t, member, "pubst", {
    version: 8,
    sources: { secret: { type: "vector", url: "mapstead://tilesets/acme/secret" } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": `rgb(${OCEAN})` } },
      { id: "points", type: "circle", source: "secret", "source-layer": "secret", paint: { "circle-color": `rgb(${SECRET})`, "circle-radius": 6 } },
    ],
  });
  staticKey = seedKey(t.ctx, orgId, ["static_maps"]).secret;
  readKey = seedKey(t.ctx, orgId, ["static_maps", "maps:read"]).secret;
});
afterAll(() => t?.close());

async function png(res: Response) {
  expect(res.status).toBe(200);
  return pixelsOf(new Uint8Array(await res.arrayBuffer()));
}

describe("raster tiles of a public style drawing a private tileset", () => {
  for (const [name, path] of [
    ["versioned", "/styles/v1/acme/pubst@1/tiles/256/9/268/179.png"],
    ["stable", "/styles/v1/acme/pubst/tiles/256/9/268/179.png"],
  ] as const) {
    test(`${name}: members see the points, others not; both answers private, with different ETags and no 304 across`, async () => {
      // The member first: whatever the server keeps of the member's render must not reach the stranger.
      const mine = await t.fetch(path, { headers: member });
      expect(mine.headers.get("cache-control")).toBe("private");
      const myEtag = mine.headers.get("etag")!;
      expect(countColor(await png(mine), SECRET)).toBeGreaterThan(100);

      const theirs = await t.fetch(path, { headers: { "if-none-match": myEtag } });
      expect(theirs.headers.get("cache-control")).toBe("private");
      expect(theirs.headers.get("etag")).not.toBe(myEtag);
      const px = await png(theirs);
      expect(countColor(px, SECRET)).toBe(0);
      expect(countColor(px, OCEAN)).toBe(256 * 256);

      // Each still gets its own 304.
      expect((await t.fetch(path, { headers: { ...member, "if-none-match": myEtag } })).status).toBe(304);
      expect((await t.fetch(path, { headers: { "if-none-match": theirs.headers.get("etag")! } })).status).toBe(304);
    });
  }

  test("the TileJSON caches the same way (it names the attribution of what is drawn)", async () => {
    for (const headers of [member, {}]) {
      const res = await t.fetch("/styles/v1/acme/pubst/tiles.json", { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private");
    }
  });
});

describe("static images of a public style drawing a private tileset", () => {
  test("a maps:read key sees the points, a static_maps-only key not; different ETags, no 304 across", async () => {
    const path = "/static/v1/acme/pubst@1/8.75,47.3,9/300x200.png?logo=false&attribution=false";
    const mine = await t.fetch(path, { headers: { "x-api-key": readKey } });
    expect(mine.headers.get("cache-control")).toBe("private, max-age=86400");
    const myEtag = mine.headers.get("etag")!;
    expect(countColor(await png(mine), SECRET)).toBeGreaterThan(100);

    const theirs = await t.fetch(path, { headers: { "x-api-key": staticKey, "if-none-match": myEtag } });
    expect(theirs.headers.get("cache-control")).toBe("private, max-age=86400");
    expect(theirs.headers.get("etag")).not.toBe(myEtag);
    expect(countColor(await png(theirs), SECRET)).toBe(0);
  });
});

describe("another organization's style", () => {
  test("never draws this organization's private tileset, not even for its members", async () => {
    // Validation refuses such a style, so make one the way it can still come about: the tileset was public
    // when the other organization's style was saved, and made private afterwards.
    const orgb = (await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "orgb").id })).headers;
    const setVisibility = async (visibility: string) =>
      expect((await t.fetch("/api/v1/orgs/acme/tilesets/secret", { method: "PATCH", headers: { ...member, "content-type": "application/json" }, body: JSON.stringify({ visibility }) })).status).toBe(200);
    await setVisibility("public");
    const style = {
      version: 8,
      sources: { borrowed: { type: "vector", url: "mapstead://tilesets/acme/secret" } },
      layers: [{ id: "points", type: "circle", source: "borrowed", "source-layer": "secret", paint: { "circle-color": `rgb(${SECRET})`, "circle-radius": 6 } }],
    };
    const created = await t.fetch("/api/v1/orgs/orgb/styles", { method: "POST", headers: { ...orgb, "content-type": "application/json" }, body: JSON.stringify({ slug: "borrowed", style }) });
    expect(created.status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/orgb/styles/borrowed/publish", { method: "POST", headers: orgb })).status).toBe(200);
    const path = "/styles/v1/orgb/borrowed@1/tiles/256/9/268/179.png";
    try {
      // While public, everyone sees the points.
      expect(countColor(await png(await t.fetch(path)), SECRET)).toBeGreaterThan(100);
      await setVisibility("private");
      for (const headers of [member, orgb, {}]) {
        const res = await t.fetch("/styles/v1/orgb/borrowed/tiles/256/9/268/179.png", { headers });
        expect(countColor(await png(res), SECRET)).toBe(0);
        // Nor may a shared cache keep the picture drawn without it: it changes if the tileset turns public.
        expect(res.headers.get("cache-control")).toBe("private");
      }
    } finally {
      await setVisibility("private");
    }
  });
});

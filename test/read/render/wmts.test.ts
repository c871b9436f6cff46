// WMTS capabilities of a style's raster tiles over HTTP: the document's tile matrix sets (the
// well-known GoogleMapsCompatible scales, the 512 px twin), a tile template that serves the tiles it
// names, stable and versioned URLs, caching, private styles and access_token, and bad parameters.
// test/browser/openlayers-raster.test.ts shows a real WMTS client (OpenLayers) drawing the map from it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey } from "../../support/seed";
import { buildWorld, countColor, LAND, pixelsOf, type World } from "./world";

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await makeTestApp();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

/** Every text of `<tag>` in the document, in order. */
const texts = (xml: string, tag: string) => [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, "g"))].map((m) => m[1]!);
const templateOf = (xml: string) => /<ResourceURL format="image\/png" resourceType="tile" template="([^"]+)"\/>/.exec(xml)?.[1];
const unescapeXml = (s: string) => s.replace(/&amp;/g, "&");

test("one layer in GoogleMapsCompatible: zoom 0-22 at the well-known scales, its tiles at the stable URL", async () => {
  const res = await t.fetch("/styles/v1/acme/world/wmts.xml");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/xml; charset=utf-8");
  expect(res.headers.get("cache-control")).toBe("public, max-age=60");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const xml = await res.text();
  expect(xml).toStartWith('<?xml version="1.0" encoding="UTF-8"?>\n<Capabilities xmlns="http://www.opengis.net/wmts/1.0"');
  expect(texts(xml, "ows:ServiceType")).toEqual(["OGC WMTS"]);
  expect(texts(xml, "ows:Title")).toEqual(["World", "World"]);
  expect(texts(xml, "ows:Abstract")).toEqual(["© Test Atlas"]);
  // The layer's identifier, then the tile matrix set's, then one per matrix.
  expect(texts(xml, "ows:Identifier").slice(0, 3)).toEqual(["world", "default", "GoogleMapsCompatible"]);
  expect(texts(xml, "TileMatrixSet")).toEqual(["GoogleMapsCompatible"]);
  expect(texts(xml, "WellKnownScaleSet")).toEqual(["urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible"]);
  expect(texts(xml, "ows:SupportedCRS")).toEqual(["urn:ogc:def:crs:EPSG::3857"]);
  const scales = texts(xml, "ScaleDenominator").map(Number);
  expect(scales).toHaveLength(23);
  // The scale denominators of the well-known scale set (OGC 07-057r7, annex E.4).
  expect(scales[0]).toBeCloseTo(559082264.0287178, 4);
  expect(scales[18]).toBeCloseTo(2132.729583849784, 6);
  expect(scales[22]).toBeCloseTo(133.2955989906115, 6);
  expect(texts(xml, "MatrixWidth").map(Number)).toEqual(Array.from({ length: 23 }, (_, z) => 2 ** z));
  expect(new Set(texts(xml, "TileWidth"))).toEqual(new Set(["256"]));
  expect(new Set(texts(xml, "TopLeftCorner"))).toEqual(new Set(["-20037508.342789244 20037508.342789244"]));
  expect(templateOf(xml)).toBe(`${t.baseUrl}/styles/v1/acme/world/tiles/256/{TileMatrix}/{TileCol}/{TileRow}.png`);
  expect(xml).toContain(`<ServiceMetadataURL xlink:href="${t.baseUrl}/styles/v1/acme/world/wmts.xml"/>`);
  // The template names a tile that serves: row 0 is the top row, as in XYZ (the top-right quarter at zoom 1).
  const tile = await t.fetch(templateOf(xml)!.replace(t.baseUrl, "").replace("{TileMatrix}/{TileCol}/{TileRow}", "1/1/0"));
  expect(tile.status).toBe(200);
  expect(tile.headers.get("content-type")).toBe("image/png");
  expect(countColor(pixelsOf(new Uint8Array(await tile.arrayBuffer())), LAND)).toBeGreaterThan(256 * 256 * 0.25);
});

test("tile_size=512: the 512 px matrix set at half the scale denominators, tiles of the versioned URL, immutable with ETag and 304", async () => {
  const res = await t.fetch("/styles/v1/acme/world@1/wmts.xml?tile_size=512");
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  const xml = await res.text();
  expect(texts(xml, "TileMatrixSet")).toEqual(["GoogleMapsCompatible512"]);
  expect(texts(xml, "WellKnownScaleSet")).toEqual([]);
  expect(texts(xml, "ScaleDenominator").map(Number)[0]).toBeCloseTo(559082264.0287178 / 2, 4);
  expect(new Set(texts(xml, "TileWidth"))).toEqual(new Set(["512"]));
  expect(texts(xml, "ows:Identifier")[0]).toBe("world@1");
  expect(templateOf(xml)).toBe(`${t.baseUrl}/styles/v1/acme/world@1/tiles/512/{TileMatrix}/{TileCol}/{TileRow}.png`);
  expect(xml).toContain(`<ServiceMetadataURL xlink:href="${t.baseUrl}/styles/v1/acme/world@1/wmts.xml?tile_size=512"/>`);
  const etag = res.headers.get("etag")!;
  expect(etag).toMatch(/^"/);
  expect((await t.fetch("/styles/v1/acme/world@1/wmts.xml?tile_size=512", { headers: { "if-none-match": etag } })).status).toBe(304);
  // Another tile size is another document.
  expect((await t.fetch("/styles/v1/acme/world@1/wmts.xml")).headers.get("etag")).not.toBe(etag);
});

test("a private style: 404 without a key of its organization; with one in access_token the template carries it and is private", async () => {
  const anon = await t.fetch("/styles/v1/acme/secret/wmts.xml");
  expect(anon.status).toBe(404);
  expect(((await anon.json()) as { error: { code: string } }).error.code).toBe("STYLE_NOT_FOUND");
  expect((await t.fetch("/styles/v1/acme/secret/wmts.xml", { headers: { "x-api-key": w.staticKey } })).status).toBe(404);
  const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
  const token = `access_token=${encodeURIComponent(key)}`;
  const res = await t.fetch(`/styles/v1/acme/secret/wmts.xml?${token}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("private");
  const xml = await res.text();
  const template = unescapeXml(templateOf(xml)!);
  expect(template).toBe(`${t.baseUrl}/styles/v1/acme/secret/tiles/256/{TileMatrix}/{TileCol}/{TileRow}.png?${token}`);
  expect((await t.fetch(template.replace(t.baseUrl, "").replace("{TileMatrix}/{TileCol}/{TileRow}", "1/1/0"))).status).toBe(200);
  // A key sent as a header goes with the tiles too: it is not written into the document.
  const byHeader = await t.fetch("/styles/v1/acme/secret/wmts.xml", { headers: { "x-api-key": key } });
  expect(byHeader.status).toBe(200);
  expect(byHeader.headers.get("cache-control")).toBe("private");
  expect(await byHeader.text()).not.toContain(key);
});

test("bad parameters: tile_size other than 256 or 512, a repeated parameter, a missing style", async () => {
  const bad = await t.fetch("/styles/v1/acme/world/wmts.xml?tile_size=300");
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("tile_size");
  const twice = await t.fetch("/styles/v1/acme/world/wmts.xml?tile_size=512&tile_size=256");
  expect(twice.status).toBe(400);
  expect(((await twice.json()) as { error: { message: string } }).error.message).toBe("tile_size is given more than once");
  const missing = await t.fetch("/styles/v1/acme/nowhere/wmts.xml");
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("STYLE_NOT_FOUND");
  expect((await t.fetch("/styles/v1/acme/world@99/wmts.xml")).status).toBe(404);
});

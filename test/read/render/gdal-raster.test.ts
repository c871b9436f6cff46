// A style's raster tiles through GDAL, as QGIS and other desktop GIS reach them: the WMTS driver on
// wmts.xml (stable and versioned, 256 and 512 px, a private style with access_token) and the WMS driver's
// TMS minidriver on the XYZ tile URLs. Each reads a lon/lat window to a georeferenced PNG, whose
// georeferencing and whose colours at known places (Sahara: land, North Atlantic: ocean) must be right.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { serveTestApp, tempDir, type TestApp } from "../../support/app";
import { seedKey } from "../../support/seed";
import { gdal, gdalOk, mercator } from "../../support/gdal";
import { buildWorld, colorAt, countColor, LAND, OCEAN, pixelsOf, type World } from "./world";

let t: TestApp;
let w: World;
const dir = tempDir("mapstead-gdal-raster-");

beforeAll(async () => {
  t = await serveTestApp();
  w = await buildWorld(t);
}, 60_000);
afterAll(() => t?.close());

// 60°W-60°E, 0-60°N: the North Atlantic, Europe and North Africa.
const WINDOW = { west: -60, north: 60, east: 60, south: 0 };
const SAHARA: [number, number] = [10, 25];
const ATLANTIC: [number, number] = [-40, 30];

interface Info {
  size: [number, number];
  geoTransform: [number, number, number, number, number, number];
  metadata?: { ""?: Record<string, string> };
}
const infoOf = async (path: string) => JSON.parse(await gdalOk("gdalinfo", ["-json", path])) as Info;

/** gdal_translate of WINDOW from `source` to a 512 px wide PNG: its pixels and georeferencing. */
async function translate(source: string, name: string) {
  const out = join(dir, `${name}.png`);
  await gdalOk("gdal_translate", ["-q", "-of", "PNG", "-projwin", ...[WINDOW.west, WINDOW.north, WINDOW.east, WINDOW.south].map(String), "-projwin_srs", "EPSG:4326", "-outsize", "512", "0", source, out]);
  const info = await infoOf(out);
  const px = pixelsOf(new Uint8Array(await Bun.file(out).arrayBuffer()));
  const [x0, dx, , y0, , dy] = info.geoTransform;
  const at = (lon: number, lat: number) => {
    const [mx, my] = mercator(lon, lat);
    return colorAt(px, Math.floor((mx - x0) / dx), Math.floor((my - y0) / dy));
  };
  return { info, px, at };
}

const near = (c: number[], rgb: [number, number, number]) => rgb.every((v, i) => Math.abs(c[i]! - v) <= 16);

/** The window is where it was asked for, land and ocean where the world has them. */
function expectWindowDrawn(r: Awaited<ReturnType<typeof translate>>) {
  const [x0, dx, , y0, , dy] = r.info.geoTransform;
  const [west, north] = mercator(WINDOW.west, WINDOW.north);
  const [east, south] = mercator(WINDOW.east, WINDOW.south);
  expect(r.info.size[0]).toBe(512);
  expect(Math.abs(x0 - west)).toBeLessThan(Math.abs(dx));
  expect(Math.abs(y0 - north)).toBeLessThan(Math.abs(dy));
  expect(Math.abs(x0 + dx * r.info.size[0] - east)).toBeLessThan(Math.abs(dx));
  expect(Math.abs(y0 + dy * r.info.size[1] - south)).toBeLessThan(Math.abs(dy));
  expect(near(r.at(...SAHARA), LAND)).toBe(true);
  expect(near(r.at(...ATLANTIC), OCEAN)).toBe(true);
  const total = r.px.width * r.px.height;
  expect(countColor(r.px, LAND, 16)).toBeGreaterThan(total * 0.25);
  expect(countColor(r.px, OCEAN, 16)).toBeGreaterThan(total * 0.2);
}

describe("WMTS driver on wmts.xml", () => {
  test("gdalinfo: the style's one layer in EPSG:3857, the whole world at zoom 22 of 256 px tiles, its title and attribution", async () => {
    const info = await infoOf(`WMTS:${t.baseUrl}/styles/v1/acme/world/wmts.xml`);
    // 2^22 tiles of 256 px a side; origin the top-left corner of the Web Mercator square.
    expect(info.size).toEqual([2 ** 30, 2 ** 30]);
    expect(info.geoTransform[0]).toBeCloseTo(-20037508.342789244, 3);
    expect(info.geoTransform[3]).toBeCloseTo(20037508.342789244, 3);
    expect(info.geoTransform[1]).toBeCloseTo((2 * 20037508.342789244) / 2 ** 30, 9);
    expect(info.metadata?.[""]).toMatchObject({ TITLE: "World", ABSTRACT: "© Test Atlas" });
  });

  test("gdal_translate of a lon/lat window from the stable 256 px document", async () => {
    expectWindowDrawn(await translate(`WMTS:${t.baseUrl}/styles/v1/acme/world/wmts.xml`, "wmts-256"));
  });

  test("the versioned 512 px document (GoogleMapsCompatible512) draws the same window", async () => {
    const source = `WMTS:${t.baseUrl}/styles/v1/acme/world@1/wmts.xml?tile_size=512`;
    const info = await infoOf(source);
    // 2^21 tiles of 512 px: the same ground resolution at the deepest matrix.
    expect(info.size).toEqual([2 ** 30, 2 ** 30]);
    expectWindowDrawn(await translate(source, "wmts-512"));
  });

  test("a private style: not found without a key; with ?access_token= GDAL reads the document and its tiles", async () => {
    const anon = await gdal("gdalinfo", [`WMTS:${t.baseUrl}/styles/v1/acme/secret/wmts.xml`]);
    expect(anon.code).not.toBe(0);
    const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
    expectWindowDrawn(await translate(`WMTS:${t.baseUrl}/styles/v1/acme/secret/wmts.xml?access_token=${key}`, "wmts-private"));
  });
});

describe("WMS driver, TMS minidriver, on the XYZ tile URLs", () => {
  const serviceXml = (url: string) =>
    `<GDAL_WMS><Service name="TMS"><ServerUrl>${url}</ServerUrl></Service>` +
    "<DataWindow><UpperLeftX>-20037508.34</UpperLeftX><UpperLeftY>20037508.34</UpperLeftY><LowerRightX>20037508.34</LowerRightX><LowerRightY>-20037508.34</LowerRightY>" +
    "<TileLevel>22</TileLevel><TileCountX>1</TileCountX><TileCountY>1</TileCountY><YOrigin>top</YOrigin></DataWindow>" +
    "<Projection>EPSG:3857</Projection><BlockSizeX>256</BlockSizeX><BlockSizeY>256</BlockSizeY><BandsCount>4</BandsCount></GDAL_WMS>";

  test("256 px tiles with ${z}/${x}/${y}, row 0 at the top", async () => {
    expectWindowDrawn(await translate(serviceXml(`${t.baseUrl}/styles/v1/acme/world/tiles/256/\${z}/\${x}/\${y}.png`), "tms-256"));
  });

  test("a private style's tiles with ?access_token= in the template", async () => {
    const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
    const url = `${t.baseUrl}/styles/v1/acme/secret@1/tiles/256/\${z}/\${x}/\${y}.png?access_token=${key}`;
    expectWindowDrawn(await translate(serviceXml(url), "tms-private"));
  });
});

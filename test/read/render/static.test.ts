// Static images over HTTP through the real app: a published world style drawn with overlays, auto-fit,
// bearing, @2x and every format; keys, scopes, billing headers, private styles, caching and 400s.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jpeg from "jpeg-js";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey } from "../../support/seed";
import { createLogger } from "../../../src/log";
import { encodePolyline } from "../../../src/polyline";
import { MAX_COLLECTION_DEPTH, MAX_MARKERS, MAX_OVERLAY_CHARS } from "../../../src/read/render/overlays";
import { publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { squareSvg, zipOf } from "../../sprites/fixtures";
import { buildWorld, colorAt, countColor, LAND, OCEAN, pixelsOf, worldStyle, type Pixels, type World } from "./world";

let t: TestApp;
let w: World;
/** Every log line of the app (access log included), to prove keys never reach it. */
const logLines: string[] = [];

beforeAll(async () => {
  t = await makeTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (line) => logLines.push(line)) });
  w = await buildWorld(t);
});
afterAll(() => t?.close());

const MAGENTA: [number, number, number] = [255, 0, 255];
const CYAN: [number, number, number] = [0, 255, 255];
const YELLOW: [number, number, number] = [255, 255, 0];
const TEXT: [number, number, number] = [51, 51, 51];

const get = (path: string, key: string | null = w.staticKey, headers: Record<string, string> = {}) => t.fetch(path, { headers: key ? { "x-api-key": key, ...headers } : headers });

async function image(path: string, key: string | null = w.staticKey): Promise<Pixels> {
  const res = await get(path, key);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toBe("image/png");
  return pixelsOf(new Uint8Array(await res.arrayBuffer()));
}

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** Bounding box of the pixels of one colour. */
function boxOf(px: Pixels, rgb: [number, number, number]) {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < px.height; y++)
    for (let x = 0; x < px.width; x++) {
      const [r, g, b] = colorAt(px, x, y);
      if (Math.abs(r - rgb[0]) < 10 && Math.abs(g - rgb[1]) < 10 && Math.abs(b - rgb[2]) < 10) {
        minX = Math.min(minX, x);
        maxX = Math.max(maxX, x);
        minY = Math.min(minY, y);
        maxY = Math.max(maxY, y);
      }
    }
  return { minX, minY, maxX, maxY };
}

/** Pixels of `rgb` inside a rectangle. */
function countIn(px: Pixels, rgb: [number, number, number], x0: number, y0: number, x1: number, y1: number, tolerance = 40): number {
  let n = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      const [r, g, b] = colorAt(px, x, y);
      if (Math.abs(r - rgb[0]) <= tolerance && Math.abs(g - rgb[1]) <= tolerance && Math.abs(b - rgb[2]) <= tolerance) n++;
    }
  return n;
}

describe("images", () => {
  test("a world view draws the style: ocean, land, and a pin exactly at its coordinates", async () => {
    const px = await image(`/static/v1/acme/world/10,30,1/400x300.png?overlay=${encodeURIComponent("pin-l+f0f(10,30)")}`);
    expect([px.width, px.height]).toEqual([400, 300]);
    expect(countColor(px, OCEAN)).toBeGreaterThan(400 * 300 * 0.2);
    expect(countColor(px, LAND)).toBeGreaterThan(400 * 300 * 0.2);
    const pin = boxOf(px, MAGENTA);
    expect((pin.minX + pin.maxX) / 2).toBeCloseTo(200, -1);
    expect((pin.minY + pin.maxY) / 2).toBeCloseTo(150, -1);
  });

  test("a marker's label shows on light markers too: dark on white and yellow, white on dark ones", async () => {
    const labelled = async (color: string) =>
      image(`/static/v1/acme/world/10,30,3/100x100@2x.png?attribution=false&logo=false&overlay=${encodeURIComponent(`pin-l-a+${color}(10,30)`)}`);
    // Inside the disc (radius about 2 x 13 px) around the centre (100, 100).
    const dark = (px: Pixels) => countIn(px, [34, 34, 34], 85, 85, 115, 115, 40);
    const white = (px: Pixels) => countIn(px, [255, 255, 255], 85, 85, 115, 115, 20);
    for (const light of ["fff", "ff0"]) expect(dark(await labelled(light))).toBeGreaterThan(20);
    const navy = await labelled("008");
    expect(dark(navy)).toBeLessThan(5);
    expect(white(navy)).toBeGreaterThan(20);
  });

  test("paths (polyline) and GeoJSON polygons are drawn with their colours", async () => {
    // From (0,0) to (20,20) and a filled square around (-20,-20). The '+' left unencoded in the query
    // (read as a space) still works.
    const path = `path-6 0ff(${encodeURIComponent("??_c`|@_c`|@")})`;
    const square = { type: "Feature", properties: { fill: "#ff0", "fill-opacity": 1, stroke: "#ff0" }, geometry: { type: "Polygon", coordinates: [[[-25, -25], [-15, -25], [-15, -15], [-25, -15], [-25, -25]]] } };
    const px = await image(`/static/v1/acme/world/0,0,2/400x400.png?overlay=${path},geojson(${encodeURIComponent(JSON.stringify(square))})`);
    const line = boxOf(px, CYAN);
    expect(line.minX).toBeGreaterThan(195);
    expect(line.maxY).toBeLessThan(205);
    expect(line.maxX - line.minX).toBeGreaterThan(50);
    const fill = boxOf(px, YELLOW);
    expect(fill.maxX).toBeLessThan(200);
    expect(fill.minY).toBeGreaterThan(200);
    expect(countColor(px, YELLOW, 10)).toBeGreaterThan(1000);
  });

  test("overlays in the path segment work like the query parameter", async () => {
    const px = await image(`/static/v1/acme/world/${encodeURIComponent("pin-s+f0f(0,0)")}/0,0,1/200x200.png`);
    expect(countColor(px, MAGENTA, 10)).toBeGreaterThan(20);
    // An encoded '/' inside the overlay segment stays inside it.
    const slash = { type: "Feature", properties: { title: "a/b", "marker-color": "#f0f" }, geometry: { type: "Point", coordinates: [0, 0] } };
    const withSlash = await image(`/static/v1/acme/world/geojson(${encodeURIComponent(JSON.stringify(slash))})/0,0,1/200x200.png`);
    expect(countColor(withSlash, MAGENTA, 10)).toBeGreaterThan(20);
  });

  test("auto fits every overlay inside the padding", async () => {
    const pins = encodeURIComponent("pin-s+f0f(-40,-20),pin-s+0ff(60,40)");
    const px = await image(`/static/v1/acme/world/auto/400x300.png?overlay=${pins}&padding=40`);
    const a = boxOf(px, MAGENTA);
    const b = boxOf(px, CYAN);
    // Pin centres land on the padding edges (the fit is tight), pins stay inside the image.
    expect((a.minX + a.maxX) / 2).toBeCloseTo(40, -1);
    expect((b.minX + b.maxX) / 2).toBeCloseTo(360, -1);
    expect(Math.min(a.minY, b.minY)).toBeGreaterThan(20);
    expect(Math.max(a.maxY, b.maxY)).toBeLessThan(280);
  });

  test("nested GeometryCollections are drawn and fitted by auto at any depth up to the limit; deeper is a 400", async () => {
    const nest = (geometry: object, depth: number): object => (depth === 0 ? geometry : nest({ type: "GeometryCollection", geometries: [geometry] }, depth - 1));
    const point = { type: "Point", coordinates: [8, 47] };
    // The reviewer's URL: a bare collection inside a collection, with auto (once a 500 "The renderer failed").
    const bare = await get(`/static/v1/acme/world/geojson(${encodeURIComponent(JSON.stringify(nest(point, 2)))})/auto/300x200.png`);
    expect(bare.status).toBe(200);
    for (const depth of [2, 3, MAX_COLLECTION_DEPTH]) {
      const feature = { type: "Feature", properties: { "marker-color": "#f0f" }, geometry: nest(point, depth) };
      const overlay = `geojson(${encodeURIComponent(JSON.stringify(feature))})`;
      // auto centres the view on the point, which is drawn there.
      const fitted = await image(`/static/v1/acme/world/${overlay}/auto/300x200.png?attribution=false&logo=false`);
      const pin = boxOf(fitted, MAGENTA);
      expect((pin.minX + pin.maxX) / 2).toBeCloseTo(150, -1);
      expect((pin.minY + pin.maxY) / 2).toBeCloseTo(100, -1);
      // A fixed view draws it as well (the inner point used to be left out).
      const fixed = await image(`/static/v1/acme/world/${overlay}/8,47,3/300x200.png?attribution=false&logo=false`);
      expect(countColor(fixed, MAGENTA, 10)).toBeGreaterThan(20);
    }
    // A point beside a nested line: auto fits both.
    const mixed = { type: "GeometryCollection", geometries: [{ type: "Point", coordinates: [-40, -20] }, nest({ type: "LineString", coordinates: [[50, 30], [60, 40]] }, 2)] };
    const both = await image(`/static/v1/acme/world/auto/400x300.png?padding=40&overlay=${encodeURIComponent(`geojson(${JSON.stringify({ type: "Feature", properties: { "marker-color": "#f0f", stroke: "#0ff", "stroke-width": 4 }, geometry: mixed })})`)}`);
    expect((boxOf(both, MAGENTA).minX + boxOf(both, MAGENTA).maxX) / 2).toBeCloseTo(40, -1);
    expect(boxOf(both, CYAN).maxX).toBeCloseTo(360, -1);
    // Beyond the limit: a 400 naming the nesting, for a fixed view and for auto alike.
    for (const position of ["auto", "8,47,3"]) {
      const deep = await get(`/static/v1/acme/world/geojson(${encodeURIComponent(JSON.stringify(nest(point, MAX_COLLECTION_DEPTH + 1)))})/${position}/300x200.png`);
      expect(deep.status).toBe(400);
      const error = await errorOf(deep);
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.message).toContain(`GeometryCollections nested more than ${MAX_COLLECTION_DEPTH} deep`);
    }
  });

  test("bearing turns the map: with bearing 90 a pin east of the centre is drawn above it", async () => {
    const px = await image(`/static/v1/acme/world/0,0,3,90/200x200.png?overlay=${encodeURIComponent("pin-s+f0f(5,0)")}`);
    const pin = boxOf(px, MAGENTA);
    expect((pin.minX + pin.maxX) / 2).toBeCloseTo(100, -1);
    expect((pin.minY + pin.maxY) / 2).toBeLessThan(80);
  });

  test("Mapbox's {lon},{lat},{zoom},{bearing},{pitch} with pitch 0 is the same image; another pitch is a 400", async () => {
    const plain = await get("/static/v1/acme/world/8.54,47.37,3/120x80.png");
    const pitched = await get("/static/v1/acme/world/8.54,47.37,3,0,0/120x80.png");
    expect(pitched.status).toBe(200);
    expect(pitched.headers.get("etag")).toBe(plain.headers.get("etag"));
    const tilted = await get("/static/v1/acme/world/8.54,47.37,3,0,30/120x80.png");
    expect(tilted.status).toBe(400);
    expect((await errorOf(tilted)).message).toContain("pitch 30 is not supported");
  });

  test("Mapbox's [minLon,minLat,maxLon,maxLat] fits the box to the image, with padding", async () => {
    // A magenta box drawn as an overlay, and the image's view set to the same box: it fills the image on
    // its tighter side (here the height: 40 degrees of latitude near the equator in a 200x200 image).
    const square = { type: "Feature", properties: { fill: "#f0f", "fill-opacity": 1, "stroke-width": 0 }, geometry: { type: "Polygon", coordinates: [[[-10, -20], [10, -20], [10, 20], [-10, 20], [-10, -20]]] } };
    const overlay = `overlay=geojson(${encodeURIComponent(JSON.stringify(square))})&attribution=false&logo=false`;
    const px = await image(`/static/v1/acme/world/[-10,-20,10,20]/200x200.png?${overlay}`);
    const box = boxOf(px, MAGENTA);
    expect(box.minY).toBeLessThanOrEqual(1);
    expect(box.maxY).toBeGreaterThanOrEqual(198);
    expect((box.minX + box.maxX) / 2).toBeCloseTo(100, -1);
    const padded = boxOf(await image(`/static/v1/acme/world/%5B-10,-20,10,20%5D/200x200.png?${overlay}&padding=30`), MAGENTA);
    expect(padded.minY).toBeCloseTo(30, -1);
    expect(padded.maxY).toBeCloseTo(170, -1);
  });

  test("before_layer draws the overlays beneath that style layer; an unknown layer is a 400 naming it", async () => {
    const pin = `overlay=${encodeURIComponent("pin-l+f0f(10,30)")}&attribution=false&logo=false`;
    const onTop = await image(`/static/v1/acme/world/10,30,1/200x200.png?${pin}`);
    expect(countColor(onTop, MAGENTA, 10)).toBeGreaterThan(100);
    // beneath the land fill, over the Sahara, the pin is hidden; beneath the town circles it is not
    // (but for a pixel or two where coastline polygons leave a hairline)
    expect(countColor(await image(`/static/v1/acme/world/10,30,1/200x200.png?${pin}&before_layer=land`), MAGENTA, 10)).toBeLessThan(5);
    expect(countColor(await image(`/static/v1/acme/world/10,30,1/200x200.png?${pin}&before_layer=towns`), MAGENTA, 10)).toBe(countColor(onTop, MAGENTA, 10));
    const res = await get(`/static/v1/acme/world/10,30,1/200x200.png?${pin}&before_layer=roads`);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain("before_layer: the style has no layer 'roads'");
  });

  test("addlayer, setfilter and layer_id are refused by name; a query parameter Mapbox does not have is ignored", async () => {
    for (const name of ["addlayer", "setfilter", "layer_id"]) {
      const res = await get(`/static/v1/acme/world/0,0,1/64x64.png?${name}=x`);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).message).toContain(`${name} is not supported`);
    }
    expect((await get("/static/v1/acme/world/0,0,1/64x64.png?cachebuster=1")).status).toBe(200);
  });

  test("a query parameter given twice is a 400 naming it, any parameter (one overlay parameter holds several overlays)", async () => {
    for (const [query, name] of [["padding=1&padding=2", "padding"], ["overlay=pin-s(1,2)&overlay=pin-s(3,4)", "overlay"], ["logo=false&logo=true", "logo"], ["cachebuster=1&cachebuster=2", "cachebuster"]] as const) {
      const res = await get(`/static/v1/acme/world/auto/64x64.png?overlay=pin-s(0,0)&${query}`.replace("overlay=pin-s(0,0)&overlay", "overlay"));
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      expect(body.error).toMatchObject({ code: "BAD_REQUEST", message: `${name} is given more than once`, details: { parameter: name } });
    }
    expect((await get("/static/v1/acme/world/auto/64x64.png?overlay=pin-s(1,2),pin-s(3,4)")).status).toBe(200);
  });

  test("a marker naming an icon the style's sprite lacks, or any icon without a sprite, is a 400 naming the icon", async () => {
    // the world style has no sprite
    const none = await get(`/static/v1/acme/world/0,0,1/64x64.png?overlay=${encodeURIComponent("pin-l-rocket+f00(0,0)")}`);
    expect(none.status).toBe(400);
    expect((await errorOf(none)).message).toContain("'rocket' needs a sprite, and the style has none");
    // a style whose sprite holds a yellow "cafe"
    const slug = "iconic";
    const draft = { method: "POST", headers: { ...w.session.headers, "content-type": "application/json" }, body: JSON.stringify({ slug }) };
    expect((await t.fetch("/api/v1/orgs/acme/styles", draft)).status).toBe(201);
    const sprite = zipOf({ "cafe.svg": squareSvg("#ffff00", 16) });
    expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}/sprite`, { method: "PUT", headers: { ...w.session.headers, "content-type": "application/zip" }, body: sprite as BodyInit })).status).toBe(200);
    const style = { ...worldStyle(), sprite: `mapstead://sprites/acme/${slug}` };
    expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}/draft`, { method: "PUT", headers: { ...w.session.headers, "content-type": "application/json" }, body: JSON.stringify(style) })).status).toBe(200);
    expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}/publish`, { method: "POST", headers: w.session.headers })).status).toBe(200);
    for (const ratio of ["", "@2x"]) {
      const ok = await image(`/static/v1/acme/${slug}/0,0,1/64x64${ratio}.png?overlay=${encodeURIComponent("pin-l-cafe+f00(0,0)")}&attribution=false&logo=false`);
      expect(countColor(ok, YELLOW, 10)).toBeGreaterThan(50);
      const missing = await get(`/static/v1/acme/${slug}/0,0,1/64x64${ratio}.png?overlay=${encodeURIComponent("pin-l-rocket+f00(0,0)")}`);
      expect(missing.status).toBe(400);
      expect((await errorOf(missing)).message).toContain("the style's sprite has no icon 'rocket'");
    }
    // the same for a GeoJSON marker-symbol
    const point = { type: "Feature", properties: { "marker-symbol": "rocket" }, geometry: { type: "Point", coordinates: [0, 0] } };
    const geo = await get(`/static/v1/acme/${slug}/0,0,1/64x64.png?overlay=geojson(${encodeURIComponent(JSON.stringify(point))})`);
    expect(geo.status).toBe(400);
    expect((await errorOf(geo)).message).toContain("'rocket'");
  });

  test("@2x doubles the pixels", async () => {
    const px = await image("/static/v1/acme/world/0,0,1/150x100@2x.png");
    expect([px.width, px.height]).toEqual([300, 200]);
  });

  test("attribution (bottom-right) and logo (bottom-left) are drawn unless turned off", async () => {
    const on = await image("/static/v1/acme/world/-30,0,1/400x200.png");
    const off = await image("/static/v1/acme/world/-30,0,1/400x200.png?attribution=false&logo=false");
    // Compared with the same image without them (a city label may have dark pixels there too).
    expect(countIn(on, TEXT, 300, 185, 400, 200, 60)).toBeGreaterThan(countIn(off, TEXT, 300, 185, 400, 200, 60) + 20);
    expect(countIn(on, TEXT, 0, 185, 80, 200, 60)).toBeGreaterThan(countIn(off, TEXT, 0, 185, 80, 200, 60) + 20);
  });

  test("on an image wider and taller than the world they stay in the corners", async () => {
    // At zoom 0 the world is 512 px: a corner of 600x400 (or 1280x600) lies beyond it.
    for (const [w, h] of [[600, 400], [1280, 600]] as const) {
      const on = await image(`/static/v1/acme/world/0,0,0/${w}x${h}.png`);
      const off = await image(`/static/v1/acme/world/0,0,0/${w}x${h}.png?attribution=false&logo=false`);
      const changed = (x0: number, y0: number, x1: number, y1: number) => {
        let n = 0;
        for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) if (colorAt(on, x, y).join() !== colorAt(off, x, y).join()) n++;
        return n;
      };
      expect(changed(w - 100, h - 18, w, h)).toBeGreaterThan(50);
      expect(changed(0, h - 18, 80, h)).toBeGreaterThan(50);
      // and nowhere else
      expect(changed(80, 0, w - 100, h) + changed(0, 0, 80, h - 18) + changed(w - 100, 0, w, h - 18)).toBe(0);
    }
  });

  test("jpg and webp", async () => {
    const jpg = await get("/static/v1/acme/world/-30,0,1/200x100.jpg");
    expect(jpg.status).toBe(200);
    expect(jpg.headers.get("content-type")).toBe("image/jpeg");
    const decoded = jpeg.decode(new Uint8Array(await jpg.arrayBuffer()), { useTArray: true });
    expect([decoded.width, decoded.height]).toEqual([200, 100]);
    // The Atlantic west of Africa is ocean blue, within JPEG's error.
    const i = (50 * 200 + 100) * 4;
    expect(Math.abs(decoded.data[i]! - OCEAN[0]) + Math.abs(decoded.data[i + 1]! - OCEAN[1]) + Math.abs(decoded.data[i + 2]! - OCEAN[2])).toBeLessThan(40);

    const webp = await get("/static/v1/acme/world/-30,0,1/200x100.webp");
    expect(webp.status).toBe(200);
    expect(webp.headers.get("content-type")).toBe("image/webp");
    const bytes = new Uint8Array(await webp.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe("RIFF");
    expect(new TextDecoder().decode(bytes.subarray(8, 12))).toBe("WEBP");
  });
});

/** An encoded polyline of precision 5, the one Mapbox's path overlays take. */
const polyline5 = (points: [number, number][]) => encodePolyline(points, 5);

describe("path overlays in the URL path (Mapbox's form)", () => {
  // A line along the equator from 20 W to 20 E whose encoding holds '?', '@' and '\\' (a zero, a -1 and a
  // -15 step), characters that must be URL-encoded in a path.
  const equator = polyline5([[-20, 0], [-20.00001, 0], [-20.00016, 0], [20, 0]]);

  test("the polyline holds the characters that need encoding", () => {
    for (const c of ["?", "@", "\\"]) expect(equator).toContain(c);
  });

  test("path-{strokeWidth}+{strokeColor}-{strokeOpacity}({polyline}), URL-encoded, draws the line where it lies", async () => {
    const overlay = encodeURIComponent(`path-4+f0f-1(${equator})`);
    const px = await image(`/static/v1/acme/world/${overlay}/0,0,2/400x200.png?attribution=false&logo=false`);
    const line = boxOf(px, MAGENTA);
    expect(line.minY).toBeGreaterThan(92);
    expect(line.maxY).toBeLessThan(108);
    expect(line.maxX - line.minX).toBeGreaterThan(100);
    // Only the polyline encoded, the rest as Mapbox's examples write it; a version pin works the same.
    const partly = await image(`/static/v1/acme/world@1/path-4+f0f-1(${encodeURIComponent(equator)})/0,0,2/400x200.png?attribution=false&logo=false`);
    expect(countColor(partly, MAGENTA, 10)).toBe(countColor(px, MAGENTA, 10));
  });

  test("with a fill colour and opacity the path is a polygon; auto fits it", async () => {
    const square = polyline5([[-10, -10], [10, -10], [10, 10], [-10, 10], [-10, -10]]);
    const overlay = encodeURIComponent(`path-2+0ff-1+ff0-1(${square})`);
    const px = await image(`/static/v1/acme/world/${overlay}/auto/300x300.png?padding=50&attribution=false&logo=false`);
    const fill = boxOf(px, YELLOW);
    expect(fill.minX).toBeCloseTo(50, -1);
    expect(fill.maxX).toBeCloseTo(250, -1);
    expect(countColor(px, YELLOW, 10)).toBeGreaterThan(180 * 180);
    expect(countColor(px, CYAN, 10)).toBeGreaterThan(200);
  });

  test("an unencoded '?' cuts the path short: a 400 that says to encode it", async () => {
    const res = await get(`/static/v1/acme/world/path(${equator})/0,0,2/400x200.png`);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toContain("%3F");
  });

  test("in an <img src> with ?access_token= the 401 says the unencoded '?' hid the key, not that none was sent", async () => {
    // The path's '?' starts the query early, so "access_token" is no parameter of its own there.
    const res = await get(`/static/v1/acme/world/path(${equator})/0,0,2/400x200.png?access_token=${encodeURIComponent(w.staticKey)}`, null);
    expect(res.status).toBe(401);
    const message = (await errorOf(res)).message;
    expect(message).toContain("second '?'");
    expect(message).toContain("%3F");
  });

  test("the OpenAPI document describes both forms, the overlay segment included", async () => {
    const doc = (await (await t.fetch("/openapi.json")).json()) as { paths: Record<string, { get?: { parameters?: { in: string; name: string; description?: string }[]; responses: Record<string, unknown> } }> };
    const withOverlay = doc.paths["/static/v1/{owner}/{style}/{overlay}/{position}/{size}"]?.get;
    const without = doc.paths["/static/v1/{owner}/{style}/{position}/{size}"]?.get;
    for (const op of [withOverlay, without]) {
      expect(Object.keys(op!.responses).sort()).toEqual(["200", "304", "400", "401", "403", "404", "429", "503"]);
      expect(op!.parameters!.filter((p) => p.in === "query").map((p) => p.name)).toEqual(["overlay", "padding", "before_layer", "attribution", "logo", "access_token"]);
    }
    expect(withOverlay!.parameters!.filter((p) => p.in === "path").map((p) => p.name)).toEqual(["owner", "style", "overlay", "position", "size"]);
    expect(without!.parameters!.filter((p) => p.in === "path").map((p) => p.name)).toEqual(["owner", "style", "position", "size"]);
    expect(withOverlay!.parameters!.find((p) => p.name === "overlay" && p.in === "path")!.description).toContain("path[-{strokeWidth}][+{strokeColor}][-{strokeOpacity}][+{fillColor}][-{fillOpacity}]({polyline})");
  });
});

describe("access_token (the key in the URL, for <img src>)", () => {
  const path = "/static/v1/acme/world/0,0,1/64x64.png";
  const token = (key: string) => `access_token=${encodeURIComponent(key)}`;

  test("a static_maps key as access_token draws the image and is billed like the header", async () => {
    const key = seedKey(t.ctx, w.orgId, ["static_maps"], { monthlyQuota: 10 }).secret;
    const res = await get(`${path}?${token(key)}`, null);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-quota-used")).toBe("1");
    expect(res.headers.get("x-ratelimit-limit")).toBe("600");
  });

  test("the same rules as X-API-Key: malformed or unknown 401, wrong scope 403, private styles need maps:read", async () => {
    const malformed = await get(`${path}?access_token=nope`, null);
    expect(malformed.status).toBe(401);
    expect((await errorOf(malformed)).message).toContain("access_token");
    expect((await get(`${path}?${token("msk_" + "a".repeat(43) + "x")}`, null)).status).toBe(401);
    const wrong = await get(`${path}?${token(w.otherKey)}`, null);
    expect(wrong.status).toBe(403);
    expect((await errorOf(wrong)).code).toBe("INSUFFICIENT_SCOPE");
    const hidden = await get(`/static/v1/acme/secret/0,0,1/64x64.png?${token(w.staticKey)}`, null);
    expect(hidden.status).toBe(404);
    expect((await errorOf(hidden)).code).toBe("STYLE_NOT_FOUND");
    expect((await get(`/static/v1/acme/secret/0,0,1/64x64.png?${token(w.privateKey)}`, null)).status).toBe(200);
    const twice = await get(`${path}?${token(w.staticKey)}&${token(w.staticKey)}`, null);
    expect(twice.status).toBe(401);
    expect((await errorOf(twice)).message).toContain("more than once");
  });

  test("the header wins over the parameter; the 401 without either names both places", async () => {
    expect((await get(`${path}?access_token=nope`)).status).toBe(200);
    const none = await get(path, null);
    expect((await errorOf(none)).message).toContain("access_token");
  });

  test("other service routes do not take it: only the header counts there", async () => {
    const geocoding = await t.fetch(`/geocoding/v1/forward?q=berlin&${token(w.otherKey)}`);
    expect(geocoding.status).toBe(401);
    expect((await errorOf(geocoding)).message).not.toContain("access_token");
  });

  test("keys given as access_token never reach the log", async () => {
    await get(`${path}?${token(w.staticKey)}&x=1`, null);
    await get(`/static/v1/acme/world/0,0,99/64x64.png?${token(w.staticKey)}`, null);
    // The access log is written after the response; wait for the line of the last request.
    const logged = () => logLines.some((l) => l.includes('"msg":"request"') && l.includes("/static/v1/acme/world/0,0,99/64x64.png"));
    for (let i = 0; i < 200 && !logged(); i++) await Bun.sleep(5);
    expect(logged()).toBe(true);
    for (const key of [w.staticKey, w.privateKey, w.otherKey]) expect(logLines.join("\n")).not.toContain(key);
    expect(logLines.join("\n")).not.toContain("access_token");
  });
});

describe("access and billing", () => {
  const path = "/static/v1/acme/world/0,0,1/64x64.png";

  test("no key 401, a key without static_maps 403, a static_maps key or a session 200", async () => {
    const none = await get(path, null);
    expect(none.status).toBe(401);
    expect((await errorOf(none)).code).toBe("UNAUTHORIZED");
    const wrong = await get(path, w.otherKey);
    expect(wrong.status).toBe(403);
    expect((await errorOf(wrong)).code).toBe("INSUFFICIENT_SCOPE");
    expect((await get(path, "msk_not-a-key")).status).toBe(401);
    const ok = await get(path);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-limit")).toBe("600");
    expect(Number(ok.headers.get("x-ratelimit-remaining"))).toBeLessThan(600);
    const session = await t.fetch(path, { headers: { cookie: w.session.cookie } });
    expect(session.status).toBe(200);
  });

  test("billable: quota headers count successful images only; the quota runs out with 429", async () => {
    const key = seedKey(t.ctx, w.orgId, ["static_maps"], { monthlyQuota: 2 }).secret;
    const first = await get(path, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-quota-used")).toBe("1");
    expect(first.headers.get("x-quota-remaining")).toBe("1");
    const bad = await get("/static/v1/acme/world/0,0,99/64x64.png", key);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-quota-used")).toBe("1");
    expect((await get(path, key)).headers.get("x-quota-used")).toBe("2");
    const over = await get(path, key);
    expect(over.status).toBe(429);
    expect((await errorOf(over)).code).toBe("QUOTA_EXCEEDED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("a private style needs maps:read (or a member session); otherwise the same 404 as a missing style", async () => {
    const hidden = await get("/static/v1/acme/secret/0,0,1/64x64.png");
    expect(hidden.status).toBe(404);
    expect((await errorOf(hidden)).code).toBe("STYLE_NOT_FOUND");
    const missing = await get("/static/v1/acme/nope/0,0,1/64x64.png");
    expect(await errorOf(missing)).toEqual(await errorOf(await get("/static/v1/acme/secret/0,0,1/64x64.png")));
    expect((await get("/static/v1/acme/secret/0,0,1/64x64.png", w.privateKey)).status).toBe(200);
    expect((await t.fetch("/static/v1/acme/secret/0,0,1/64x64.png", { headers: { cookie: w.session.cookie } })).status).toBe(200);
  });

  test("CORS: the caller's origin is echoed, as for the other service APIs", async () => {
    const res = await get(path, w.staticKey, { origin: "https://app.example" });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
  });
});

describe("caching and errors", () => {
  test("versioned styles cache a day, the stable one a minute; ETag and 304", async () => {
    const stable = await get("/static/v1/acme/world/0,0,1/64x64.png");
    expect(stable.headers.get("cache-control")).toBe("private, max-age=60");
    const versioned = await get("/static/v1/acme/world@1/0,0,1/64x64.png");
    expect(versioned.headers.get("cache-control")).toBe("private, max-age=86400");
    const etag = versioned.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await get("/static/v1/acme/world@1/0,0,1/64x64.png", w.staticKey, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    // Another view is another image.
    expect((await get("/static/v1/acme/world@1/0,0,2/64x64.png")).headers.get("etag")).not.toBe(etag);
  });

  test("unknown owner, style or version: 404 STYLE_NOT_FOUND", async () => {
    for (const p of ["/static/v1/nobody/world/0,0,1/64x64.png", "/static/v1/acme/world@9/0,0,1/64x64.png", "/static/v1/acme/World!/0,0,1/64x64.png"]) {
      const res = await get(p);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe("STYLE_NOT_FOUND");
    }
  });

  test("bad input is a 400 naming the parameter, for a caller with a valid key", async () => {
    const cases: [string, string][] = [
      ["/static/v1/acme/world/0,0,23/64x64.png", "zoom"],
      ["/static/v1/acme/world/0,0,1,400/64x64.png", "bearing"],
      ["/static/v1/acme/world/0,0,1/2000x64.png", "width"],
      ["/static/v1/acme/world/0,0,1/64x64.gif", "format"],
      ["/static/v1/acme/world/auto/64x64.png", "auto"],
      [`/static/v1/acme/world/0,0,1/64x64.png?overlay=${encodeURIComponent("pin-s(1,2")}`, "overlay"],
      [`/static/v1/acme/world/0,0,1/64x64.png?overlay=${encodeURIComponent("geojson({)")}`, "geojson"],
      ["/static/v1/acme/world/0,0,1/64x64.png?overlay=path(%20%20)", "polyline"],
      ["/static/v1/acme/world/0,0,1/64x64.png?padding=3", "padding"],
      ["/static/v1/acme/world/0,0,1", "path"],
      ["/static/v1/acme/world/181,0,1/64x64.png", "lon"],
      ["/static/v1/acme/world/-180.5,0,1/64x64.png", "lon"],
      ["/static/v1/acme/world/0,86,1/64x64.png", "lat"],
      ["/static/v1/acme/world/0,-86,1/64x64.png", "lat"],
      ["/static/v1/acme/world/0,0,-1/64x64.png", "zoom"],
      ["/static/v1/acme/world/0,0,1,-5/64x64.png", "bearing"],
      ["/static/v1/acme/world/x,0,1/64x64.png", "position"],
      ["/static/v1/acme/world/0,0,1/0x64.png", "width"],
      ["/static/v1/acme/world/0,0,1/64x1281.png", "height"],
      ["/static/v1/acme/world/0,0,1/1281x64@2x.png", "width"],
      ["/static/v1/acme/world/0,0,1/64x64@3x.png", "size"],
      ["/static/v1/acme/world/0,0,1/64x64.png?attribution=maybe", "attribution"],
      ["/static/v1/acme/world/0,0,1/64x64.png?logo=no", "logo"],
      [`/static/v1/acme/world/auto/64x64.png?overlay=${encodeURIComponent("pin-s(1,2)")}&padding=40`, "padding"],
      [`/static/v1/acme/world/${encodeURIComponent("geojson({\"type\":\"Point\"})")}/0,0,1/64x64.png`, "geojson"],
      [`/static/v1/acme/world/${encodeURIComponent("path-5+f44-0.5(_p~iF~ps|U_ulL)")}/0,0,1/64x64.png`, "polyline"],
      [`/static/v1/acme/world/0,0,1/64x64.png?overlay=${Array.from({ length: MAX_MARKERS + 1 }, () => "pin-s(1,1)").join(",")}`, "markers"],
      [`/static/v1/acme/world/0,0,1/64x64.png?overlay=geojson(${encodeURIComponent(JSON.stringify({ type: "MultiPoint", coordinates: Array.from({ length: 1500 }, () => [1.5, 1.5]) }))})`, `at most ${MAX_OVERLAY_CHARS}`],
    ];
    for (const [p, mentions] of cases) {
      const res = await get(p);
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.message).toContain(mentions);
    }
  });
});

describe("renders and the tile routes side by side", () => {
  // Both keep tiles in the one published cache; a tile a render read first must still be served by the
  // tile route (a render once left a value of its own shape where the tile route looks, and the tile
  // route then failed on every tile the render had read).
  test("tiles a render read are still answered by the tile route, and the other way round", async () => {
    const tilesOf = (slug: string) => [0, 1].flatMap((z) => Array.from({ length: 4 ** z }, (_, i) => `/tiles/v1/acme/${slug}@1/${z}/${i % 2 ** z}/${Math.floor(i / 2 ** z)}.mvt`));
    await image("/static/v1/acme/world/0,0,0/256x256.png?attribution=false&logo=false");
    for (const path of tilesOf("countries")) expect([path, (await t.fetch(path)).status]).toEqual([path, 200]);
    for (const path of tilesOf("cities")) expect([200, 204]).toContain((await t.fetch(path)).status);
    expect(countColor(await image("/static/v1/acme/world/0,0,1/256x256.png?attribution=false&logo=false"), LAND)).toBeGreaterThan(256 * 256 * 0.1);
  });
});

describe("publishing", () => {
  test("a new version changes the stable image at once; the versioned image stays", async () => {
    const before = await image("/static/v1/acme/world/-30,0,2/64x64.png?attribution=false&logo=false");
    expect(countColor(before, OCEAN)).toBeGreaterThan(64 * 64 * 0.5);
    const red: [number, number, number] = [200, 10, 10];
    const style = { ...worldStyle(), layers: worldStyle().layers.map((l) => (l.id === "ocean" ? { ...l, paint: { "background-color": `rgb(${red})` } } : l)) };
    const draft = await t.fetch("/api/v1/orgs/acme/styles/world/draft", { method: "PUT", headers: { ...w.session.headers, "content-type": "application/json" }, body: JSON.stringify(style) });
    expect(draft.status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/world/publish", { method: "POST", headers: w.session.headers })).status).toBe(200);
    const after = await image("/static/v1/acme/world/-30,0,2/64x64.png?attribution=false&logo=false");
    expect(countColor(after, red)).toBeGreaterThan(64 * 64 * 0.5);
    const pinned = await image("/static/v1/acme/world@1/-30,0,2/64x64.png?attribution=false&logo=false");
    expect(countColor(pinned, OCEAN)).toBeGreaterThan(64 * 64 * 0.5);
  });

  test("a new tileset version changes the stable image at once: no tile kept for renders shows the old data", async () => {
    const view = "/static/v1/acme/world/10,30,1/64x64.png?attribution=false&logo=false";
    expect(countColor(await image(view), LAND)).toBeGreaterThan(64 * 64 * 0.2);
    const islet = { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[-170, -1], [-169, -1], [-169, 1], [-170, 1], [-170, -1]]] } }] };
    expect((await upload(t, "acme", "countries", w.session.headers, JSON.stringify(islet), "?maxzoom=4&layer=countries")).status).toBe(202);
    expect(((await waitForVersion(t, "acme", "countries", 2, w.session.headers)) as { state: string }).state).toBe("ready");
    expect((await publish(t, "acme", "countries", 2, w.session.headers)).status).toBe(200);
    expect(countColor(await image(view), LAND)).toBe(0);
  });
});

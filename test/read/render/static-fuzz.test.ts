// Fuzzing the static-image route over real HTTP: a few hundred seeded mutations of valid overlay
// strings, positions, sizes and padding (truncation, nasty numbers, exotic unicode and bad percent-encoding,
// repeated separators, empty parts, thousands of points, deep and huge GeoJSON). Every answer must be an
// image or a 4xx in the error envelope, never a 5xx, and each must come back well within a hang guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { encodePolyline } from "../../../src/polyline";
import { expectSane, mutate, prng, NASTY_NUMBERS, type Rng } from "../../support/fuzz";

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await serveTestApp();
  const orgId = seedOrg(t.ctx, "acme").id;
  const session = await seedSession(t.ctx, { orgId });
  // A style without sources: what is fuzzed is the grammar and the overlays, not the tiles under them.
  const style = {
    version: 8,
    name: "Plain",
    glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
    sources: {},
    layers: [{ id: "bg", type: "background", paint: { "background-color": "#abc" } }],
  };
  const created = await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...session.headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "plain", visibility: "public", style }) });
  expect(created.status).toBe(201);
  expect((await t.fetch("/api/v1/orgs/acme/styles/plain/publish", { method: "POST", headers: session.headers })).status).toBe(200);
  key = seedKey(t.ctx, orgId, ["static_maps"]).secret;
});
afterAll(() => t?.close());

const line = encodePolyline([[10, 20], [11, 21], [12, 20.5]], 5);
const VALID_OVERLAYS = [
  "pin-s(10,20)",
  "pin-l-a+f00(-0.1,51.5)",
  "pin-l-9+abcdef(179.9,-84.9)",
  "pin-s-cafe(1,2)",
  `path-5+f44-0.5(${line})`,
  `path-3+00f-1+0f0-0.3(${line})`,
  `path(${line})`,
  '{"type":"Point","coordinates":[8.5,47.3]}',
  '{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{"stroke":"#f00","stroke-width":3}}',
  '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"properties":{"fill":"0f0","fill-opacity":0.5}},{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[2,2],[3,3]]},"properties":{"marker-color":"#00f","marker-size":"large","marker-symbol":"b"}}]}',
  '{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,1]},{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[0,0],[5,5]]}]}]}',
].map((o) => (o.startsWith("{") ? `geojson(${o})` : o));
const VALID_POSITIONS = ["auto", "10,20,3", "0,0,0", "-180,-85.0511,22", "180,85.0511,0,360", "8.5,47.3,12.5,45", "8.5,47.3,12,0,0", "[5.9,45.8,10.5,47.8]", "%5B-180,-85,180,85%5D"];
const VALID_SIZES = ["64x48.png", "1x1.png", "32x32@2x.jpg", "40x30.webp", "50x50.jpeg"];

const enc = (s: string) => encodeURIComponent(s);

/** Overlays that are big or many on purpose (limits: 8 KiB of text, 100 markers, 20,000 positions, 8 levels). */
function heavyOverlay(rng: Rng): string {
  switch (rng.int(10)) {
    case 0:
      return Array.from({ length: 101 + rng.int(400) }, (_, i) => `pin-s(${i % 180},${i % 80})`).join(",");
    case 1:
      return `geojson(${JSON.stringify({ type: "MultiPoint", coordinates: Array.from({ length: 1500 }, (_, i) => [i % 180, i % 80]) })})`;
    case 2: {
      let g: unknown = { type: "Point", coordinates: [1, 1] };
      const depth = 5 + rng.int(400);
      for (let i = 0; i < depth; i++) g = { type: "GeometryCollection", geometries: [g] };
      return `geojson(${JSON.stringify(g)})`;
    }
    case 3:
      return `geojson({"type":"Point","coordinates":${"[".repeat(3000)}${"]".repeat(3000)}})`;
    case 4:
      return `geojson(${"[".repeat(4000)})`;
    case 5:
      return `path(${encodePolyline(Array.from({ length: 3000 }, (_, i) => [(i % 360) - 180 + 0.5, Math.sin(i) * 80]), 5)})`;
    case 6:
      return `geojson(${JSON.stringify({ type: "LineString", coordinates: Array.from({ length: 800 }, (_, i) => [i / 10, (i % 7) / 10]) })})`;
    case 7:
      return `geojson({"type":"Point","coordinates":[1e400,-1e400]})`;
    case 8:
      return `pin-l-${"a".repeat(41)}(1,1)`;
    default:
      return `path-${rng.pick(NASTY_NUMBERS)}+f00-${rng.pick(NASTY_NUMBERS)}(${line})`;
  }
}

function randomCase(rng: Rng): { path: string; query: string } {
  let overlay = rng.pick(VALID_OVERLAYS);
  if (rng.int(3) === 0) overlay += "," + rng.pick(VALID_OVERLAYS);
  if (rng.int(8) === 0) overlay = heavyOverlay(rng);
  else if (rng.int(4) !== 0) for (let n = 1 + rng.int(3); n > 0; n--) overlay = mutate(rng, overlay);
  let position = rng.pick(VALID_POSITIONS);
  if (rng.int(4) === 0) position = mutate(rng, position);
  let size = rng.pick(VALID_SIZES);
  if (rng.int(5) === 0) size = rng.pick(["0x0.png", "1281x1.png", "1280x1280@2x.png", "99999x1.png", "00001x00001.png", "1x1@3x.png", "1x1.PNG", "1x1.gif", "1x1", "x.png", "-1x5.png", "1e3x5.png"]);
  else if (rng.int(6) === 0) size = mutate(rng, size);
  // The overlay goes in the path (encoded), the query, or both.
  const where = rng.int(3);
  // Mutations insert raw percent-escapes; encode the rest, keeping what the mutation meant.
  const encoded = overlay.includes("%") && rng.int(2) ? overlay : enc(overlay);
  const segments = ["acme", rng.int(20) === 0 ? mutate(rng, "plain") : "plain", ...(where !== 1 ? [encoded] : []), position, size];
  const query = new URLSearchParams();
  const extra: string[] = [];
  if (where !== 0) extra.push(`overlay=${encoded}`);
  if (rng.int(4) === 0) extra.push(`padding=${rng.pick(["0", "5", "1,2,3,4", "1,2,3,4,5", "9999", "", " 1", "-1", "1,,2", "10,10", "%00", "NaN"])}`);
  if (rng.int(10) === 0) extra.push(rng.pick(["before_layer=bg", "before_layer=", "before_layer=nope", "attribution=maybe", "logo=false", "overlay=pin-s(1,1)", "addlayer={}", "padding=1&padding=2"]));
  query.set("access_token", key);
  return { path: `/static/v1/${segments.join("/")}`, query: [...extra, query.toString()].join("&") };
}

describe("static images under fuzzing", () => {
  test("300 seeded mutations: each an image or a 4xx envelope, never a 5xx, none near the hang guard", async () => {
    const rng = prng(0x5eed);
    const statuses: Record<number, number> = {};
    let slowest = { ms: 0, url: "" };
    for (let i = 0; i < 300; i++) {
      const c = randomCase(rng);
      const url = `${t.baseUrl}${c.path}?${c.query}`;
      const { status, ms } = await expectSane(url).catch((err) => {
        throw new Error(`case ${i}: ${(err as Error).message}`);
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (ms > slowest.ms) slowest = { ms, url };
    }
    // Both outcomes were reached, so the cases are neither all refused nor all accepted.
    expect(statuses[200]).toBeGreaterThan(20);
    expect(statuses[400]).toBeGreaterThan(100);
    // Not a speed assertion: a bound that no runaway parse or render fits under.
    expect(slowest.ms).toBeLessThan(15_000);
  }, 120_000);

  test("the heaviest requests the limits allow render within the guard: 1280x1280@2x, 100 labelled pins, 8 KiB of path, every format", async () => {
    const pins = Array.from({ length: 100 }, (_, i) => `pin-l-${i % 100}+${(i * 997).toString(16).padStart(3, "0").slice(-3)}(${(i * 3.6) - 180},${(i % 17) * 10 - 80})`).join(",");
    // A polygon zig-zagging across the whole world, as many vertices as fit in 8 KiB.
    let n = 2000;
    const zigzag = (k: number) => encodePolyline(Array.from({ length: k }, (_, i) => [(i % 2 ? 179 : -179) + i / 1e4, ((i * 7) % 160) - 80]), 5);
    while (zigzag(n).length > 8 * 1024 - 30) n -= 50;
    const path = `path-50+f00-1+0f0-1(${zigzag(n)})`;
    for (const [overlay, size] of [[pins, "1280x1280@2x.png"], [path, "1280x1280@2x.jpg"], [pins, "1280x1280@2x.webp"]] as const) {
      const { status } = await expectSane(`${t.baseUrl}/static/v1/acme/plain/auto/${size}?overlay=${enc(overlay)}&access_token=${key}`);
      expect(status).toBe(200);
    }
  }, 120_000);
});

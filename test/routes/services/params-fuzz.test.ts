// Fuzzing the elevation and routing routes' path and query parameters over real HTTP, in front of the
// fake OpenTopoData and OSRM: seeded mutations of valid points, paths, samples, coordinates and options
// (nasty numbers, broken percent-encoding, repeated separators, thousands of points, every option with
// junk). Every answer must be a 200 or a 4xx in the error envelope, never a 5xx, within a hang guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg } from "../../support/seed";
import { startFakeOpenTopoData, type FakeOpenTopoData } from "../../support/fake-opentopodata";
import { startFakeOsrm, type FakeRouter } from "../../support/fake-osrm";
import { expectSane, mutate, prng, NASTY_NUMBERS, type Rng } from "../../support/fuzz";

let elevation: FakeOpenTopoData;
let router: FakeRouter;
let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  elevation = startFakeOpenTopoData();
  router = startFakeOsrm();
  t = await serveTestApp({ ELEVATION_INTERNAL_URL: elevation.url, ELEVATION_TIMEOUT_MS: "2000", ROUTING_INTERNAL_URL: router.url, ROUTING_ENGINE: "osrm", ROUTING_TIMEOUT_MS: "2000" });
  headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "fuzz").id, ["elevation", "routing"]).secret };
});
afterAll(async () => {
  await t?.close();
  await elevation?.stop();
  await router?.stop();
});

const enc = encodeURIComponent;
const BERLIN = ["13.38886,52.517037", "13.397634,52.529407", "13.428555,52.523219", "13.41,52.52"];

function points(rng: Rng, n: number): string {
  return Array.from({ length: n }, (_, i) => (rng.int(10) === 0 ? `${rng.pick(NASTY_NUMBERS)},${rng.pick(NASTY_NUMBERS)}` : BERLIN[i % BERLIN.length]!)).join(";");
}

function maybeMutate(rng: Rng, s: string, odds = 3): string {
  return rng.int(odds) === 0 ? mutate(rng, s) : s;
}

function elevationCase(rng: Rng): string {
  const n = rng.pick([1, 2, 3, 10, 100, 101, 500, 700]);
  let path = maybeMutate(rng, points(rng, n));
  if (rng.int(8) === 0) path = path.replaceAll(";", rng.pick(["%3B", "|", ";;", "%3b"]));
  const along = rng.int(2) === 0;
  const q: string[] = [];
  if (along && rng.int(2)) q.push(`samples=${rng.pick(["2", "1", "0", "500", "501", "1e9", "99999999999999999999", "-5", "2.5", "NaN", "", "100"])}`);
  if (rng.int(15) === 0) q.push(rng.pick(["samples=5&samples=6", "interpolation=cubic", "locations=1,2", "%zz=1"]));
  const raw = path.includes("%") ? path : path.replace(/[^\w.,;|:+-]/g, (c) => enc(c));
  return `/elevation/v1/${along ? "along/" : ""}${raw}${q.length ? "?" + q.join("&") : ""}`;
}

const ROUTE_OPTIONS: [string, string[]][] = [
  ["alternatives", ["true", "false", "0", "3", "4", "-1", "1.0", "", "yes"]],
  ["steps", ["true", "false", "1", "TRUE", ""]],
  ["geometries", ["geojson", "polyline", "polyline6", "wkt", ""]],
  ["overview", ["full", "simplified", "false", "none"]],
  ["language", ["en", "de-CH", "x".repeat(100), "en-", ""]],
  ["exclude", ["toll", "motorway,ferry", "toll,toll", "x", ",", ""]],
  ["radiuses", ["unlimited;unlimited", "10;", ";", "1e9;1", "-1;5", "NaN;NaN", "5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5;5"]],
  ["bearings", ["0,90;", "360,180;0,0", "361,0;", "0;0", "a,b;c,d", ";;;;", "1e3,1;"]],
  ["continue_straight", ["true", "false", "default", "maybe"]],
  ["approaches", ["curb;unrestricted", "curb", ";", "left;right", ""]],
  ["annotations", ["distance", "duration,speed", "congestion", "distance,distance", "", ","]],
  ["waypoints", ["0;1", "0;2", "1;0", "0;99999999999999999999", "0;;1", "0"]],
  ["waypoint_names", ["a;b", ";", "x".repeat(3000) + ";y", "%00;%FF"]],
];

function routingCase(rng: Rng): string {
  const matrix = rng.int(3) === 0;
  const profile = rng.int(12) === 0 ? rng.pick(["walking", "cycling", "flying", "", "driving-traffic", "%00", "DRIVING"]) : "driving";
  const n = rng.pick([1, 2, 2, 2, 3, 4, 25, 26, 700]);
  let coords = maybeMutate(rng, points(rng, n));
  if (rng.int(10) === 0) coords = rng.pick(["polyline(_p~iF~ps|U_ulLnnqC)", enc("polyline(_p~iF~ps|U_ulLnnqC)"), "", ";", "%3B"]);
  const q: string[] = [];
  const options: [string, string[]][] = matrix
    ? [["sources", ["0", "0;1", "all", "5", "-1", ";", ""]], ["destinations", ["1", "all", "0;0", "99"]], ["annotations", ["duration", "distance,duration", "speed", ""]], ["approaches", ["curb;curb", ";", "x"]]]
    : ROUTE_OPTIONS;
  for (let k = rng.int(4); k > 0; k--) {
    const [name, values] = rng.pick(options);
    q.push(`${name}=${maybeMutate(rng, enc(rng.pick(values)), 4)}`);
  }
  if (rng.int(15) === 0) q.push(rng.pick(["steps=true&steps=false", "access_token=", "unknown=1", "=", "%zz=1"]));
  const raw = coords.includes("%") ? coords : coords.replace(/[^\w.,;|:+()~-]/g, (c) => enc(c));
  return `/routing/v1/${matrix ? "matrix/" : ""}${profile}/${raw}${q.length ? "?" + q.join("&") : ""}`;
}

describe("elevation and routing under fuzzing", () => {
  for (const [name, make, seed] of [["elevation", elevationCase, 0xe1e7] as const, ["routing", routingCase, 0x2047e] as const]) {
    test(`${name}: 250 seeded requests, each a 200 or a 4xx envelope, never a 5xx, none near the hang guard`, async () => {
      const rng = prng(seed);
      const statuses: Record<number, number> = {};
      let slowest = { ms: 0, path: "" };
      for (let i = 0; i < 250; i++) {
        const path = make(rng);
        const { status, ms } = await expectSane(t.baseUrl + path, { headers }).catch((err) => {
          throw new Error(`case ${i}: ${(err as Error).message}`);
        });
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (ms > slowest.ms) slowest = { ms, path };
      }
      if (process.env.FUZZ_VERBOSE) console.log(statuses, slowest);
      expect(statuses[200]).toBeGreaterThan(10);
      expect(statuses[400]).toBeGreaterThan(50);
      expect(slowest.ms).toBeLessThan(15_000);
    }, 120_000);
  }
});

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { fakeElevation, startFakeOpenTopoData, type FakeOpenTopoData } from "../../../support/fake-opentopodata";

let fake: FakeOpenTopoData;
let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  fake = startFakeOpenTopoData();
  t = await makeTestApp({ ELEVATION_INTERNAL_URL: fake.url, ELEVATION_TIMEOUT_MS: "300" });
  headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "elev").id, ["elevation"]).secret };
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const get = (path: string, h: Record<string, string> = headers) => t.fetch(path, { headers: h });

/** Independent haversine for checking distances. */
function haversine(a: [number, number], b: [number, number]): number {
  const R = 6_371_008.8;
  const r = Math.PI / 180;
  const h = Math.sin(((b[1] - a[1]) * r) / 2) ** 2 + Math.cos(a[1] * r) * Math.cos(b[1] * r) * Math.sin(((b[0] - a[0]) * r) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}

describe("elevation auth", () => {
  test("needs a key with the elevation scope", async () => {
    expect((await get("/elevation/v1/7,46", {})).status).toBe(401);
    const wrong = await get("/elevation/v1/7,46", { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "geo-only").id, ["geocoding"]).secret });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.code).toBe("INSUFFICIENT_SCOPE");
    // The same header sent twice reaches the app joined with ", ": named as such, not as a malformed key.
    const twice = new Headers([["x-api-key", headers["x-api-key"]!], ["x-api-key", headers["x-api-key"]!]]);
    const doubled = await t.fetch("/elevation/v1/7,46", { headers: twice });
    expect(doubled.status).toBe(401);
    expect((await doubled.json()).error.message).toBe("The X-API-Key header is given more than once; send one key");
    expect(fake.calls).toHaveLength(0);
  });
});

describe("point lookups", () => {
  test("one point: lat,lon order upstream with bilinear interpolation; the contract's shape", async () => {
    const res = await get("/elevation/v1/7.6586,45.9763");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=86400");
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.path).toBe("/v1/test30m");
    expect(fake.calls[0]!.search).toBe("locations=45.9763,7.6586&interpolation=bilinear");
    expect(await res.json()).toEqual({
      elevations: [{ location: { lon: 7.6586, lat: 45.9763 }, elevation: fakeElevation(45.9763, 7.6586)! }],
      units: "m",
      attribution: "Elevation data: test30m via OpenTopoData",
    });
  });

  test("several points separated by ; (also percent-encoded) keep their order", async () => {
    for (const sep of [";", "%3B", "%3b"]) {
      fake.reset();
      const res = await get(`/elevation/v1/7.1,46.1${sep}-7.2,-46.2${sep}0,0`.replace("0,0", `0.5,${sep === ";" ? "0" : "0.25"}`));
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.elevations.map((e: { location: unknown }) => e.location)).toEqual([
        { lon: 7.1, lat: 46.1 },
        { lon: -7.2, lat: -46.2 },
        { lon: 0.5, lat: sep === ";" ? 0 : 0.25 },
      ]);
      expect(body.elevations[1].elevation).toBe(fakeElevation(-46.2, -7.2));
    }
  });

  test("100 points in one upstream call; 101 is a 400", async () => {
    const pts = Array.from({ length: 100 }, (_, i) => `${(i * 0.01).toFixed(2)},10`).join(";");
    const res = await get(`/elevation/v1/${pts}`);
    expect(res.status).toBe(200);
    expect((await res.json()).elevations).toHaveLength(100);
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.locations).toHaveLength(100);
    const over = await get(`/elevation/v1/${pts};1,1`);
    expect(over.status).toBe(400);
    expect((await over.json()).error.message).toContain("At most 100 points");
    expect(fake.calls).toHaveLength(1);
  });

  const bad: [string, string][] = [
    ["/elevation/v1/abc", 'Point 0 ("abc")'],
    ["/elevation/v1/7.1", 'Point 0 ("7.1")'],
    ["/elevation/v1/7.1,46.2;7.2,x", 'Point 1 ("7.2,x")'],
    ["/elevation/v1/7.1,46.2;", 'Point 1 ("")'],
    ["/elevation/v1/7.1,46.2,3", 'Point 0 ("7.1,46.2,3")'],
    ["/elevation/v1/180.0001,0", "longitude must be from -180 to 180"],
    ["/elevation/v1/-181,0", "longitude"],
    ["/elevation/v1/0,90.5", "latitude must be from -90 to 90"],
    ["/elevation/v1/1,2;0,-91", 'Point 1 ("0,-91")'],
    ["/elevation/v1/1e3,2", 'Point 0 ("1e3,2")'],
    ["/elevation/v1/NaN,2", 'Point 0 ("NaN,2")'],
  ];
  for (const [path, fragment] of bad)
    test(`400 naming the bad coordinate: ${path}`, async () => {
      const res = await get(path);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.message).toContain(fragment);
      expect(fake.calls).toHaveLength(0);
    });

  test("the extremes are accepted", async () => {
    const res = await get("/elevation/v1/-180,-90;180,80");
    expect(res.status).toBe(200);
    expect(fake.calls[0]!.search).toBe("locations=-90,-180|80,180&interpolation=bilinear");
  });

  test("missing coverage is 404 NO_ELEVATION_DATA with the point indices", async () => {
    const res = await get("/elevation/v1/1,10;1,85;2,20;3,81");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NO_ELEVATION_DATA");
    expect(body.error.details).toEqual({ indices: [1, 3] });
    expect(res.headers.get("cache-control")).toBeNull();
  });

  test("cached per point for a day: repeats never call the backend, overlaps fetch only what is new", async () => {
    expect((await get("/elevation/v1/11.1,44.1;11.2,44.2")).status).toBe(200);
    expect((await get("/elevation/v1/11.2,44.2;11.10,44.100")).status).toBe(200);
    expect(fake.calls).toHaveLength(1);
    const res = await get("/elevation/v1/11.1,44.1;11.3,44.3;11.1,44.1");
    expect(res.status).toBe(200);
    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[1]!.search).toBe("locations=44.3,11.3&interpolation=bilinear");
    expect((await res.json()).elevations.map((e: { elevation: number }) => e.elevation)).toEqual([fakeElevation(44.1, 11.1), fakeElevation(44.3, 11.3), fakeElevation(44.1, 11.1)]);
  });
});

describe("along a path", () => {
  test("a parameter given twice is a 400 naming it, not the last one taken (along and point lookups alike)", async () => {
    for (const [path, name] of [["/elevation/v1/along/0,0;1,0?samples=5&samples=11", "samples"], ["/elevation/v1/7,46?_=1&_=2", "_"]] as const) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toEqual({ code: "BAD_REQUEST", message: `${name} is given more than once`, details: { parameter: name } });
    }
    expect(fake.calls).toHaveLength(0);
  });

  test("resamples along the great circle including both ends, with the summary", async () => {
    const res = await get("/elevation/v1/along/0,0;1,0?samples=11");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=86400");
    const body = await res.json();
    expect(body.units).toBe("m");
    expect(body.warnings).toEqual([]);
    expect(body.profile).toHaveLength(11);
    expect(body.profile[0]).toEqual({ distance: 0, location: { lon: 0, lat: 0 }, elevation: fakeElevation(0, 0) });
    expect(body.profile[10].location).toEqual({ lon: 1, lat: 0 });
    expect(body.profile[5].location).toEqual({ lon: 0.5, lat: 0 });
    const total = haversine([0, 0], [1, 0]);
    expect(body.profile[10].distance).toBeCloseTo(total, 1);
    expect(body.profile[5].distance).toBeCloseTo(total / 2, 1);
    const elevations = body.profile.map((p: { elevation: number }) => p.elevation);
    let up = 0;
    let down = 0;
    for (let i = 1; i < elevations.length; i++) {
      const d = elevations[i] - elevations[i - 1];
      if (d > 0) up += d;
      else down -= d;
    }
    expect(body.summary).toEqual({
      samples: 11,
      sample_spacing: expect.closeTo(total / 10, 1),
      distance: expect.closeTo(total, 1),
      min_elevation: Math.min(...elevations),
      max_elevation: Math.max(...elevations),
      start_elevation: elevations[0],
      end_elevation: elevations[10],
      total_ascent: expect.closeTo(up, 1),
      total_descent: expect.closeTo(down, 1),
    });
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.search.startsWith("locations=0,0|0,0.1|0,0.2|")).toBe(true);
  });

  test("great circle, not rhumb line: the midpoint of two points on the 60th parallel lies further north", async () => {
    const body = await (await get("/elevation/v1/along/0,60;90,60?samples=3")).json();
    const mid = body.profile[1].location;
    expect(mid.lon).toBeCloseTo(45, 5);
    // great-circle midpoint latitude: atan(tan(60°) / cos(45°))
    expect(mid.lat).toBeCloseTo((Math.atan(Math.tan(Math.PI / 3) / Math.cos(Math.PI / 4)) * 180) / Math.PI, 5);
    expect(body.summary.distance).toBeCloseTo(haversine([0, 60], [90, 60]), 0);
  });

  test("multi-vertex paths: cumulative distance through each vertex, default 100 samples", async () => {
    const body = await (await get("/elevation/v1/along/10,45;10,46;11,46")).json();
    expect(body.profile).toHaveLength(100);
    expect(body.summary.samples).toBe(100);
    const total = haversine([10, 45], [10, 46]) + haversine([10, 46], [11, 46]);
    expect(body.summary.distance).toBeCloseTo(total, 1);
    expect(body.summary.sample_spacing).toBeCloseTo(total / 99, 1);
    const d = body.profile.map((p: { distance: number }) => p.distance);
    for (let i = 1; i < d.length; i++) expect(d[i]).toBeGreaterThan(d[i - 1]);
    expect(body.profile[99].location).toEqual({ lon: 11, lat: 46 });
    expect(fake.calls).toHaveLength(1);
  });

  test("samples: 500 accepted, above 500 capped with a warning, chunked into calls of at most 100", async () => {
    const exact = await (await get("/elevation/v1/along/20,10;21,11?samples=500")).json();
    expect(exact.profile).toHaveLength(500);
    expect(exact.warnings).toEqual([]);
    expect(fake.calls.map((c) => c.locations.length)).toEqual([100, 100, 100, 100, 100]);
    for (const c of fake.calls) expect(c.params.get("interpolation")).toBe("bilinear");
    fake.reset();
    const capped = await (await get("/elevation/v1/along/30,10;31,11?samples=501")).json();
    expect(capped.profile).toHaveLength(500);
    expect(capped.summary.samples).toBe(500);
    expect(capped.warnings).toEqual(["samples=501 was capped at 500"]);
    const huge = await (await get("/elevation/v1/along/30,10;31,11?samples=100000")).json();
    expect(huge.profile).toHaveLength(500);
    expect(huge.warnings[0]).toContain("capped at 500");
  });

  test("a count too big for 15 digits is capped like 501, not refused as if it were no integer", async () => {
    const big = await get("/elevation/v1/along/30,10;31,11?samples=99999999999999999999");
    expect(big.status).toBe(200);
    const body = await big.json();
    expect(body.summary.samples).toBe(500);
    expect(body.warnings).toEqual(["samples=99999999999999999999 was capped at 500"]);
    // A count of thousands of digits is capped too, its echo in the warning shortened.
    const endless = await (await get(`/elevation/v1/along/30,10;31,11?samples=${"9".repeat(2000)}`)).json();
    expect(endless.profile).toHaveLength(500);
    expect(endless.warnings).toEqual([`samples=${"9".repeat(20)}... (2000 digits) was capped at 500`]);
    expect((await get("/elevation/v1/along/30,10;31,11?samples=0000")).status).toBe(400);
  });

  test("chunks of 100 keep the sample order across calls", async () => {
    const body = await (await get("/elevation/v1/along/40,10;40,12?samples=250")).json();
    expect(fake.calls.map((c) => c.locations.length).sort()).toEqual([100, 100, 50]);
    for (const p of body.profile) expect(p.elevation).toBe(fakeElevation(Math.round(p.location.lat * 1e7) / 1e7, p.location.lon));
  });

  for (const [q, why] of [
    ["samples=1", "samples"],
    ["samples=0", "samples"],
    ["samples=-5", "samples"],
    ["samples=abc", "samples"],
    ["samples=2.5", "samples"],
  ])
    test(`${q} is a 400 naming ${why}`, async () => {
      const res = await get(`/elevation/v1/along/0,0;1,1?${q}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toContain(why);
      expect(fake.calls).toHaveLength(0);
    });

  test("samples=2 gives just the two ends", async () => {
    const body = await (await get("/elevation/v1/along/5,5;6,6?samples=2")).json();
    expect(body.profile.map((p: { location: unknown }) => p.location)).toEqual([
      { lon: 5, lat: 5 },
      { lon: 6, lat: 6 },
    ]);
  });

  test("a path needs at least two points and valid coordinates", async () => {
    const one = await get("/elevation/v1/along/5,5");
    expect(one.status).toBe(400);
    expect((await one.json()).error.message).toContain("At least 2 points");
    const bad = await get("/elevation/v1/along/5,5;x,6");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain('Point 1 ("x,6")');
  });

  test("missing coverage along the path is 404 NO_ELEVATION_DATA with sample indices", async () => {
    const res = await get("/elevation/v1/along/0,79;0,81?samples=5");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NO_ELEVATION_DATA");
    expect(body.error.details).toEqual({ indices: [3, 4] });
  });

  test("a path that goes nowhere has zero distance and spacing", async () => {
    const body = await (await get("/elevation/v1/along/3,3;3,3?samples=4")).json();
    expect(body.summary.distance).toBe(0);
    expect(body.summary.sample_spacing).toBe(0);
    expect(body.summary.total_ascent).toBe(0);
    expect(body.profile).toHaveLength(4);
  });
});

describe("backend failures", () => {
  const blamed = (message: string) => {
    expect(message).toContain("elevation backend");
    expect(message).not.toContain("127.0.0.1");
  };

  for (const status of [502, 503, 504])
    test(`HTTP ${status} is 503 ELEVATION_UNAVAILABLE`, async () => {
      fake.status = status;
      const res = await get(`/elevation/v1/${status / 100},1`);
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.error.code).toBe("ELEVATION_UNAVAILABLE");
      blamed(body.error.message);
    });

  test("HTTP 500 is 502 UPSTREAM_ERROR", async () => {
    fake.status = 500;
    const res = await get("/elevation/v1/along/1,1;2,2?samples=3");
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error.code).toBe("UPSTREAM_ERROR");
    blamed(body.error.message);
  });

  for (const mode of ["malformed-json", "no-results"] as const)
    test(`a ${mode} answer is 502 UPSTREAM_ERROR`, async () => {
      fake.mode = mode;
      const res = await get(`/elevation/v1/${mode.length},2`);
      expect(res.status).toBe(502);
      expect((await res.json()).error.code).toBe("UPSTREAM_ERROR");
    });

  test("a slow backend times out as 503", async () => {
    fake.delayMs = 1500;
    const res = await get("/elevation/v1/33,3");
    expect(res.status).toBe(503);
    expect((await res.json()).error.message).toContain("no answer within 300 ms");
  });

  test("a wrong dataset name (400 from OpenTopoData) is 502, a stopped backend 503, cached points still served", async () => {
    const own = startFakeOpenTopoData();
    const wrong = await makeTestApp({ ELEVATION_INTERNAL_URL: `${own.origin}/v1/nosuchset` });
    const app = await makeTestApp({ ELEVATION_INTERNAL_URL: own.url });
    try {
      const k = (a: TestApp, slug: string) => ({ "x-api-key": seedKey(a.ctx, seedOrg(a.ctx, slug).id, ["elevation"]).secret });
      const w = await wrong.fetch("/elevation/v1/1,1", { headers: k(wrong, "wrong") });
      expect(w.status).toBe(502);
      const h = k(app, "stopping");
      expect((await app.fetch("/elevation/v1/1,1", { headers: h })).status).toBe(200);
      await own.stop();
      const down = await app.fetch("/elevation/v1/2,2", { headers: h });
      expect(down.status).toBe(503);
      expect((await down.json()).error.message).toContain("connection refused");
      expect((await app.fetch("/elevation/v1/1,1", { headers: h })).status).toBe(200);
    } finally {
      await wrong.close();
      await app.close();
    }
  });

  test("not configured is 503 ELEVATION_NOT_CONFIGURED", async () => {
    const app = await makeTestApp();
    try {
      const h = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "none").id, ["elevation"]).secret };
      for (const path of ["/elevation/v1/1,1", "/elevation/v1/along/1,1;2,2"]) {
        const res = await app.fetch(path, { headers: h });
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body.error.code).toBe("ELEVATION_NOT_CONFIGURED");
        expect(body.error.message).toContain("your API key is fine");
      }
    } finally {
      await app.close();
    }
  });
});

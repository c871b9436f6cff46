import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { startFakePelias, type FakePelias } from "../../../support/fake-pelias";

let fake: FakePelias;
let t: TestApp;
let key: string;
let headers: Record<string, string>;

beforeAll(async () => {
  fake = startFakePelias();
  t = await makeTestApp({ GEOCODER_INTERNAL_URL: fake.url, GEOCODER_TIMEOUT_MS: "300" });
  const org = seedOrg(t.ctx, "geo");
  key = seedKey(t.ctx, org.id, ["geocoding"]).secret;
  headers = { "x-api-key": key };
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const get = (path: string, h: Record<string, string> = headers) => t.fetch(path, { headers: h });
const lastSearch = () => fake.calls.at(-1)!.search;

describe("geocoding auth", () => {
  test("needs a key with the geocoding scope, or a session", async () => {
    const none = await get("/geocoding/v1/forward?q=auth", {});
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe("UNAUTHORIZED");
    const org = seedOrg(t.ctx, "elev-only");
    const wrong = await get("/geocoding/v1/forward?q=auth", { "x-api-key": seedKey(t.ctx, org.id, ["elevation"]).secret });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.code).toBe("INSUFFICIENT_SCOPE");
    const session = await seedSession(t.ctx, { orgId: org.id });
    const ok = await get("/geocoding/v1/forward?q=auth", { cookie: session.cookie });
    expect(ok.status).toBe(200);
    expect(fake.calls).toHaveLength(1);
  });

  test("answers carry the rate-limit headers of the key", async () => {
    const res = await get("/geocoding/v1/forward?q=ratelimited");
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0);
    expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull();
  });
});

describe("forward", () => {
  test("maps every parameter to Pelias exactly (a country named twice, once) and normalizes the answer", async () => {
    const res = await get("/geocoding/v1/forward?q=Bahnhofstrasse%2010&limit=3&bbox=8.4,47.3,8.6,47.4&country=ch,LIE,CHE,li&language=de-CH");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(fake.calls).toHaveLength(1);
    expect(fake.calls[0]!.path).toBe("/v1/search");
    expect(lastSearch()).toBe(
      "text=Bahnhofstrasse%2010&size=3&lang=de-CH&boundary.rect.min_lon=8.4&boundary.rect.min_lat=47.3&boundary.rect.max_lon=8.6&boundary.rect.max_lat=47.4&boundary.country=CH%2CLIE",
    );
    const body = await res.json();
    expect(body.type).toBe("FeatureCollection");
    expect(body.geocoding.query).toEqual({ q: "Bahnhofstrasse 10", limit: 3, language: "de-CH", bbox: [8.4, 47.3, 8.6, 47.4], country: ["CH", "LIE"] });
    expect(body.geocoding.attribution).toBe("Geocoding by Pelias; data © OpenStreetMap contributors");
    expect(body.geocoding.warnings).toEqual([]);
    expect(JSON.stringify(body)).not.toContain("127.0.0.1");
    expect(body.features).toHaveLength(3);
    expect(body.features[0]).toEqual({
      type: "Feature",
      geometry: { type: "Point", coordinates: [8.5417, 47.3769] },
      bbox: [8.5417 - 0.001, 47.3769 - 0.001, 8.5417 + 0.001, 47.3769 + 0.001],
      properties: {
        gid: "openstreetmap:venue:node/1000",
        layer: "venue",
        source: "openstreetmap",
        name: "Bahnhofstrasse 10 0",
        label: "Bahnhofstrasse 10 0, Zürich, Switzerland",
        housenumber: "10",
        street: "Bahnhofstrasse",
        postalcode: "8001",
        locality: "Zürich",
        region: "Zurich",
        region_a: "ZH",
        country: "Switzerland",
        confidence: 0.9,
        country_code: "CH",
        country_a: "CHE",
      },
    });
  });

  test("defaults: limit 5, language en; no filters sent when none given", async () => {
    const res = await get("/geocoding/v1/forward?q=defaults");
    expect(res.status).toBe(200);
    expect(lastSearch()).toBe("text=defaults&size=5&lang=en");
    expect((await res.json()).geocoding.query).toEqual({ q: "defaults", limit: 5, language: "en" });
  });

  test("fills in alpha-2 from alpha-3, omits empty values, skips non-point features, passes warnings", async () => {
    const body = await (await get("/geocoding/v1/forward?q=mixed")).json();
    expect(body.features).toHaveLength(2);
    expect(body.features[1]).toEqual({
      type: "Feature",
      geometry: { type: "Point", coordinates: [2.35, 48.85] },
      properties: { gid: "whosonfirst:locality:101751119", layer: "locality", source: "whosonfirst", name: "Paris", label: "Paris, France", locality: "Paris", country: "France", country_code: "FR", country_a: "FRA" },
    });
    expect(body.geocoding.attribution).toBe("Geocoding by Pelias; data © OpenStreetMap contributors, Who's On First");
    const warned = await (await get("/geocoding/v1/forward?q=warnme")).json();
    expect(warned.geocoding.warnings).toEqual(["performance optimization: excluding 'address' layer"]);
  });

  test("no results is 200 with an empty feature list", async () => {
    const res = await get("/geocoding/v1/forward?q=nowhere%20at%20all");
    expect(res.status).toBe(200);
    expect((await res.json()).features).toEqual([]);
  });
});

describe("reverse and autocomplete", () => {
  test("reverse maps point.lon/point.lat/size/lang; distance in km", async () => {
    const res = await get("/geocoding/v1/reverse?lon=8.5417&lat=47.3769");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(fake.calls[0]!.path).toBe("/v1/reverse");
    expect(lastSearch()).toBe("point.lon=8.5417&point.lat=47.3769&size=1&lang=en");
    const body = await res.json();
    expect(body.features).toHaveLength(1);
    expect(body.features[0].properties.distance).toBe(0.123);
    expect(body.geocoding.query).toEqual({ lon: 8.5417, lat: 47.3769, limit: 1, language: "en" });
  });

  test("reverse accepts the extremes and tiny values without exponent notation upstream", async () => {
    expect((await get("/geocoding/v1/reverse?lon=-180&lat=90&limit=10")).status).toBe(200);
    expect(lastSearch()).toBe("point.lon=-180&point.lat=90&size=10&lang=en");
    expect((await get("/geocoding/v1/reverse?lon=0.0000001&lat=-0.00000001")).status).toBe(200);
    expect(lastSearch()).toBe("point.lon=0.0000001&point.lat=0&size=1&lang=en");
  });

  test("autocomplete maps text/size/lang/focus.point and is cached one minute", async () => {
    const res = await get("/geocoding/v1/autocomplete?text=Zur&focus.lon=8.54&focus.lat=47.37&language=fr");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=60");
    expect(fake.calls[0]!.path).toBe("/v1/autocomplete");
    expect(lastSearch()).toBe("text=Zur&size=5&lang=fr&focus.point.lon=8.54&focus.point.lat=47.37");
    expect((await get("/geocoding/v1/autocomplete?text=Zu")).status).toBe(200);
    expect(lastSearch()).toBe("text=Zu&size=5&lang=en");
  });
});

describe("validation", () => {
  const long = (n: number) => "a".repeat(n);
  const bad: [string, string][] = [
    ["/geocoding/v1/forward", "q"],
    ["/geocoding/v1/forward?q=", "q"],
    ["/geocoding/v1/forward?q=%20%20", "q"],
    [`/geocoding/v1/forward?q=${long(501)}`, "q"],
    ["/geocoding/v1/forward?q=x&limit=0", "limit"],
    ["/geocoding/v1/forward?q=x&limit=26", "limit"],
    ["/geocoding/v1/forward?q=x&limit=-1", "limit"],
    ["/geocoding/v1/forward?q=x&limit=abc", "limit"],
    ["/geocoding/v1/forward?q=x&limit=2.5", "limit"],
    ["/geocoding/v1/forward?q=x&bbox=1,2,3", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=1,2,3,4,5", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=3,0,1,1", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=0,1,1,1", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=-181,0,0,1", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=0,-91,1,0", "bbox"],
    ["/geocoding/v1/forward?q=x&bbox=a,b,c,d", "bbox"],
    ["/geocoding/v1/forward?q=x&country=XX", "country"],
    ["/geocoding/v1/forward?q=x&country=CHEE", "country"],
    ["/geocoding/v1/forward?q=x&country=CH,", "country"],
    ["/geocoding/v1/forward?q=x&language=e!", "language"],
    ["/geocoding/v1/reverse?lat=1", "lon"],
    ["/geocoding/v1/reverse?lon=1", "lat"],
    ["/geocoding/v1/reverse?lon=180.0001&lat=0", "lon"],
    ["/geocoding/v1/reverse?lon=-181&lat=0", "lon"],
    ["/geocoding/v1/reverse?lon=0&lat=90.0001", "lat"],
    ["/geocoding/v1/reverse?lon=0&lat=-91", "lat"],
    ["/geocoding/v1/reverse?lon=abc&lat=0", "lon"],
    ["/geocoding/v1/reverse?lon=0&lat=0&limit=0", "limit"],
    ["/geocoding/v1/reverse?lon=0&lat=0&limit=11", "limit"],
    ["/geocoding/v1/autocomplete", "text"],
    [`/geocoding/v1/autocomplete?text=${long(501)}`, "text"],
    ["/geocoding/v1/autocomplete?text=x&limit=0", "limit"],
    ["/geocoding/v1/autocomplete?text=x&limit=11", "limit"],
    ["/geocoding/v1/autocomplete?text=x&focus.lon=8", "focus.lat"],
    ["/geocoding/v1/autocomplete?text=x&focus.lat=8", "focus.lon"],
    ["/geocoding/v1/autocomplete?text=x&focus.lon=8&focus.lat=91", "focus.lat"],
    ["/geocoding/v1/autocomplete?text=x&focus.lon=181&focus.lat=1", "focus.lon"],
    // A filter this form does not take would quietly give unfiltered answers; Pelias' names say ours.
    ["/geocoding/v1/autocomplete?text=lond&country=CA", "autocomplete does not take country"],
    ["/geocoding/v1/autocomplete?text=lond&bbox=-100,40,-70,50", "autocomplete does not take bbox"],
    ["/geocoding/v1/reverse?lon=2.35&lat=48.85&country=US", "reverse does not take country"],
    ["/geocoding/v1/forward?q=paris&focus.lon=1&focus.lat=2", "forward does not take focus.lon"],
    ["/geocoding/v1/forward?q=paris&size=10", "forward does not take size; use limit"],
    ["/geocoding/v1/forward?text=paris", "forward does not take text"],
    ["/geocoding/v1/forward?q=paris&boundary.country=CH", "use country"],
    ["/geocoding/v1/forward?q=paris&q=london", "q is given more than once"],
    ["/geocoding/v1/reverse?lon=2.35&lat=48.85&lat=48.86", "lat is given more than once"],
    ["/geocoding/v1/autocomplete?text=lond&_=1&_=2", "_ is given more than once"],
    ["/geocoding/v1/forward?q=%FF%FE", "q is not valid UTF-8"],
    ["/geocoding/v1/autocomplete?text=a%C3", "text is not valid UTF-8"],
    ["/geocoding/v1/reverse?lon=8.5&lat=1e1", "lat must be a decimal number from -90 to 90, such as 47.37 (got '1e1')"],
  ];
  for (const [path, param] of bad)
    test(`400 naming ${param}: ${path.slice(0, 90)}`, async () => {
      const res = await get(path);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.message).toContain(param);
      expect(fake.calls).toHaveLength(0);
    });

  test("names no form knows (a cache buster) are ignored", async () => {
    const res = await get("/geocoding/v1/forward?q=buster&_=1700000000");
    expect(res.status).toBe(200);
  });

  test("limits are accepted exactly at their maximum", async () => {
    for (const path of [
      `/geocoding/v1/forward?q=${long(500)}&limit=25`,
      "/geocoding/v1/forward?q=edge&limit=1&bbox=-180,-90,180,90&country=CH,FRA,li",
      "/geocoding/v1/reverse?lon=180&lat=-90&limit=10",
      `/geocoding/v1/autocomplete?text=${long(500)}&limit=10&focus.lon=-180&focus.lat=90`,
    ]) {
      const res = await get(path);
      expect(res.status).toBe(200);
    }
    expect(fake.calls).toHaveLength(4);
    expect(fake.calls[0]!.params.get("size")).toBe("25");
    expect(fake.calls[1]!.params.get("boundary.country")).toBe("CH,FRA,LI");
  });

  test("500 characters are counted as characters, not bytes", async () => {
    const res = await get(`/geocoding/v1/forward?q=${encodeURIComponent("ü".repeat(500))}`);
    expect(res.status).toBe(200);
    const over = await get(`/geocoding/v1/forward?q=${encodeURIComponent("ü".repeat(501))}`);
    expect(over.status).toBe(400);
  });
});

describe("caching", () => {
  test("a repeated query is served from the cache without calling the backend", async () => {
    const first = await get("/geocoding/v1/forward?q=cache%20me&limit=2");
    const firstBody = await first.text();
    const again = await get("/geocoding/v1/forward?q=%20cache%20%20%20me%20&limit=2");
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstBody);
    expect(again.headers.get("cache-control")).toBe("private, max-age=3600");
    expect(fake.calls).toHaveLength(1);
    await get("/geocoding/v1/forward?q=cache%20me&limit=3");
    expect(fake.calls).toHaveLength(2);
    await get("/geocoding/v1/reverse?lon=1&lat=2");
    await get("/geocoding/v1/reverse?lon=1.0&lat=2.00");
    await get("/geocoding/v1/autocomplete?text=cach");
    await get("/geocoding/v1/autocomplete?text=cach");
    expect(fake.calls).toHaveLength(4);
  });

  test("a cached answer still needs a valid key", async () => {
    expect((await get("/geocoding/v1/forward?q=guarded")).status).toBe(200);
    const anonymous = await get("/geocoding/v1/forward?q=guarded", {});
    expect(anonymous.status).toBe(401);
    const bogus = await get("/geocoding/v1/forward?q=guarded", { "x-api-key": "msk_invalid" });
    expect(bogus.status).toBe(401);
    expect(fake.calls).toHaveLength(1);
  });

  test("concurrent identical misses share one backend call", async () => {
    fake.delayMs = 50;
    const all = await Promise.all(Array.from({ length: 5 }, () => get("/geocoding/v1/forward?q=stampede")));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(fake.calls).toHaveLength(1);
  });

  test("failures are not cached", async () => {
    fake.status = 500;
    expect((await get("/geocoding/v1/forward?q=flaky")).status).toBe(502);
    fake.status = null;
    expect((await get("/geocoding/v1/forward?q=flaky")).status).toBe(200);
    expect(fake.calls).toHaveLength(2);
  });
});

describe("backend failures", () => {
  const expectBackendBlamed = (message: string) => {
    expect(message).toContain("geocoding backend");
    expect(message).toContain("not one with your request or API key");
    expect(message).not.toContain("127.0.0.1");
  };

  for (const status of [502, 503, 504])
    test(`HTTP ${status} from the backend is 503 GEOCODER_UNAVAILABLE`, async () => {
      fake.status = status;
      const res = await get(`/geocoding/v1/forward?q=status${status}`);
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.error.code).toBe("GEOCODER_UNAVAILABLE");
      expectBackendBlamed(body.error.message);
      expect(res.headers.get("cache-control")).toBeNull();
    });

  for (const status of [500, 400, 404, 429])
    test(`HTTP ${status} from the backend is 502 UPSTREAM_ERROR`, async () => {
      fake.status = status;
      const res = await get(`/geocoding/v1/reverse?lon=${status / 10}&lat=1`);
      expect(res.status).toBe(502);
      const body = await res.json();
      expect(body.error.code).toBe("UPSTREAM_ERROR");
      expect(body.error.message).toContain(`HTTP ${status}`);
      expectBackendBlamed(body.error.message);
    });

  for (const mode of ["malformed-json", "not-geojson", "html"] as const)
    test(`a ${mode} answer is 502 UPSTREAM_ERROR`, async () => {
      fake.mode = mode;
      const res = await get(`/geocoding/v1/autocomplete?text=${mode}`);
      expect(res.status).toBe(502);
      expect((await res.json()).error.code).toBe("UPSTREAM_ERROR");
    });

  test("a slow backend times out as 503 GEOCODER_UNAVAILABLE", async () => {
    fake.delayMs = 1500;
    const res = await get("/geocoding/v1/forward?q=slowpoke");
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.error.code).toBe("GEOCODER_UNAVAILABLE");
    expect(body.error.message).toContain("no answer within 300 ms");
  });

  test("a backend stopped mid-test is 503; cached answers keep working", async () => {
    const own = startFakePelias();
    const app = await makeTestApp({ GEOCODER_INTERNAL_URL: own.url });
    try {
      const k = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "stop").id, ["geocoding"]).secret };
      expect((await app.fetch("/geocoding/v1/forward?q=before", { headers: k })).status).toBe(200);
      await own.stop();
      const down = await app.fetch("/geocoding/v1/forward?q=after", { headers: k });
      expect(down.status).toBe(503);
      const body = await down.json();
      expect(body.error).toEqual({ code: "GEOCODER_UNAVAILABLE", message: expect.stringContaining("connection refused") });
      expect((await app.fetch("/geocoding/v1/forward?q=before", { headers: k })).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  test("a host name that does not resolve is 503 GEOCODER_UNAVAILABLE", async () => {
    const app = await makeTestApp({ GEOCODER_INTERNAL_URL: "http://pelias-api.invalid:4000/v1", GEOCODER_TIMEOUT_MS: "2000" });
    try {
      const k = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "dns").id, ["geocoding"]).secret };
      const res = await app.fetch("/geocoding/v1/reverse?lon=1&lat=1", { headers: k });
      expect(res.status).toBe(503);
      expect((await res.json()).error.code).toBe("GEOCODER_UNAVAILABLE");
    } finally {
      await app.close();
    }
  });

  test("no backend configured (GEOCODER=off) is 503 GEOCODER_NOT_CONFIGURED on every route", async () => {
    const app = await makeTestApp({ GEOCODER: "off" });
    try {
      const k = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "none").id, ["geocoding"]).secret };
      for (const [path, init] of [
        ["/geocoding/v1/forward?q=x", {}],
        ["/geocoding/v1/reverse?lon=1&lat=1", {}],
        ["/geocoding/v1/autocomplete?text=x", {}],
        ["/geocoding/v1/batch", { method: "POST", body: JSON.stringify({ queries: [{ type: "forward", q: "x" }] }), headers: { "content-type": "application/json" } }],
      ] as const) {
        const res = await app.fetch(path, { ...init, headers: { ...k, ...((init as RequestInit).headers as Record<string, string>) } });
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body.error.code).toBe("GEOCODER_NOT_CONFIGURED");
        expect(body.error.message).toContain("your API key is fine");
      }
    } finally {
      await app.close();
    }
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { startFakePelias, type FakePelias } from "../../../support/fake-pelias";

let fake: FakePelias;
let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  fake = startFakePelias();
  t = await makeTestApp({ GEOCODER_INTERNAL_URL: fake.url, GEOCODER_TIMEOUT_MS: "1000" });
  const org = seedOrg(t.ctx, "batch");
  headers = { "x-api-key": seedKey(t.ctx, org.id, ["geocoding"]).secret, "content-type": "application/json" };
});
afterAll(async () => {
  await t.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const post = (body: unknown, extra: Record<string, string> = {}, app: TestApp = t, h = headers) =>
  app.fetch("/geocoding/v1/batch", { method: "POST", headers: { ...h, ...extra }, body: typeof body === "string" ? body : JSON.stringify(body) });

let unique = 0;
const uid = () => `${Date.now().toString(36)}-${++unique}`;

describe("batch", () => {
  test("answers every job in input order with the single-form results and a summary", async () => {
    const tag = uid();
    const res = await post({
      queries: [
        { type: "forward", q: `first ${tag}`, limit: 2 },
        { type: "reverse", lon: 8.5, lat: 47.4 },
        { type: "forward", q: `nowhere ${tag}` },
        { type: "reverse", lon: -70, lat: -33, limit: 3, language: "es" },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    const body = await res.json();
    expect(body.summary).toEqual({ total: 4, succeeded: 4, failed: 0 });
    expect(body.batch.map((b: { index: number; type: string; status: string }) => [b.index, b.type, b.status])).toEqual([
      [0, "forward", "ok"],
      [1, "reverse", "ok"],
      [2, "forward", "ok"],
      [3, "reverse", "ok"],
    ]);
    expect(body.batch[0].result.features).toHaveLength(2);
    expect(body.batch[0].result.features[0].properties.name).toBe(`first ${tag} 0`);
    expect(body.batch[1].result.geocoding.query).toEqual({ lon: 8.5, lat: 47.4, limit: 1, language: "en" });
    expect(body.batch[2].result.features).toEqual([]);
    expect(body.batch[3].result.features).toHaveLength(3);
    const searches = fake.calls.map((c) => `${c.path}?${c.search}`).sort();
    expect(searches).toEqual(
      [
        `/v1/search?text=first%20${tag}&size=2&lang=en`,
        "/v1/reverse?point.lon=8.5&point.lat=47.4&size=1&lang=en",
        `/v1/search?text=nowhere%20${tag}&size=5&lang=en`,
        "/v1/reverse?point.lon=-70&point.lat=-33&size=3&lang=es",
      ].sort(),
    );
  });

  test("a failing job is reported in place; the rest succeed; HTTP 200", async () => {
    const tag = uid();
    const res = await post({ queries: [{ type: "forward", q: `ok ${tag}` }, { type: "forward", q: `explode ${tag}` }, { type: "reverse", lon: 1, lat: 2 }] });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.summary).toEqual({ total: 3, succeeded: 2, failed: 1 });
    expect(body.batch[1]).toEqual({ index: 1, type: "forward", status: "error", error: { code: "UPSTREAM_ERROR", message: expect.stringContaining("geocoding backend") } });
    expect(body.batch[0].status).toBe("ok");
    expect(body.batch[2].status).toBe("ok");
  });

  test("50 jobs run with bounded concurrency and keep their order", async () => {
    fake.delayMs = 15;
    const tag = uid();
    const queries = Array.from({ length: 50 }, (_, i) => ({ type: "forward", q: `job ${i} ${tag}`, limit: 1 }));
    const res = await post({ queries });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.batch.map((b: { result: { features: { properties: { name: string } }[] } }) => b.result.features[0]!.properties.name)).toEqual(queries.map((q) => `${q.q} 0`));
    expect(fake.calls).toHaveLength(50);
    expect(fake.maxInFlight).toBeGreaterThan(1);
    expect(fake.maxInFlight).toBeLessThanOrEqual(4);
  });

  test("jobs share the single-form cache", async () => {
    const tag = uid();
    expect((await t.fetch(`/geocoding/v1/forward?q=shared%20${tag}`, { headers })).status).toBe(200);
    const res = await post({ queries: [{ type: "forward", q: `shared ${tag}` }, { type: "forward", q: `shared ${tag}` }] });
    expect((await res.json()).summary.succeeded).toBe(2);
    expect(fake.calls).toHaveLength(1);
  });

  const invalid: [unknown, string, number | undefined][] = [
    [{ queries: [] }, "queries", undefined],
    [{ queries: Array.from({ length: 51 }, () => ({ type: "forward", q: "x" })) }, "queries", undefined],
    [{}, "queries", undefined],
    [{ queries: "nope" }, "queries", undefined],
    [{ queries: [{ type: "forward", q: "ok" }, { type: "sideways", q: "x" }] }, "queries[1].type", 1],
    [{ queries: [{ type: "forward" }] }, "queries[0].q", 0],
    [{ queries: [{ type: "forward", q: "ok" }, { type: "forward", q: "ok" }, { type: "forward", q: "ok" }, { type: "forward", q: "a".repeat(501) }] }, "queries[3].q", 3],
    [{ queries: [{ type: "forward", q: "x", limit: 26 }] }, "queries[0].limit", 0],
    [{ queries: [{ type: "forward", q: "x", limit: 0 }] }, "queries[0].limit", 0],
    [{ queries: [{ type: "forward", q: "x", bbox: "1,1,0,0" }] }, "queries[0].bbox", 0],
    [{ queries: [{ type: "forward", q: "x", country: "ZZ" }] }, "queries[0].country", 0],
    [{ queries: [{ type: "reverse", lon: 1 }] }, "queries[0].lat", 0],
    [{ queries: [{ type: "forward", q: "x" }, { type: "reverse", lon: 181, lat: 0 }] }, "queries[1].lon", 1],
    [{ queries: [{ type: "reverse", lon: 0, lat: -90.5 }] }, "queries[0].lat", 0],
    [{ queries: [{ type: "reverse", lon: 0, lat: 0, limit: 11 }] }, "queries[0].limit", 0],
    // Wrong JSON types are refused by the jobs' own checks, naming the job like every other mistake.
    [{ queries: [{ type: "forward", q: "a" }, { type: "forward", q: 123 }] }, "queries[1].q must be a string", 1],
    [{ queries: [{ type: "forward", q: "a" }, { type: "forward", q: "b", limit: 2.5 }] }, "queries[1].limit", 1],
    [{ queries: {} }, "queries must be an array", undefined],
    // A field of the other job type would be ignored: refused instead.
    [{ queries: [{ type: "reverse", lon: 0, lat: 0, bbox: "x" }] }, "reverse does not take queries[0].bbox", 0],
    [{ queries: [{ type: "forward", q: "x", size: 3 }] }, "use queries[0].limit", 0],
  ];
  for (const [body, param, index] of invalid)
    test(`400 naming ${param}${index === undefined ? "" : ` (job ${index})`}: ${JSON.stringify(body).slice(0, 70)}`, async () => {
      const res = await post(body);
      expect(res.status).toBe(400);
      const err = (await res.json()).error;
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.message).toContain(param);
      if (index !== undefined) expect(err.details.index).toBe(index);
      expect(fake.calls).toHaveLength(0);
    });

  test("a query parameter given twice is a 400 naming it, as on the single forms", async () => {
    const res = await t.fetch("/geocoding/v1/batch?_=1&_=2", { method: "POST", headers, body: JSON.stringify({ queries: [{ type: "forward", q: "paris" }] }) });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: "BAD_REQUEST", message: "_ is given more than once", details: { parameter: "_" } });
    expect(fake.calls).toHaveLength(0);
  });

  test("50 jobs are accepted, and malformed bodies are 400 / 415", async () => {
    expect((await post({ queries: Array.from({ length: 50 }, () => ({ type: "reverse", lon: 0, lat: 0 })) })).status).toBe(200);
    const notJson = await post("{not json");
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.code).toBe("BAD_REQUEST");
    const text = await post("queries", { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    // A JSON body under another JSON type is named for its type, not called "not an object".
    for (const type of ["application/geo+json", "application/vnd.api+json"]) {
      const other = await post({ queries: [{ type: "reverse", lon: 0, lat: 0 }] }, { "content-type": type });
      expect(other.status).toBe(415);
      expect((await other.json()).error.message).toContain("Content-Type: application/json");
    }
    expect((await post({ queries: [{ type: "reverse", lon: 0, lat: 0 }] }, { "content-type": "application/json; charset=utf-8" })).status).toBe(200);
  });
});

describe("Idempotency-Key", () => {
  test("same key and payload replays the stored answer without calling the backend", async () => {
    const key = uid();
    const payload = { queries: [{ type: "forward", q: `idem ${key}` }, { type: "reverse", lon: 3, lat: 4 }] };
    const first = await post(payload, { "idempotency-key": key });
    expect(first.status).toBe(200);
    const firstBody = await first.text();
    const calls = fake.calls.length;
    const again = await post(payload, { "idempotency-key": key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("cache-control")).toBe("private, no-store");
    expect(await again.text()).toBe(firstBody);
    expect(fake.calls.length).toBe(calls);
    // The same payload, written differently (key order, explicit defaults, extra spaces), is the same request.
    const same = await post({ queries: [{ q: ` idem  ${key} `, type: "forward", limit: 5, language: "en" }, { lat: 4, lon: 3, type: "reverse" }] }, { "idempotency-key": key });
    expect(same.headers.get("idempotent-replayed")).toBe("true");
  });

  test("a replay is not billed again", async () => {
    const org = seedOrg(t.ctx, `quota-${uid()}`);
    const h = { "x-api-key": seedKey(t.ctx, org.id, ["geocoding"], { monthlyQuota: 100 }).secret, "content-type": "application/json" };
    const key = uid();
    const payload = { queries: [{ type: "forward", q: `billing ${key}` }] };
    // Usage is settled after the response is sent: give each call a moment to settle before the next.
    const settled = async (res: Promise<Response>) => {
      const r = await res;
      await Bun.sleep(20);
      return r;
    };
    const first = await settled(post(payload, { "idempotency-key": key }, t, h));
    expect(first.headers.get("x-quota-used")).toBe("1");
    for (let i = 0; i < 3; i++) {
      const replay = await settled(post(payload, { "idempotency-key": key }, t, h));
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      // The quota headers of a replay tell the truth: still one call used.
      expect(replay.headers.get("x-quota-used")).toBe("1");
      expect(replay.headers.get("x-quota-remaining")).toBe("99");
    }
    const fresh = await post(payload, { "idempotency-key": uid() }, t, h);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(fresh.headers.get("x-quota-used")).toBe("2");
  });

  test("same key with a different payload is 409 IDEMPOTENCY_CONFLICT", async () => {
    const key = uid();
    expect((await post({ queries: [{ type: "forward", q: "one" }] }, { "idempotency-key": key })).status).toBe(200);
    const res = await post({ queries: [{ type: "forward", q: "two" }] }, { "idempotency-key": key });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("IDEMPOTENCY_CONFLICT");
  });

  test("a duplicate while the first is running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After: 1", async () => {
    fake.delayMs = 500;
    const key = uid();
    const payload = { queries: [{ type: "forward", q: `slow ${key}` }] };
    const first = post(payload, { "idempotency-key": key });
    // Once the backend sees the call, the first request holds the key.
    while (fake.calls.length === 0) await Bun.sleep(5);
    const dup = await post(payload, { "idempotency-key": key });
    expect(dup.status).toBe(409);
    expect(dup.headers.get("retry-after")).toBe("1");
    expect((await dup.json()).error.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    const other = await post({ queries: [{ type: "forward", q: "different" }] }, { "idempotency-key": key });
    expect((await other.json()).error.code).toBe("IDEMPOTENCY_CONFLICT");
    expect((await first).status).toBe(200);
    const later = await post(payload, { "idempotency-key": key });
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(fake.calls).toHaveLength(1);
  });

  test("keys are scoped to the caller", async () => {
    const key = uid();
    const org = seedOrg(t.ctx, `other-${uid()}`);
    const otherKey = { "x-api-key": seedKey(t.ctx, org.id, ["geocoding"]).secret, "content-type": "application/json" };
    const session = await seedSession(t.ctx, { orgId: org.id });
    expect((await post({ queries: [{ type: "forward", q: `mine ${key}` }] }, { "idempotency-key": key })).status).toBe(200);
    for (const h of [otherKey, { ...session.headers, "content-type": "application/json" }]) {
      const res = await post({ queries: [{ type: "forward", q: `theirs ${key}` }] }, { "idempotency-key": key }, t, h);
      expect(res.status).toBe(200);
      expect(res.headers.get("idempotent-replayed")).toBeNull();
    }
  });

  test("an answer with jobs failed for an unavailable backend is not stored: retrying the key runs again", async () => {
    const key = uid();
    const payload = { queries: [{ type: "forward", q: `retry ${key}` }] };
    fake.status = 503;
    const failed = await post(payload, { "idempotency-key": key });
    expect(failed.status).toBe(200);
    expect((await failed.json()).batch[0].error.code).toBe("GEOCODER_UNAVAILABLE");
    fake.status = null;
    const retried = await post(payload, { "idempotency-key": key });
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect((await retried.json()).summary.succeeded).toBe(1);
    expect((await post(payload, { "idempotency-key": key })).headers.get("idempotent-replayed")).toBe("true");
  });

  test("an invalid Idempotency-Key header is a 400; an invalid body does not claim the key", async () => {
    const res = await post({ queries: [{ type: "forward", q: "x" }] }, { "idempotency-key": "k".repeat(256) });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("Idempotency-Key");
    const key = uid();
    expect((await post({ queries: [{ type: "forward" }] }, { "idempotency-key": key })).status).toBe(400);
    const ok = await post({ queries: [{ type: "forward", q: "valid now" }] }, { "idempotency-key": key });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
  });

  test("records survive a restart on the same data directory", async () => {
    const dataDir = tempDir();
    const own = startFakePelias();
    let app = await makeTestApp({ GEOCODER_INTERNAL_URL: own.url }, { dataDir });
    const h = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "restart").id, ["geocoding"]).secret, "content-type": "application/json" };
    const payload = { queries: [{ type: "forward", q: "persist me" }, { type: "reverse", lon: 5, lat: 6 }] };
    try {
      const first = await post(payload, { "idempotency-key": "restart-1" }, app, h);
      const firstBody = await first.text();
      await app.close();
      app = await makeTestApp({ GEOCODER_INTERNAL_URL: own.url }, { dataDir });
      const replay = await post(payload, { "idempotency-key": "restart-1" }, app, h);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(await replay.text()).toBe(firstBody);
      expect(own.calls).toHaveLength(2);
      const conflict = await post({ queries: [{ type: "forward", q: "else" }] }, { "idempotency-key": "restart-1" }, app, h);
      expect(conflict.status).toBe(409);
    } finally {
      await app.close();
      await own.stop();
    }
  });
});

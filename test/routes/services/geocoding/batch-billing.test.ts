// Issue 15 item 5: a batch is billed as its number of jobs against the monthly quota and the rate
// limit (a replay still counts nothing), and the response headers say so.
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { startFakePelias, type FakePelias } from "../../../support/fake-pelias";

let fake: FakePelias;
let t: TestApp;
let orgs = 0;

beforeAll(async () => {
  fake = startFakePelias();
  t = await makeTestApp({ GEOCODER_INTERNAL_URL: fake.url, GEOCODER_TIMEOUT_MS: "1000" });
});
afterEach(() => setSystemTime());
afterAll(async () => {
  await t.close();
  await fake.stop();
});

function keyHeaders(extra: { monthlyQuota?: number; rateLimitPerMinute?: number }) {
  const org = seedOrg(t.ctx, `billing-${++orgs}`);
  return { "x-api-key": seedKey(t.ctx, org.id, ["geocoding"], extra).secret, "content-type": "application/json" };
}

const jobs = (n: number, tag: string) => ({ queries: Array.from({ length: n }, (_, i) => ({ type: "forward", q: `${tag} ${i}` })) });
const batch = (h: Record<string, string>, body: unknown, extra: Record<string, string> = {}) =>
  t.fetch("/geocoding/v1/batch", { method: "POST", headers: { ...h, ...extra }, body: JSON.stringify(body) });
const single = (h: Record<string, string>, q: string) => t.fetch(`/geocoding/v1/forward?q=${encodeURIComponent(q)}`, { headers: h });

describe("monthly quota", () => {
  test("five calls and a 2-job batch use seven calls", async () => {
    const h = keyHeaders({ monthlyQuota: 100 });
    for (let i = 0; i < 5; i++) expect((await single(h, `five ${i}`)).status).toBe(200);
    const res = await batch(h, jobs(2, "two"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-used")).toBe("7");
    expect(res.headers.get("x-quota-remaining")).toBe("93");
    const next = await single(h, "after");
    expect(next.headers.get("x-quota-used")).toBe("8");
  });

  test("a batch larger than what is left is refused whole, and counts nothing", async () => {
    const h = keyHeaders({ monthlyQuota: 10 });
    expect((await batch(h, jobs(8, "eight"))).headers.get("x-quota-used")).toBe("8");
    const refused = await batch(h, jobs(3, "three"));
    expect(refused.status).toBe(429);
    const body = await refused.json();
    expect(body.error.code).toBe("QUOTA_EXCEEDED");
    expect(body.error.message).toContain("counts 3");
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(refused.headers.get("x-quota-used")).toBe("8");
    // The refused batch left the two remaining calls untouched.
    const fits = await batch(h, jobs(2, "fits"));
    expect(fits.status).toBe(200);
    expect(fits.headers.get("x-quota-used")).toBe("10");
    expect(fits.headers.get("x-quota-remaining")).toBe("0");
  });

  test("a replay of a batch counts nothing; a new key counts the jobs again", async () => {
    const h = keyHeaders({ monthlyQuota: 100 });
    const payload = jobs(3, "replayed");
    const first = await batch(h, payload, { "idempotency-key": "bill-replay-1" });
    expect(first.headers.get("x-quota-used")).toBe("3");
    const replay = await batch(h, payload, { "idempotency-key": "bill-replay-1" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.headers.get("x-quota-used")).toBe("3");
    expect(replay.headers.get("x-quota-remaining")).toBe("97");
    const fresh = await batch(h, payload, { "idempotency-key": "bill-replay-2" });
    expect(fresh.headers.get("x-quota-used")).toBe("6");
  });

  test("an invalid batch counts nothing against the quota and takes one token, as any invalid call does", async () => {
    const h = keyHeaders({ monthlyQuota: 100, rateLimitPerMinute: 10 });
    const invalid = await batch(h, { queries: [{ type: "forward" }, { type: "forward", q: "x" }] });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("x-ratelimit-remaining")).toBe("9");
    const valid = await single(h, "valid");
    expect(valid.headers.get("x-quota-used")).toBe("1");
    expect(valid.headers.get("x-ratelimit-remaining")).toBe("8");
  });

  test("a batch refused for the quota takes no rate-limit token", async () => {
    const h = keyHeaders({ monthlyQuota: 2, rateLimitPerMinute: 10 });
    for (let i = 0; i < 3; i++) {
      const refused = await batch(h, jobs(3, `over ${i}`));
      expect(refused.status).toBe(429);
      expect((await refused.json()).error.code).toBe("QUOTA_EXCEEDED");
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("10");
    }
    const fits = await batch(h, jobs(2, "fits"));
    expect(fits.status).toBe(200);
    expect(fits.headers.get("x-ratelimit-remaining")).toBe("8");
  });
});

describe("rate limit", () => {
  test("a batch takes one token per job", async () => {
    const h = keyHeaders({ rateLimitPerMinute: 10 });
    const res = await batch(h, jobs(4, "tokens"));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("6");
  });

  test("a batch with more jobs than tokens left is 429 RATE_LIMITED and takes no token, however often it is retried", async () => {
    setSystemTime(new Date()); // no refill between calls: every token is accounted for
    const h = keyHeaders({ rateLimitPerMinute: 10 });
    expect((await batch(h, jobs(7, "seven"))).headers.get("x-ratelimit-remaining")).toBe("3");
    for (let i = 0; i < 4; i++) {
      const refused = await batch(h, jobs(5, "five"));
      expect(refused.status).toBe(429);
      expect((await refused.json()).error.code).toBe("RATE_LIMITED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get("x-ratelimit-remaining")).toBe("3");
    }
    // The refused batches left all three tokens for single calls.
    expect((await single(h, "one")).status).toBe(200);
    expect((await single(h, "two")).status).toBe(200);
    expect((await single(h, "three")).status).toBe(200);
    expect((await single(h, "four")).status).toBe(429);
  });

  test("a batch over the whole per-minute limit says how many jobs fit", async () => {
    const h = keyHeaders({ rateLimitPerMinute: 5 });
    const refused = await batch(h, jobs(6, "six"));
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.message).toContain("at most 5 jobs");
  });
});

// Rate limits, quotas and usage over HTTP, including quota persistence across a restart on the same
// data directory.
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { rmSync } from "node:fs";
import { authTestApp, errorCode } from "./support";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { tempDir, type TestApp } from "../../../support/app";
import { nextMonthStartS } from "../../../../src/domain/usage/service";

let t: TestApp;
let orgId: number;
let owner: Awaited<ReturnType<typeof seedSession>>;

beforeAll(async () => {
  t = await authTestApp({ RATE_LIMIT_PER_MINUTE: "5" });
  orgId = seedOrg(t.ctx, "acme").id;
  owner = await seedSession(t.ctx, { orgId });
});
afterAll(() => t.close());
afterEach(() => setSystemTime());

const call = (path: string, secret: string) => t.fetch(path, { headers: { "x-api-key": secret } });
const usage = async (keyId: number, app = t, headers = owner.headers) => (await app.fetch(`/api/v1/orgs/acme/keys/${keyId}/usage`, { headers })).json();

describe("rate limits", () => {
  test("headers on every authenticated service response; 429 RATE_LIMITED with Retry-After when the bucket is empty", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding", "elevation"]);
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call("/probe/geo", key.secret);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-limit")).toBe("5");
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
      const reset = Number(res.headers.get("x-ratelimit-reset"));
      expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const limited = await call("/probe/geo", key.secret);
    expect(limited.status).toBe(429);
    expect(await errorCode(limited)).toBe("RATE_LIMITED");
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(13);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    // another service group has its own bucket
    expect((await call("/probe/elevation", key.secret)).status).toBe(200);
    // tokens come back over time
    setSystemTime(new Date(Date.now() + retry * 1000));
    expect((await call("/probe/geo", key.secret)).status).toBe(200);
  });

  test("a per-key override replaces the default", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { rateLimitPerMinute: 2 });
    expect((await call("/probe/geo", key.secret)).headers.get("x-ratelimit-limit")).toBe("2");
    expect((await call("/probe/geo", key.secret)).status).toBe(200);
    expect((await call("/probe/geo", key.secret)).status).toBe(429);
  });

  test("keys have separate buckets; sessions are limited too", async () => {
    const a = seedKey(t.ctx, orgId, ["geocoding"], { rateLimitPerMinute: 1 });
    const b = seedKey(t.ctx, orgId, ["geocoding"], { rateLimitPerMinute: 1 });
    expect((await call("/probe/geo", a.secret)).status).toBe(200);
    expect((await call("/probe/geo", a.secret)).status).toBe(429);
    expect((await call("/probe/geo", b.secret)).status).toBe(200);
    const s = await seedSession(t.ctx, { orgId });
    const res = await t.fetch("/probe/geo", { headers: { cookie: s.cookie } });
    expect(res.headers.get("x-ratelimit-limit")).toBe("5");
  });

  test("unauthenticated requests carry no rate-limit headers", async () => {
    const res = await t.fetch("/probe/geo");
    expect(res.status).toBe(401);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});

describe("quotas and usage", () => {
  test("quota headers count down; 429 QUOTA_EXCEEDED when used up", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { monthlyQuota: 3, rateLimitPerMinute: 1000 });
    for (let i = 1; i <= 3; i++) {
      const res = await call("/probe/geo", key.secret);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-quota-limit")).toBe("3");
      expect(res.headers.get("x-quota-used")).toBe(String(i));
      expect(res.headers.get("x-quota-remaining")).toBe(String(3 - i));
      expect(res.headers.get("x-quota-reset")).toBe(String(nextMonthStartS(Date.now())));
    }
    const over = await call("/probe/geo", key.secret);
    expect(over.status).toBe(429);
    expect(await errorCode(over)).toBe("QUOTA_EXCEEDED");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(over.headers.get("x-quota-remaining")).toBe("0");
  });

  test("a call refused for its quota takes no rate-limit token, so retrying it does not run the bucket dry", async () => {
    setSystemTime(new Date()); // no refill between calls: every token is accounted for
    const key = seedKey(t.ctx, orgId, ["geocoding"], { monthlyQuota: 1, rateLimitPerMinute: 3 });
    const ok = await call("/probe/geo", key.secret);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-ratelimit-remaining")).toBe("2");
    for (let i = 0; i < 5; i++) {
      const over = await call("/probe/geo", key.secret);
      expect(over.status).toBe(429);
      expect(await errorCode(over)).toBe("QUOTA_EXCEEDED");
      expect(over.headers.get("x-ratelimit-limit")).toBe("3");
      expect(over.headers.get("x-ratelimit-remaining")).toBe("2");
    }
  });

  test("keys without a quota carry no quota headers", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { rateLimitPerMinute: 1000 });
    const res = await call("/probe/geo", key.secret);
    expect(res.headers.get("x-quota-limit")).toBeNull();
  });

  test("failed calls and calls marked not billable are not counted", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { monthlyQuota: 2, rateLimitPerMinute: 1000 });
    for (let i = 0; i < 4; i++) expect((await call("/probe/fail", key.secret)).status).toBe(400);
    for (let i = 0; i < 4; i++) expect((await call("/probe/replay", key.secret)).status).toBe(200);
    const ok = await call("/probe/geo", key.secret);
    expect(ok.headers.get("x-quota-used")).toBe("1");
    const u = await usage(key.id);
    expect(u.total).toBe(1);
    expect(u.month).toMatchObject({ used: 1, quota: 2, remaining: 1 });
  });

  test("usage per key, day and service group through the management API", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding", "elevation"], { rateLimitPerMinute: 1000 });
    for (let i = 0; i < 3; i++) await call("/probe/geo", key.secret);
    await call("/probe/elevation", key.secret);
    const u = await usage(key.id);
    const today = new Date().toISOString().slice(0, 10);
    expect(u.days).toEqual([
      { day: today, service: "elevation", count: 1 },
      { day: today, service: "geocoding", count: 3 },
    ]);
    expect(u.total).toBe(4);
    expect(u.month).toMatchObject({ used: 4, quota: null, remaining: null });
    // range filters
    const old = await (await t.fetch(`/api/v1/orgs/acme/keys/${key.id}/usage?from=2020-01-01&to=2020-01-31`, { headers: owner.headers })).json();
    expect(old.days).toEqual([]);
  });

  test("usage query input is validated", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    for (const q of ["from=yesterday", "to=2026-02-30", "from=2026-05-01&to=2026-04-01", "from=2020-01-01&to=2026-01-01"]) {
      const res = await t.fetch(`/api/v1/orgs/acme/keys/${key.id}/usage?${q}`, { headers: owner.headers });
      expect(res.status).toBe(400);
    }
    expect((await t.fetch(`/api/v1/orgs/acme/keys/424242/usage`, { headers: owner.headers })).status).toBe(404);
  });

  test("management and map-write scopes are not billed", async () => {
    const key = seedKey(t.ctx, orgId, ["tilesets:write"], { monthlyQuota: 1 });
    for (let i = 0; i < 3; i++) expect((await t.fetch("/probe/tilesets", { method: "POST", headers: { "x-api-key": key.secret } })).status).toBe(200);
    expect((await usage(key.id)).total).toBe(0);
  });

  test("a new month starts a new quota", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { monthlyQuota: 1, rateLimitPerMinute: 1000 });
    expect((await call("/probe/geo", key.secret)).status).toBe(200);
    expect((await call("/probe/geo", key.secret)).status).toBe(429);
    setSystemTime(new Date(nextMonthStartS(Date.now()) * 1000 + 1000));
    const res = await call("/probe/geo", key.secret);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-used")).toBe("1");
  });
});

describe("persistence", () => {
  test("usage and quota survive a restart on the same data directory (flushed on shutdown)", async () => {
    const dataDir = tempDir();
    try {
      const first = await authTestApp({}, { dataDir });
      const org = seedOrg(first.ctx, "acme");
      const admin = await seedSession(first.ctx, { orgId: org.id });
      const key = seedKey(first.ctx, org.id, ["geocoding"], { monthlyQuota: 3 });
      expect((await first.fetch("/probe/geo", { headers: { "x-api-key": key.secret } })).status).toBe(200);
      expect((await first.fetch("/probe/geo", { headers: { "x-api-key": key.secret } })).status).toBe(200);
      // not yet written: counters are batched
      expect((first.ctx.sqlite.query("SELECT COUNT(*) AS n FROM key_usage").get() as { n: number }).n).toBe(0);
      await first.close();

      const second = await authTestApp({}, { dataDir });
      try {
        const res = await second.fetch("/probe/geo", { headers: { "x-api-key": key.secret } });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-quota-used")).toBe("3");
        const over = await second.fetch("/probe/geo", { headers: { "x-api-key": key.secret } });
        expect(await errorCode(over)).toBe("QUOTA_EXCEEDED");
        const u = await (await second.fetch(`/api/v1/orgs/acme/keys/${key.id}/usage`, { headers: admin.headers })).json();
        expect(u.total).toBe(3);
        const list = await (await second.fetch("/api/v1/orgs/acme/keys", { headers: admin.headers })).json();
        expect(list.keys[0].last_used_at).not.toBeNull();
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("last_used_at is written at most once a minute per key", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"], { rateLimitPerMinute: 1000 });
    const persisted = () => (t.ctx.sqlite.query("SELECT last_used_at FROM api_keys WHERE id = ?").get(key.id) as { last_used_at: number | null }).last_used_at;
    const auth = t.services.auth;
    await call("/probe/geo", key.secret);
    auth.usage.flush();
    const first = persisted();
    expect(first).not.toBeNull();
    setSystemTime(new Date(Date.now() + 30_000));
    await call("/probe/geo", key.secret);
    auth.usage.flush();
    expect(persisted()).toBe(first);
    setSystemTime(new Date(Date.now() + 31_000));
    await call("/probe/geo", key.secret);
    auth.usage.flush();
    expect(persisted()).toBeGreaterThan(first!);
  });
});

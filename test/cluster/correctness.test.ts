// What is correct with one process stays correct with two workers, against the compiled binary with
// WORKERS=2: keys, rate limits, quotas, usage counts, idempotency, sessions and CSRF, publishes and
// processing jobs, whichever worker answers. Every check first makes sure both workers answered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { AppContext } from "../../src/context";
import { ensureBinary, startBinary, type RunningBinary } from "../support/binary";
import { startFakePelias, type FakePelias } from "../support/fake-pelias";
import { seedKey, seedOrg, seedSession } from "../support/seed";
import { onFreshConnection, openDataDir, untilEveryWorker, writtenUsage, type Answer } from "./support";
import { countries } from "../routes/management/tilesets/fixtures";
import { testBlocksFont } from "../routes/management/fonts/fixtures";

const WORKERS = 2;
let bin: RunningBinary;
let fake: FakePelias;
let seed: AppContext;
let orgId: number;
let session: Awaited<ReturnType<typeof seedSession>>;
let admin: Awaited<ReturnType<typeof seedSession>>;
let n = 0;
const q = () => `/geocoding/v1/forward?q=${encodeURIComponent(`place ${++n}`)}`;

beforeAll(async () => {
  await ensureBinary();
  fake = startFakePelias();
  bin = await startBinary({ env: { WORKERS: String(WORKERS), WORKER_HEADER: "true", GEOCODER_INTERNAL_URL: fake.url } });
  seed = openDataDir(bin.dataDir);
  orgId = seedOrg(seed, "acme").id;
  session = await seedSession(seed, { orgId, role: "owner" });
  admin = await seedSession(seed, { isAdmin: true });
}, 180_000);

afterAll(async () => {
  await bin?.stop("SIGKILL");
  await seed?.shutdown();
  await fake?.stop();
});

const call = (path: string, init: RequestInit = {}) => onFreshConnection(bin.baseUrl, path, init);
const workersOf = (answers: Answer[]) => new Set(answers.map((a) => a.worker));
const json = (body: unknown, headers: Record<string, string>): RequestInit => ({ method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });

/** `count` calls one after another, each on its own connection, `gapMs` apart. */
async function sequential(count: number, gapMs: number, make: () => [string, RequestInit]): Promise<Answer[]> {
  const out: Answer[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await call(...make()));
    await Bun.sleep(gapMs);
  }
  return out;
}

describe("keys", () => {
  test("a key revoked through one worker is refused by every worker within 5 s", async () => {
    const key = seedKey(seed, orgId, ["geocoding"]);
    const h = { "x-api-key": key.secret };
    // Every worker has the key cached as valid.
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, q(), { headers: h }, (a) => a.status === 200, 10_000)).size).toBe(WORKERS);
    const revoked = await call(`/api/v1/orgs/acme/keys/${key.id}`, { method: "DELETE", headers: session.headers });
    expect(revoked.status).toBe(204);
    const refused = await untilEveryWorker(bin.baseUrl, WORKERS, "/geocoding/v1/forward?q=after", { headers: h }, (a) => a.status === 401, 10_000);
    expect(refused.size).toBe(WORKERS);
    for (const ms of refused.values()) expect(ms).toBeLessThan(5_000);
  }, 30_000);

  test("a key expired by another process (the CLI) answers KEY_EXPIRED from every worker within 5 s", async () => {
    const key = seedKey(seed, orgId, ["geocoding"]);
    const h = { "x-api-key": key.secret };
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, q(), { headers: h }, (a) => a.status === 200, 10_000)).size).toBe(WORKERS);
    seed.sqlite.query("UPDATE api_keys SET expires_at = ? WHERE id = ?").run(Date.now() - 1000, key.id);
    const expired = await untilEveryWorker(bin.baseUrl, WORKERS, "/geocoding/v1/forward?q=late", { headers: h }, (a) => a.status === 401 && a.body.includes("KEY_EXPIRED"), 10_000);
    expect(expired.size).toBe(WORKERS);
    for (const ms of expired.values()) expect(ms).toBeLessThan(5_000);
  }, 30_000);
});

describe("logs", () => {
  test("every access-log line names the worker that answered", async () => {
    // SO_REUSEPORT picks a worker per connection by hash, so a few calls can all land on one worker:
    // call until every worker answered (in practice a handful of calls).
    const answers: Answer[] = [];
    while (workersOf(answers).size < WORKERS && answers.length < 100) answers.push(await call("/health"));
    expect(workersOf(answers).size).toBe(WORKERS);
    const ids = new Set(answers.map((a) => a.headers.get("x-request-id")));
    let lines: Record<string, unknown>[] = [];
    for (let i = 0; i < 50 && lines.length < ids.size; i++) {
      await Bun.sleep(50); // access lines are written in batches
      lines = bin.logs().filter((e) => e.msg === "request" && ids.has(e.request_id as string));
    }
    expect(lines.length).toBe(ids.size);
    for (const line of lines) expect(answers.find((a) => a.headers.get("x-request-id") === line.request_id)!.worker).toBe(line.worker as number);
  }, 30_000);
});

describe("rate limits and quotas across workers", () => {
  test("calls spaced beyond the sync interval are limited exactly as by one process", async () => {
    // 6 a minute: a token comes back every 10 s, so over these ~4 s exactly 6 calls may pass.
    const key = seedKey(seed, orgId, ["geocoding"], { rateLimitPerMinute: 6 });
    const answers = await sequential(20, 150, () => [q(), { headers: { "x-api-key": key.secret } }]);
    expect(workersOf(answers).size).toBe(WORKERS);
    expect(answers.filter((a) => a.status === 200).length).toBe(6);
    expect(answers.filter((a) => a.status === 429).length).toBe(14);
    for (const a of answers.filter((a) => a.status === 429)) expect(JSON.parse(a.body).error.code).toBe("RATE_LIMITED");
  }, 30_000);

  test("a burst at every worker at once stays within WORKERS x the limit, and the surplus is paid back", async () => {
    const key = seedKey(seed, orgId, ["geocoding"], { rateLimitPerMinute: 6 });
    const h = { "x-api-key": key.secret };
    const burst = await Promise.all(Array.from({ length: 30 }, () => call(q(), { headers: h })));
    expect(workersOf(burst).size).toBe(WORKERS);
    const admitted = burst.filter((a) => a.status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(6);
    expect(admitted).toBeLessThanOrEqual(WORKERS * 6);
    // Once the workers have synced, nobody gets through until the bucket is out of debt.
    await Bun.sleep(500);
    const after = await sequential(12, 120, () => [q(), { headers: h }]);
    expect(workersOf(after).size).toBe(WORKERS);
    expect(after.every((a) => a.status === 429)).toBe(true);
  }, 30_000);

  test("a monthly quota holds across workers: exactly the quota is served, then 429 QUOTA_EXCEEDED", async () => {
    const key = seedKey(seed, orgId, ["geocoding"], { monthlyQuota: 8 });
    const answers = await sequential(20, 150, () => [q(), { headers: { "x-api-key": key.secret } }]);
    expect(workersOf(answers).size).toBe(WORKERS);
    expect(answers.filter((a) => a.status === 200).length).toBe(8);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(12);
    for (const a of refused) expect(JSON.parse(a.body).error.code).toBe("QUOTA_EXCEEDED");
    // Quota headers count the calls of every worker.
    const last = answers.filter((a) => a.status === 200).at(-1)!;
    expect(last.headers.get("x-quota-used")).toBe("8");
    expect(last.headers.get("x-quota-remaining")).toBe("0");
  }, 30_000);

  test("calls refused for the quota take no rate-limit token on any worker", async () => {
    // 3 a minute: a token comes back every 20 s, so over these few seconds the bucket stays at the 2
    // tokens the one allowed call left, unless refusals take tokens (then 1, 0, and RATE_LIMITED).
    const key = seedKey(seed, orgId, ["geocoding"], { rateLimitPerMinute: 3, monthlyQuota: 1 });
    const h = { "x-api-key": key.secret };
    expect((await call(q(), { headers: h })).status).toBe(200);
    await Bun.sleep(300); // past the sync interval: every worker knows the quota is used
    const refused = await sequential(12, 150, () => [q(), { headers: h }]);
    expect(workersOf(refused).size).toBe(WORKERS);
    for (const a of refused) {
      expect(a.status).toBe(429);
      expect(JSON.parse(a.body).error.code).toBe("QUOTA_EXCEEDED");
      expect(a.headers.get("x-ratelimit-remaining")).toBe("2");
    }
  }, 30_000);
});

describe("idempotency, sessions and CSRF", () => {
  test("a batch replayed through any worker is answered from the stored response, once counted", async () => {
    const key = seedKey(seed, orgId, ["geocoding"]);
    const init = json({ queries: [{ type: "forward", q: "idempotent one" }, { type: "forward", q: "idempotent two" }] }, { "x-api-key": key.secret, "idempotency-key": "cluster-batch-1" });
    fake.reset();
    const first = await call("/geocoding/v1/batch", init);
    expect(first.status).toBe(200);
    const callsAfterFirst = fake.calls.length;
    const replays = await sequential(8, 0, () => ["/geocoding/v1/batch", init]);
    expect(workersOf([first, ...replays]).size).toBe(WORKERS);
    for (const r of replays) {
      expect(r.status).toBe(200);
      expect(r.headers.get("idempotent-replayed")).toBe("true");
      expect(r.body).toBe(first.body);
    }
    expect(fake.calls.length).toBe(callsAfterFirst);
    const conflict = await call("/geocoding/v1/batch", json({ queries: [{ type: "forward", q: "other" }] }, { "x-api-key": key.secret, "idempotency-key": "cluster-batch-1" }));
    expect(JSON.parse(conflict.body).error.code).toBe("IDEMPOTENCY_CONFLICT");
  }, 30_000);

  test("a batch claimed by a worker killed with SIGKILL can be retried at once, not 409 IN_PROGRESS", async () => {
    const key = seedKey(seed, orgId, ["geocoding"]);
    const init = json({ queries: [{ type: "forward", q: "killed mid-batch" }] }, { "x-api-key": key.secret, "idempotency-key": "cluster-batch-killed" });
    fake.delayMs = 5_000;
    try {
      const doomed = call("/geocoding/v1/batch", init).catch(() => null);
      // The claim names the process that holds it; that worker is the one to kill.
      let owner: number | null = null;
      for (let i = 0; i < 500 && owner === null; i++) {
        owner = (seed.sqlite.query("SELECT owner FROM idempotency_records WHERE key = 'cluster-batch-killed' AND state = 'in_progress'").get() as { owner: number } | null)?.owner ?? null;
        if (owner === null) await Bun.sleep(20);
      }
      expect(owner).toBeGreaterThan(0);
      process.kill(owner!, "SIGKILL");
      await doomed;
    } finally {
      fake.delayMs = 0;
    }
    // Whichever worker answers (the survivor, or the restarted one), the key is free again.
    let retried: Answer | null = null;
    for (let i = 0; i < 50; i++) {
      // A connection the kernel queued on the killed worker's socket is reset: that is a retry too.
      retried = await call("/geocoding/v1/batch", init).catch(() => null);
      if (retried?.status === 200) break;
      await Bun.sleep(100);
    }
    expect(retried!.status).toBe(200);
    // The supervisor logs right after freeing; its stdout may reach this process a moment later.
    await bin.waitForLog((e) => e.msg === "freed the unfinished Idempotency-Key claims of an exited worker" && e.claims === 1, 5_000);
  }, 60_000);

  test("failed logins are counted across workers: an address failing 20 times is refused by every worker", async () => {
    // 20 failures from one address across accounts make it wait a minute, whichever workers counted
    // them (each counting its own, neither reached 20). Nothing else in this file logs in over HTTP,
    // so refusing this address for a minute disturbs no other test.
    const s = await seedSession(seed, {});
    const login = (email: string, password: string) => call("/api/v1/session", json({ email, password }, {}));
    const failures: Answer[] = [];
    for (let i = 0; i < 20; i++) failures.push(await login(`spray${i}@example.com`, "wrong password!!"));
    expect(failures.map((a) => a.status)).toEqual(Array(20).fill(401));
    expect(workersOf(failures).size).toBe(WORKERS);
    const after: Answer[] = [];
    for (let i = 0; i < 10; i++) after.push(await login(s.email, s.password));
    expect(workersOf(after).size).toBe(WORKERS);
    for (const a of after) {
      expect(a.status).toBe(429);
      expect(JSON.parse(a.body).error.code).toBe("TOO_MANY_ATTEMPTS");
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(30);
    }
  }, 60_000);

  test("a session works on every worker; unsafe calls need its CSRF token on every worker", async () => {
    const read = await untilEveryWorker(bin.baseUrl, WORKERS, "/api/v1/session", { headers: { cookie: session.cookie } }, (a) => a.status === 200, 10_000);
    expect(read.size).toBe(WORKERS);
    const key = seedKey(seed, orgId, ["geocoding"]);
    const patch = (headers: Record<string, string>) => ({ method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: "renamed" }) });
    const forged = await untilEveryWorker(bin.baseUrl, WORKERS, `/api/v1/orgs/acme/keys/${key.id}`, patch({ cookie: session.cookie, origin: "https://evil.example" }), (a) => a.status === 403, 10_000);
    expect(forged.size).toBe(WORKERS);
    const allowed = await untilEveryWorker(bin.baseUrl, WORKERS, `/api/v1/orgs/acme/keys/${key.id}`, patch({ cookie: session.cookie, "x-csrf-token": session.csrfToken }), (a) => a.status === 200, 10_000);
    expect(allowed.size).toBe(WORKERS);
  }, 30_000);

  test("a user disabled through one worker is refused by every worker on its very next request", async () => {
    const victim = await seedSession(seed, {});
    const whoAmI = { headers: { cookie: victim.cookie } };
    // Both workers hold the session in their cache first.
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, "/api/v1/session", whoAmI, (a) => a.status === 200, 10_000)).size).toBe(WORKERS);
    const disabled = await call(`/api/v1/users/${victim.user.id}`, { method: "PATCH", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ disabled: true }) });
    expect(disabled.status).toBe(200);
    // No waiting: every answer after the disable, from either worker, is 401.
    const after: Answer[] = [];
    for (let i = 0; i < 40 && workersOf(after).size < WORKERS; i++) after.push(await call("/api/v1/session", whoAmI));
    expect(workersOf(after).size).toBe(WORKERS);
    expect(after.map((a) => a.status)).toEqual(after.map(() => 401));
  }, 30_000);
});

describe("publishing", () => {
  const style = (color: string) => ({ version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": color } }] });

  test("a published style is served by every worker within 1 s, and so is its next version", async () => {
    const h = session.headers;
    // Every worker has looked for it before it exists (and may cache the miss).
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, "/styles/v1/acme/city", {}, (a) => a.status === 404, 10_000)).size).toBe(WORKERS);
    expect((await call("/api/v1/orgs/acme/styles", json({ slug: "city", name: "City", visibility: "public", style: style("#111111") }, h))).status).toBe(201);
    expect((await call("/api/v1/orgs/acme/styles/city/publish", json({}, h))).status).toBe(200);
    const first = await untilEveryWorker(bin.baseUrl, WORKERS, "/styles/v1/acme/city", {}, (a) => a.status === 200 && a.body.includes("#111111"), 5_000);
    expect(first.size).toBe(WORKERS);
    for (const ms of first.values()) expect(ms).toBeLessThan(1_000);

    expect((await call("/api/v1/orgs/acme/styles/city/draft", { method: "PUT", headers: { ...h, "content-type": "application/json" }, body: JSON.stringify(style("#222222")) })).status).toBe(200);
    expect((await call("/api/v1/orgs/acme/styles/city/publish", json({}, h))).status).toBe(200);
    const second = await untilEveryWorker(bin.baseUrl, WORKERS, "/styles/v1/acme/city", {}, (a) => a.status === 200 && a.body.includes("#222222"), 5_000);
    expect(second.size).toBe(WORKERS);
    for (const ms of second.values()) expect(ms).toBeLessThan(1_000);
  }, 30_000);

  test("an installed font is listed by every worker within 1 s", async () => {
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, "/fonts/v1", {}, (a) => a.status === 200 && !a.body.includes("Cluster Blocks"), 10_000)).size).toBe(WORKERS);
    const up = await call("/api/v1/fonts?name=Cluster%20Blocks", { method: "POST", headers: { ...admin.headers, "content-type": "application/octet-stream" }, body: testBlocksFont() as BodyInit });
    expect(up.status).toBe(201);
    const listed = await untilEveryWorker(bin.baseUrl, WORKERS, "/fonts/v1", {}, (a) => a.body.includes("Cluster Blocks"), 5_000);
    expect(listed.size).toBe(WORKERS);
    for (const ms of listed.values()) expect(ms).toBeLessThan(1_000);
  }, 30_000);

  test("an uploaded tileset is processed once (by the supervisor) and its publish is served by every worker within 1 s", async () => {
    const key = seedKey(seed, orgId, ["tilesets:write"]);
    const h = { "x-api-key": key.secret };
    expect((await call("/api/v1/orgs/acme/tilesets", json({ slug: "world", name: "World", visibility: "public" }, h))).status).toBe(201);
    expect((await untilEveryWorker(bin.baseUrl, WORKERS, "/tiles/v1/acme/world.json", {}, (a) => a.status === 404, 10_000)).size).toBe(WORKERS);
    const up = await call("/api/v1/orgs/acme/tilesets/world/versions?maxzoom=2", { method: "POST", headers: h, body: JSON.stringify(countries()) });
    expect(up.status).toBe(202);
    let state = "queued";
    for (let i = 0; i < 600 && state !== "ready" && state !== "failed"; i++) {
      await Bun.sleep(100);
      state = JSON.parse((await call("/api/v1/orgs/acme/tilesets/world/versions/1", { headers: h })).body).state;
    }
    expect(state).toBe("ready");
    expect((await call("/api/v1/orgs/acme/tilesets/world/publish", json({ version: 1 }, h))).status).toBe(200);
    const served = await untilEveryWorker(bin.baseUrl, WORKERS, "/tiles/v1/acme/world.json", {}, (a) => a.status === 200, 5_000);
    expect(served.size).toBe(WORKERS);
    for (const ms of served.values()) expect(ms).toBeLessThan(1_000);
    const jobs = new Database(join(bin.dataDir, "mapstead.db"), { readonly: true });
    try {
      expect(jobs.query("SELECT state, attempts FROM jobs").all()).toEqual([{ state: "done", attempts: 1 }]);
    } finally {
      jobs.close();
    }
  }, 120_000);
});

describe("usage counts and shutdown", () => {
  test("usage is neither lost nor doubled, in-flight calls finish on SIGTERM, and the supervisor exits 0", async () => {
    const key = seedKey(seed, orgId, ["geocoding"]);
    const h = { "x-api-key": key.secret };
    const answers: Answer[] = [];
    for (let round = 0; round < 5; round++) answers.push(...(await Promise.all(Array.from({ length: 8 }, () => call(q(), { headers: h })))));
    expect(workersOf(answers).size).toBe(WORKERS);
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Within half a second every worker's usage page shows every worker's calls, per day and for the
    // month (the supervisor writes what workers report within 200 ms, not on its 10 s flush).
    await Bun.sleep(500);
    const usage = await untilEveryWorker(bin.baseUrl, WORKERS, `/api/v1/orgs/acme/keys/${key.id}/usage`, { headers: { cookie: session.cookie } }, (a) => a.status === 200, 10_000);
    expect(usage.size).toBe(WORKERS);
    const page = JSON.parse((await call(`/api/v1/orgs/acme/keys/${key.id}/usage`, { headers: { cookie: session.cookie } })).body);
    expect(page.month.used).toBe(40);
    expect(page.total).toBe(40);

    // Slow calls in flight when SIGTERM arrives still get their answer, and are counted.
    fake.delayMs = 1500;
    const slow = Array.from({ length: 4 }, () => call(q(), { headers: h }));
    await Bun.sleep(400);
    const stopped = bin.stop("SIGTERM");
    const slowAnswers = await Promise.all(slow);
    expect(slowAnswers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await stopped).toBe(0);
    expect(writtenUsage(bin.dataDir, key.id)).toBe(44);
    expect(bin.logs().some((e) => e.msg === "stopped")).toBe(true);
  }, 60_000);
});

// /health and /health/detailed over HTTP: the CONTRACT.md shape, optional services that only degrade,
// a core failure that is a 503, and probes that cannot be used to hammer a backend.
import { afterEach, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedSession } from "../../../support/seed";
import { OPERATOR_ONLY_DETAIL } from "../../../../src/domain/health/public-view";

let apps: TestApp[] = [];
const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(async () => {
  for (const a of apps) await a.close().catch(() => {});
  apps = [];
  for (const s of servers.splice(0)) s.stop(true);
});

async function app(env: Record<string, string> = {}) {
  const t = await makeTestApp(env);
  apps.push(t);
  return t;
}

/** A Pelias-shaped geocoder that counts the requests it gets. */
function fakePelias() {
  const hits: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      hits.push(new URL(req.url).pathname);
      return Response.json({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [-0.1, 51.5] }, properties: { label: "London" } }] });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/v1`, hits };
}

/** A port nothing listens on. */
function deadUrl(): string {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port;
  s.stop(true);
  return `http://127.0.0.1:${port}/v1`;
}

describe("GET /health", () => {
  test("answers {status: ok} and HEAD answers without a body", async () => {
    const t = await app();
    const res = await t.fetch("/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    const head = await t.fetch("/health", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect(head.headers.get("x-request-id")).toBeTruthy();
  });

  test("stays 200 even when the database is gone: it touches no dependency", async () => {
    const t = await app();
    t.ctx.sqlite.close();
    expect((await t.fetch("/health")).status).toBe(200);
  });
});

describe("GET /health/detailed", () => {
  test("has the CONTRACT.md shape; optional services not configured leave the status ok", async () => {
    const t = await app();
    const res = await t.fetch("/health/detailed");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body).toMatchObject({ status: "ok", version: t.ctx.version });
    expect(typeof body.uptime_s).toBe("number");
    expect(Object.keys(body.components).sort()).toEqual(["database", "elevation", "geocoder", "jobs", "router", "storage"]);
    for (const c of Object.values(body.components) as { status: string; detail: string }[]) {
      expect(["ok", "degraded", "down", "not_configured"]).toContain(c.status);
      expect(c.detail.length).toBeGreaterThan(0);
    }
    // Without GEOCODER_INTERNAL_URL the embedded gazetteer answers (opened on first use).
    expect(body.components.geocoder.status).toBe("ok");
    expect(body.components.geocoder.detail).toContain("embedded gazetteer");
    expect(body.components.elevation.status).toBe("not_configured");
    // what is not ok says how to fix it, as the preflight does; ok components carry no fix
    expect(body.components.elevation.fix).toContain("ELEVATION_INTERNAL_URL");
    expect(body.components.database).toMatchObject({ status: "ok" });
    expect(body.components.database.fix).toBeUndefined();
    expect(typeof body.components.database.latency_ms).toBe("number");
    expect(body.components.storage.detail).toMatch(/GiB free/);
  });

  test("a configured geocoder that answers is ok, and is probed at most once per ~10 s", async () => {
    const pelias = fakePelias();
    const t = await app({ GEOCODER_INTERNAL_URL: pelias.url });
    const bodies = [];
    for (let i = 0; i < 5; i++) bodies.push(await (await t.fetch("/health/detailed")).json());
    for (const b of bodies) expect(b.components.geocoder.status).toBe("ok");
    expect(pelias.hits).toEqual(["/v1/search"]);
  });

  test("a configured but dead geocoder makes it degraded with HTTP 200", async () => {
    const t = await app({ GEOCODER_INTERNAL_URL: deadUrl(), ELEVATION_INTERNAL_URL: deadUrl().replace(/\/v1$/, "/v1/srtm30m") });
    const res = await t.fetch("/health/detailed");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe("degraded");
    expect(body.components.geocoder.status).toBe("down");
    expect(body.components.elevation.status).toBe("down");
    expect(body.components.geocoder.fix).toContain("GEOCODER_INTERNAL_URL");
    expect(body.components.database.status).toBe("ok");
  });

  test("remote callers see statuses but not the internal addresses and fixes, once an admin exists", async () => {
    const dead = deadUrl();
    const t = await app({ GEOCODER_INTERNAL_URL: dead, ELEVATION_INTERNAL_URL: dead.replace(/\/v1$/, "/v1/srtm30m"), TRUST_PROXY: "true" });
    const remote = { "x-forwarded-for": "203.0.113.9" };
    const internal = new URL(dead).host;
    // Before the first admin exists, setup needs the details: anyone sees them.
    expect(await (await t.fetch("/health/detailed", { headers: remote })).text()).toContain(internal);
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const member = await seedSession(t.ctx, { isAdmin: false });
    for (const headers of [remote, { ...remote, cookie: member.cookie }]) {
      const res = await t.fetch("/health/detailed", { headers });
      expect(res.status).toBe(200);
      const text = await res.clone().text();
      expect(text).not.toContain(internal);
      const body = await res.json();
      expect(body.status).toBe("degraded");
      expect(body.components.geocoder).toMatchObject({ status: "down", detail: OPERATOR_ONLY_DETAIL });
      expect(body.components.geocoder.fix).toBeUndefined();
      expect(body.components.database).toMatchObject({ status: "ok", detail: "ok" });
      // The landing page shows the same.
      const page = await (await t.fetch("/", { headers })).text();
      expect(page).not.toContain(internal);
      expect(page).toContain("Details and fixes are shown to admins");
    }
    // An admin anywhere, and anyone on the server itself, sees everything.
    for (const headers of [{ ...remote, cookie: admin.cookie }, {}]) {
      const body = await (await t.fetch("/health/detailed", { headers })).json();
      expect(body.components.elevation.detail).toContain(internal);
      expect(body.components.geocoder.fix).toContain("GEOCODER_INTERNAL_URL");
      expect(await (await t.fetch("/", { headers })).text()).toContain(internal);
    }
  });

  test("a closed database is a core failure: 503 with status down, still in the contract shape", async () => {
    const t = await app();
    t.ctx.sqlite.close();
    const res = await t.fetch("/health/detailed");
    expect(res.status).toBe(503);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const body = await res.json();
    expect(body.status).toBe("down");
    expect(body.components.database.status).toBe("down");
    expect(JSON.stringify(body)).not.toContain(t.dataDir);
  });

  test("a DATA_DIR that disappeared is a core failure: 503", async () => {
    const t = await app();
    rmSync(t.dataDir, { recursive: true, force: true });
    const res = await t.fetch("/health/detailed");
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.status).toBe("down");
    expect(body.components.storage.status).toBe("down");
  });
});

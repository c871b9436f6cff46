// GET /setup/preflight: JSON checks, the self-contained wizard page, and who may see it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedSession } from "../../../support/seed";

const REMOTE = { "x-forwarded-for": "203.0.113.9" };

describe("GET /setup/preflight", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ TRUST_PROXY: "true", HOST: "127.0.0.1" });
  });
  afterAll(() => t.close());

  test("JSON: ok plus one entry per check, each with a status, message and fix", async () => {
    const res = await t.fetch("/setup/preflight");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.ok).toBe(true);
    expect(body.checks.map((c: { id: string }) => c.id)).toEqual(["config", "public_url", "data_dir", "disk_space", "sqlite", "migrations", "admin", "archives", "sprites", "fonts", "geocoder", "elevation", "router"]);
    expect(body.checks[0].message).toMatch(/; listening on 127\.0\.0\.1:\d+$/);
    for (const c of body.checks) {
      expect(Object.keys(c).sort()).toEqual(["fix", "id", "message", "status"]);
      if (c.status === "pass") expect(c.fix).toBe("");
      else expect(c.fix.length).toBeGreaterThan(10);
    }
  });

  test("a browser gets a self-contained page with the same checks and their fixes", async () => {
    const res = await t.fetch("/setup/preflight", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toStartWith("<!doctype html>");
    for (const id of ["data_dir", "migrations", "admin", "geocoder"]) expect(html).toContain(`<strong>${id}</strong>`);
    expect(html).toContain("Fix: Run `mapstead admin create");
    // No external assets: no script, stylesheet, image or font is fetched from anywhere. Only the icon a
    // browser asks for anyway is named, so that under a PUBLIC_URL prefix it asks Mapstead's, not the host's.
    expect(html).toContain('<link rel="icon" href="/favicon.ico">');
    expect(html.replace('<link rel="icon" href="/favicon.ico">', "")).not.toMatch(/<(script|link|img|iframe)\b/i);
    expect(html).not.toMatch(/url\(/i);
  });

  test("anyone may look before the first admin exists, even from another machine", async () => {
    expect((await t.fetch("/setup/preflight", { headers: REMOTE })).status).toBe(200);
  });

  describe("once an admin exists", () => {
    let admin: Awaited<ReturnType<typeof seedSession>>;
    let member: Awaited<ReturnType<typeof seedSession>>;
    beforeAll(async () => {
      admin = await seedSession(t.ctx, { isAdmin: true });
      member = await seedSession(t.ctx, { isAdmin: false });
    });

    test("a remote caller without an admin session gets a 404 showing no check; a browser is told where to see them", async () => {
      for (const headers of [REMOTE, { ...REMOTE, cookie: member.cookie }]) {
        const res = await t.fetch("/setup/preflight", { headers });
        expect(res.status).toBe(404);
        const body = await res.json();
        expect(body.error.code).toBe("NOT_FOUND");
        expect(JSON.stringify(body)).not.toContain("migrations");
      }
      const page = await t.fetch("/setup/preflight", { headers: { ...REMOTE, cookie: member.cookie, accept: "text/html" } });
      expect(page.status).toBe(404);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const html = await page.text();
      expect(html).toContain("shown to admins only");
      expect(html).toContain("mapstead preflight");
      expect(html).not.toContain("migrations");
    });

    test("the page lists what failed first and no longer links first-run setup", async () => {
      const res = await t.fetch("/setup/preflight", { headers: { ...REMOTE, cookie: admin.cookie, accept: "text/html" } });
      const html = await res.text();
      const statuses = [...html.matchAll(/<li class="(pass|warn|fail)">/g)].map((m) => m[1]);
      const rank = { fail: 0, warn: 1, pass: 2 } as Record<string, number>;
      expect(statuses).toEqual([...statuses].sort((a, b) => rank[a!]! - rank[b!]!));
      expect(statuses).toContain("pass");
      expect(html).not.toContain('href="/setup"');
    });

    test("a loopback caller still sees it, and reports the admin check as passing", async () => {
      const res = await t.fetch("/setup/preflight");
      expect(res.status).toBe(200);
      const admin = (await res.json()).checks.find((c: { id: string }) => c.id === "admin");
      expect(admin.status).toBe("pass");
    });

    test("a remote caller with an admin session sees it", async () => {
      const res = await t.fetch("/setup/preflight", { headers: { ...REMOTE, cookie: admin.cookie } });
      expect(res.status).toBe(200);
    });

    test("a client cannot pass for loopback by claiming 127.0.0.1 in X-Forwarded-For", async () => {
      const res = await t.fetch("/setup/preflight", { headers: { "x-forwarded-for": "127.0.0.1, 203.0.113.9" } });
      expect(res.status).toBe(404);
    });
  });
});

describe("without TRUST_PROXY", () => {
  test("X-Forwarded-For cannot fake a loopback caller, and marks a loopback one as relayed by a proxy", async () => {
    const t = await makeTestApp();
    try {
      await seedSession(t.ctx, { isAdmin: true });
      // app.handle has no socket, so the caller is loopback: without the header, the server itself.
      expect((await t.fetch("/setup/preflight")).status).toBe(200);
      // With it, a visitor relayed by a proxy on this machine: not the operator, whatever address it names.
      expect((await t.fetch("/setup/preflight", { headers: REMOTE })).status).toBe(404);
      expect((await t.fetch("/setup/preflight", { headers: { "x-forwarded-for": "127.0.0.1" } })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("checks that warn or fail", () => {
  test("the geocoder sample query is cached, so reloading the page cannot hammer the backend", async () => {
    let hits = 0;
    const pelias = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => {
        hits++;
        return Response.json({ type: "FeatureCollection", features: [] });
      },
    });
    const t = await makeTestApp({ GEOCODER_INTERNAL_URL: `http://127.0.0.1:${pelias.port}/v1` });
    try {
      for (let i = 0; i < 4; i++) {
        const geo = (await (await t.fetch("/setup/preflight")).json()).checks.find((c: { id: string }) => c.id === "geocoder");
        expect(geo.status).toBe("pass");
      }
      expect(hits).toBe(1);
    } finally {
      await t.close();
      pelias.stop(true);
    }
  });

  test("public PUBLIC_URL warning when HOST is public and PUBLIC_URL is localhost", async () => {
    const t = await makeTestApp({ HOST: "0.0.0.0" });
    try {
      const body = await (await t.fetch("/setup/preflight")).json();
      const c = body.checks.find((c: { id: string }) => c.id === "public_url");
      expect(c.status).toBe("warn");
      expect(c.fix).toContain("PUBLIC_URL=");
    } finally {
      await t.close();
    }
  });

  test("an https PUBLIC_URL (a TLS proxy in front) without TRUST_PROXY warns that clients share the proxy's address", async () => {
    for (const [trust, status] of [["false", "warn"], ["true", "pass"]] as const) {
      const t = await makeTestApp({ PUBLIC_URL: "https://maps.example.com", TRUST_PROXY: trust });
      try {
        const body = await (await t.fetch("/setup/preflight")).json();
        const c = body.checks.find((c: { id: string }) => c.id === "public_url");
        expect(c.status).toBe(status);
        if (status === "warn") expect(c.fix).toContain("TRUST_PROXY=true");
      } finally {
        await t.close();
      }
    }
  });

  test("a PUBLIC_URL path on this machine's other port is a local reverse proxy, not a wrong port", async () => {
    for (const [publicUrl, status] of [["http://localhost:9999", "warn"], ["http://localhost/maps", "pass"], ["http://127.0.0.1:9999/gis/maps/", "pass"]] as const) {
      const t = await makeTestApp({ HOST: "127.0.0.1", PUBLIC_URL: publicUrl });
      try {
        const c = (await (await t.fetch("/setup/preflight")).json()).checks.find((c: { id: string }) => c.id === "public_url");
        expect(`${publicUrl} ${c.status}`).toBe(`${publicUrl} ${status}`);
        if (status === "pass") expect(c.message).toContain(`a reverse proxy publishes Mapstead under ${new URL(publicUrl).pathname.replace(/\/$/, "")}`);
        else expect(c.message).toContain("while the server listens on port 8080");
      } finally {
        await t.close();
      }
    }
  });

  test("a dead geocoder fails the geocoder check and ok becomes false; no secret or query string is shown", async () => {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = s.port;
    s.stop(true);
    const t = await makeTestApp({ GEOCODER_INTERNAL_URL: `http://127.0.0.1:${port}/v1` });
    try {
      const body = await (await t.fetch("/setup/preflight")).json();
      expect(body.ok).toBe(false);
      const geo = body.checks.find((c: { id: string }) => c.id === "geocoder");
      expect(geo.status).toBe("fail");
      expect(geo.fix.length).toBeGreaterThan(10);
    } finally {
      await t.close();
    }
  });
});

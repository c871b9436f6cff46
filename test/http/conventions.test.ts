import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../support/app";
import { seedSession } from "../support/seed";

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.close());

describe("HTTP conventions", () => {
  test("every response carries a request id, errors included", async () => {
    for (const [method, path] of [["GET", "/health"], ["GET", "/nope"], ["POST", "/health"], ["DELETE", "/health/detailed"]] as const) {
      const res = await t.fetch(path, { method });
      expect(res.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    }
  });

  test("a well-formed incoming request id is kept, a malformed one replaced", async () => {
    const kept = await t.fetch("/health", { headers: { "x-request-id": "abc.DEF_123-x" } });
    expect(kept.headers.get("x-request-id")).toBe("abc.DEF_123-x");
    const replaced = await t.fetch("/health", { headers: { "x-request-id": "bad id with spaces" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id with spaces");
    const long = await t.fetch("/health", { headers: { "x-request-id": "a".repeat(129) } });
    expect(long.headers.get("x-request-id")!.length).toBeLessThanOrEqual(128);
    expect(long.headers.get("x-request-id")).not.toBe("a".repeat(129));
  });

  test("unknown routes get a 404 envelope", async () => {
    const res = await t.fetch("/no/such/route");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String) } });
  });

  test("a wrong method gets 405 with Allow", async () => {
    const res = await t.fetch("/health", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
    expect((await res.json()).error.code).toBe("METHOD_NOT_ALLOWED");
  });

  test("a non-UTF-8 path is a 400, not a crash", async () => {
    const res = await t.fetch("/styles/v1/%FF%FE/x");
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("BAD_REQUEST");
  });

  test("oversized headers are refused in the envelope", async () => {
    const res = await t.fetch("/health", { headers: { "x-big": "a".repeat(20_000) } });
    expect(res.status).toBe(431);
    expect((await res.json()).error.code).toBe("BAD_REQUEST");
  });

  test("an oversized JSON body is refused before it is read", async () => {
    const res = await t.fetch("/api/v1/orgs", { method: "POST", headers: { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) }, body: "{}" });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a JSON body sent as another type is 415 naming the type, once the caller is known", async () => {
    const admin = (await seedSession(t.ctx, { isAdmin: true })).headers;
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const res = await t.fetch("/api/v1/elevation/settings", { method: "PUT", headers: { ...admin, "content-type": type }, body: JSON.stringify({ tileset: null }) });
      expect(res.status).toBe(415);
      expect((await res.json()).error).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", message: `Send this request body as JSON with Content-Type: application/json (it came as ${type})` });
    }
    // Without a session a text body is still 401: its type is looked at when the route reads it.
    expect((await t.fetch("/api/v1/elevation/settings", { method: "PUT", headers: { "content-type": "text/plain" }, body: "{}" })).status).toBe(401);
    // A body that is JSON but not what the route takes stays a 400 naming the field.
    const wrong = await t.fetch("/api/v1/elevation/settings", { method: "PUT", headers: { ...admin, "content-type": "application/json" }, body: JSON.stringify({ tileset: 5 }) });
    expect(wrong.status).toBe(400);
  });

  test("a JSON body nested thousands deep is a 400 naming the limit, signed in or not", async () => {
    const session = await seedSession(t.ctx, { isAdmin: true });
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    const bodies: [string, string, Record<string, string>][] = [
      ["/api/v1/session", `{"email":${deep(5000)},"password":"x"}`, {}],
      ["/api/v1/session", `{"email":${deep(100_000)},"password":"x"}`, {}],
      ["/api/v1/orgs", `{"slug":"deep","name":${deep(5000)}}`, session.headers],
    ];
    for (const [path, body, headers] of bodies) {
      const res = await t.fetch(path, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
      expect(res.status).toBe(400);
      expect((await res.json()).error.message).toContain("nests deeper than 256 levels");
    }
    // Nesting a real body needs is fine.
    const ok = await t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: `{"email":"a@b.c","password":"wrong-password","x":${deep(100)}}` });
    expect(ok.status).not.toBe(500);
    expect((await ok.text())).not.toContain("nests deeper");
  });

  test("public map assets allow any origin; preflight answered", async () => {
    const res = await t.fetch("/fonts/v1", { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("map assets expose only the headers they carry; keyed raster tiles expose their limits too", async () => {
    // A glyph range (the fast path) and the font list (Elysia): neither is ever rate limited or billed.
    for (const path of ["/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", "/fonts/v1"]) {
      const res = await t.fetch(path, { headers: { origin: "https://app.example.com" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-expose-headers")).toBe("X-Request-Id, ETag, Retry-After");
    }
    // Raster tiles take an access_token, whose rate limit and quota headers a page may read.
    const raster = await t.fetch("/styles/v1/nobody/nothing/tiles/256/0/0/0.png", { headers: { origin: "https://app.example.com" } });
    expect(raster.status).toBeGreaterThanOrEqual(400);
    expect(raster.headers.get("access-control-expose-headers")).toContain("X-RateLimit-Remaining");
    expect(raster.headers.get("access-control-expose-headers")).toContain("X-Quota-Remaining");
  });

  test("service APIs echo the origin on preflight", async () => {
    const res = await t.fetch("/geocoding/v1/forward", { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "GET", "access-control-request-headers": "x-api-key" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(res.headers.get("access-control-allow-headers")).toContain("X-API-Key");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../support/app";

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

  test("public map assets allow any origin; preflight answered", async () => {
    const res = await t.fetch("/fonts/v1", { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  test("service APIs echo the origin on preflight", async () => {
    const res = await t.fetch("/geocoding/v1/forward", { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "GET", "access-control-request-headers": "x-api-key" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(res.headers.get("access-control-allow-headers")).toContain("X-API-Key");
  });
});

// The global HTTP rules against bad input, over app.handle and over a real socket: every 4xx and 5xx
// in the envelope with a request id, access-log lines without query strings, no stack traces.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t as schema } from "elysia";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { conventions } from "../../src/http/conventions";
import { routeTableFrom } from "../../src/http/route-facts";
import { makeTestApp, serveTestApp, type TestApp } from "../support/app";

/** The conventions around a few routes of our own, to reach every error path deterministically. */
function conventionsApp(lines: string[]) {
  const config = loadConfig({ DATA_DIR: "/nonexistent", LOG_LEVEL: "info" });
  const log = createLogger("info", (l) => lines.push(l));
  const routes: { method: string; path: string; hooks?: unknown }[] = [];
  const app = new Elysia()
    .use(conventions(config, log, routeTableFrom(() => routes)))
    .get("/boom", () => {
      throw new Error("exploded reading /srv/secret/place.db");
    })
    .get("/search", ({ query }) => ({ limit: query.limit }), { query: schema.Object({ limit: schema.Numeric({ minimum: 1, maximum: 25 }) }) })
    .post("/things", ({ body }) => body, { body: schema.Object({ name: schema.String({ minLength: 1 }) }) });
  routes.push(...app.routes);
  return app;
}

const handle = (app: ReturnType<typeof conventionsApp>, path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe("errors from the framework and from handlers", () => {
  const lines: string[] = [];
  const app = conventionsApp(lines);

  test("an unexpected exception is a 500 INTERNAL without a stack trace or path; the log has the detail", async () => {
    const res = await handle(app, "/boom", { headers: { "x-request-id": "boom-1" } });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-request-id")).toBe("boom-1");
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "INTERNAL", message: expect.stringContaining("X-Request-Id") } });
    expect(text).not.toContain("/srv/secret");
    expect(text).not.toContain("exploded");
    expect(text).not.toMatch(/\bat .*:\d+/);
    const logged = parsed(lines).find((e) => e.msg === "request failed" && e.request_id === "boom-1");
    expect(logged).toMatchObject({ level: "error", method: "GET", path: "/boom" });
    expect(String(logged!.error)).toContain("exploded");
  });

  test("malformed JSON is a 400 envelope", async () => {
    const res = await handle(app, "/things", { method: "POST", headers: { "content-type": "application/json" }, body: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect((await res.json()).error).toEqual({ code: "BAD_REQUEST", message: expect.stringContaining("JSON") });
  });

  test("a validation error names the parameter", async () => {
    const q = await handle(app, "/search?limit=abc");
    expect(q.status).toBe(400);
    const qe = (await q.json()).error;
    expect(qe.code).toBe("BAD_REQUEST");
    expect(qe.message).toContain("query parameter 'limit'");
    const high = await (await handle(app, "/search?limit=99")).json();
    expect(high.error.message).toContain("'limit'");
    const b = await handle(app, "/things", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: 5 }) });
    expect(b.status).toBe(400);
    const be = (await b.json()).error;
    expect(be.message).toContain("body field 'name'");
    expect(be.details[0]).toMatchObject({ in: "body", path: "name" });
    expect(JSON.stringify(be)).not.toMatch(/node_modules|\.ts:\d/);
  });

  test("a wrong method is 405 with Allow, HEAD included for GET routes", async () => {
    const res = await handle(app, "/search", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect((await res.json()).error.code).toBe("METHOD_NOT_ALLOWED");
  });
});

describe("the real app", () => {
  let t: TestApp;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await makeTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (l) => lines.push(l)) });
  });
  afterAll(() => t.close());

  test("one JSON access-log line per request: time, method, path without the query, status, ms, request id", async () => {
    await t.fetch("/health?key=msk_supersecret&token=abc", { headers: { "x-request-id": "log-shape-1" } });
    await t.fetch("/does/not/exist?x=1", { headers: { "x-request-id": "log-shape-2" } });
    await t.fetch("/health", { method: "POST", headers: { "x-request-id": "log-shape-3" } });
    await Bun.sleep(20);
    const entries = parsed(lines).filter((e) => e.msg === "request");
    const byId = (id: string) => entries.filter((e) => e.request_id === id);
    expect(byId("log-shape-1")).toHaveLength(1);
    const e = byId("log-shape-1")[0]!;
    expect(Object.keys(e).sort()).toEqual(["level", "method", "ms", "msg", "path", "request_id", "status", "time"]);
    expect(e).toMatchObject({ level: "info", method: "GET", path: "/health", status: 200 });
    expect(new Date(String(e.time)).toISOString()).toBe(String(e.time));
    expect(typeof e.ms).toBe("number");
    expect(byId("log-shape-2")[0]).toMatchObject({ path: "/does/not/exist", status: 404 });
    expect(byId("log-shape-3")[0]).toMatchObject({ method: "POST", status: 405 });
    expect(lines.join("\n")).not.toContain("supersecret");
    expect(lines.join("\n")).not.toContain("token=");
  });

  test("request ids: well-formed kept, anything else replaced by a fresh one", async () => {
    for (const bad of ["", " ", "has space", "semi;colon", "é-accent", "a".repeat(129), "../../etc"]) {
      const res = await t.fetch("/health", { headers: { "x-request-id": bad } });
      const id = res.headers.get("x-request-id")!;
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[A-Za-z0-9._-]{1,128}$/);
    }
    const max = "A".repeat(128);
    expect((await t.fetch("/health", { headers: { "x-request-id": max } })).headers.get("x-request-id")).toBe(max);
  });

  test("HEAD works on GET routes, with the GET headers and no body; errors to HEAD have no body either", async () => {
    for (const path of ["/health", "/health/detailed", "/openapi.json", "/setup/preflight"]) {
      const res = await t.fetch(path, { method: "HEAD" });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect(await res.text()).toBe("");
    }
    const missing = await t.fetch("/nope", { method: "HEAD" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBeTruthy();
    expect(await missing.text()).toBe("");
  });

  test("percent-encoding that is not UTF-8 is a 400 envelope", async () => {
    for (const path of ["/health/%FF", "/styles/v1/%C3%28/x", "/%E0%A4%A"]) {
      const res = await t.fetch(path);
      expect(res.status).toBe(400);
      expect(res.headers.get("x-request-id")).toBeTruthy();
      expect((await res.json()).error.code).toBe("BAD_REQUEST");
    }
  });

  test("a declared body over the JSON limit is refused with 413 before it is read", async () => {
    const res = await t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json", "content-length": String(11 * 1024 * 1024) }, body: "{}" });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("over a real socket", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await serveTestApp();
  });
  afterAll(() => t.close());

  /** Sends raw bytes and returns the raw answer (for requests fetch() refuses to send). */
  function raw(bytes: Buffer): Promise<string> {
    const port = Number(new URL(t.baseUrl).port);
    return new Promise((resolve) => {
      let out = "";
      void Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open: (s) => void s.write(bytes),
          data: (_s, d) => void (out += d.toString("latin1")),
          close: () => resolve(out),
          error: () => resolve(out),
        },
      });
    });
  }

  test("raw non-UTF-8 bytes in the path get a 4xx envelope with a request id", async () => {
    const answer = await raw(Buffer.concat([Buffer.from("GET /styles/v1/"), Buffer.from([0xff, 0xfe, 0x80]), Buffer.from("/x HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")]));
    const status = Number(answer.split(" ")[1]);
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    expect(answer.toLowerCase()).toContain("x-request-id:");
    expect(answer).toContain('"error":{"code":"');
    expect((await t.fetch("/health")).status).toBe(200);
  });

  test("a body over the JSON limit is refused with 413; the server keeps serving", async () => {
    const res = await t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(11 * 1024 * 1024) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await t.fetch("/health")).status).toBe(200);
  });

  test("a chunked body without Content-Length is refused on a JSON route instead of being buffered", async () => {
    const answer = await raw(Buffer.from("POST /api/v1/session HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n"));
    expect(answer).toStartWith("HTTP/1.1 411");
    expect(answer.toLowerCase()).toContain("x-request-id:");
    expect(answer).toContain("Content-Length");
  });

  test("headers far over any limit are refused with 431 and the server keeps serving", async () => {
    const res = await t.fetch("/health", { headers: { "x-big": "a".repeat(100_000) } });
    expect(res.status).toBe(431);
    expect((await t.fetch("/health")).status).toBe(200);
  });

  test("a garbage request line does not take the server down", async () => {
    const answer = await raw(Buffer.from("\x00\x01NOT HTTP AT ALL\r\n\r\n"));
    expect(answer === "" || /^HTTP\/1\.1 4\d\d/.test(answer)).toBe(true);
    expect((await t.fetch("/health")).status).toBe(200);
  });
});

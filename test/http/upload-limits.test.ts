// Upload routes (those that read their own body, `parse: "none"`) take bodies up to MAX_UPLOAD_MB, not the
// JSON routes' 10 MiB: the route table must recognise them once Elysia has mounted them (it keeps their
// parsers as `[{ fn: "none" }]`, not as the string the module wrote).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { JSON_BODY_LIMIT } from "../../src/http/body-limit";
import { factsOf, routeTableFrom } from "../../src/http/route-facts";
import { serveTestApp, type TestApp } from "../support/app";
import { seedOrg, seedSession } from "../support/seed";
import { countries, createTileset, waitForVersion } from "../routes/management/tilesets/fixtures";

let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await serveTestApp();
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
});
afterAll(() => t.close());

test("every mounted route that reads its own body is an upload in the route table", () => {
  const table = routeTableFrom(() => t.app.routes);
  const own = t.app.routes.filter((r) => JSON.stringify((r.hooks as { parse?: unknown }).parse ?? null).includes('"none"'));
  // tileset versions, sprites, fonts, gazetteer datasets
  expect(own.length).toBeGreaterThanOrEqual(4);
  for (const route of own) {
    expect({ path: route.path, body: factsOf(route).body }).toEqual({ path: route.path, body: "upload" });
    const concrete = route.path.replace(/:[a-z]+/gi, "x");
    expect({ path: concrete, body: table.find(route.method, concrete).body }).toEqual({ path: concrete, body: "upload" });
  }
});

test("a tileset upload over the JSON routes' limit is accepted and processed (not 413)", async () => {
  await createTileset(t, "acme", headers, { slug: "padded" });
  // Valid GeoJSON padded with whitespace to just over 10 MiB, sent with its Content-Length.
  const json = JSON.stringify(countries());
  const body = json + " ".repeat(JSON_BODY_LIMIT + 1 - json.length);
  const res = await t.fetch("/api/v1/orgs/acme/tilesets/padded/versions?maxzoom=1", { method: "POST", headers, body });
  expect(res.status).toBe(202);
  const v = (await waitForVersion(t, "acme", "padded", 1, headers)) as { state: string };
  expect(v.state).toBe("ready");
});

test("a JSON route still refuses a declared body over 10 MiB with 413", async () => {
  const res = await t.fetch("/api/v1/orgs/acme/tilesets", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ slug: "x", description: " ".repeat(JSON_BODY_LIMIT) }),
  });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
});

/**
 * Sends a request head, then zeros for up to `ms` (as a client with a huge file would), over a raw
 * socket; returns the answer's head and body and how much was sent before the server closed.
 */
async function sendBody(path: string, head: string, method = "POST", ms = 6000) {
  let got = "";
  let closed = false;
  const zeros = new Uint8Array(256 * 1024);
  const chunked = head.includes("chunked");
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: Number(new URL(t.baseUrl).port),
    socket: {
      data: (_s, d) => void (got += new TextDecoder().decode(d)),
      close: () => void (closed = true),
      error: () => void (closed = true),
    },
  });
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n\r\n`);
  let sent = 0;
  const until = Date.now() + ms;
  while (!closed && Date.now() < until) {
    const n = chunked ? socket.write(`40000\r\n`) + socket.write(zeros) + socket.write("\r\n") : socket.write(zeros);
    sent += Math.max(0, n);
    await Bun.sleep(n > 0 ? 0 : 5);
  }
  if (!closed) socket.end();
  return { head: got.slice(0, got.indexOf("\r\n\r\n")), body: got.slice(got.indexOf("\r\n\r\n") + 4), closed, sent };
}

test("a body far over MAX_UPLOAD_MB gets the envelope's 413 naming the limit, and the connection closes unread", async () => {
  const res = await sendBody("/api/v1/orgs/acme/tilesets/padded/versions", `Content-Length: ${3 * 1024 ** 3}\r\nContent-Type: application/octet-stream`);
  expect(res.head).toStartWith("HTTP/1.1 413");
  expect(res.head.toLowerCase()).toContain("connection: close");
  expect(JSON.parse(res.body).error).toEqual({ code: "PAYLOAD_TOO_LARGE", message: `Upload of ${3 * 1024 ** 3} bytes is over MAX_UPLOAD_MB (2048 MiB)` });
  // Bun stopped reading: the client was cut off long before its 3 GiB were through.
  expect(res.closed).toBe(true);
  expect(res.sent).toBeLessThan(256 * 1024 * 1024);
});

test("errors to requests whose big or chunked body went unread close the connection instead of draining it", async () => {
  // Refused for credentials before a byte of the upload is read.
  const unauthorized = await sendBody("/api/v1/orgs/acme/tilesets/padded/versions", "Transfer-Encoding: chunked\r\nContent-Type: application/octet-stream");
  expect(unauthorized.head).toStartWith("HTTP/1.1 401");
  expect(unauthorized.head.toLowerCase()).toContain("connection: close");
  expect(unauthorized.closed).toBe(true);
  // A path that takes no body: a big one is 413, a chunked one answered and cut off.
  const big = await sendBody("/health", `Content-Length: ${JSON_BODY_LIMIT + 1}`);
  expect(big.head).toStartWith("HTTP/1.1 413");
  expect(JSON.parse(big.body).error.message).toContain("a route that reads none");
  const nowhere = await sendBody("/no/such/route", "Transfer-Encoding: chunked");
  expect(nowhere.head).toStartWith("HTTP/1.1 404");
  expect(nowhere.closed).toBe(true);
  expect(nowhere.sent).toBeLessThan(256 * 1024 * 1024);
});

test("a GET with a body, rare as it is, meets the same rules on the fast path", async () => {
  const res = await sendBody("/health", `Content-Length: ${JSON_BODY_LIMIT + 1}`, "GET");
  expect(res.head).toStartWith("HTTP/1.1 413");
  expect(res.head.toLowerCase()).toContain("connection: close");
  expect(res.closed).toBe(true);
  const ok = await fetch(`${t.baseUrl}/health`);
  expect(ok.status).toBe(200);
  expect(ok.headers.get("connection")).not.toBe("close");
});

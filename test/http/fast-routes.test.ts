// The fast path (src/http/fast-routes.ts) against its Elysia twins: one set of services, two listening
// apps, one with the hot public reads in Bun's `routes` table and one without. For a table of requests
// (good, 304, 404, private with and without a key, bad keys, bad params, HEAD, preflights, other
// methods) both must answer the same status, headers (Date and the request id's value aside) and bytes,
// write the same access-log line and count the same metrics. A fast route without an Elysia twin (and
// so without an OpenAPI entry) must not be possible.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createApp, type App } from "../../src/app";
import { fastRoutes } from "../../src/http/fast-routes";
import { factsOf } from "../../src/http/route-facts";
import { createLogger, silentLogger } from "../../src/log";
import { fastReads } from "../../src/routes/public/fast-reads";
import { freePort, listenAsServed, makeTestApp, type TestApp } from "../support/app";
import { seedKey, seedOrg, seedSession } from "../support/seed";
import { countries, createTileset, publish, upload, waitForVersion } from "../routes/management/tilesets/fixtures";
import { json, mapStyle } from "../routes/management/styles/helpers";
import { pinSvg, squareSvg, zipOf } from "../sprites/fixtures";

let t: TestApp;
let fast: App;
let twin: App;
let fastUrl: string;
let twinUrl: string;
/** the same fast routes with the access log off: they read the URL only when a parameter needs it */
let quiet: App;
let quietUrl: string;
const logLines: string[] = [];
/** calls that reached a fast handler, by path pattern: proves Bun did not hand them to Elysia */
const fastCalls = new Map<string, number>();
let readKey: string;
let otherKey: string;
let expiredKey: string;
let originKey: string;
let cookie: string;
let tileEtag: string;
let styleEtag: string;
let tileJsonEtag: string;

/** Listens with Elysia's listen(), as `mapstead serve` and the cluster workers do. */
function listen(app: App): string {
  const port = freePort();
  listenAsServed(app, port);
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  t = await makeTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (line) => logLines.push(line)) });
  const org = seedOrg(t.ctx, "acme");
  const other = seedOrg(t.ctx, "other");
  const session = await seedSession(t.ctx, { orgId: org.id });
  cookie = session.cookie;
  readKey = seedKey(t.ctx, org.id, ["maps:read"]).secret;
  otherKey = seedKey(t.ctx, other.id, ["maps:read"]).secret;
  const expiring = seedKey(t.ctx, org.id, ["maps:read"], { expiresAt: Date.now() + 60_000 });
  t.ctx.sqlite.query("UPDATE api_keys SET expires_at = ? WHERE id = ?").run(Date.now() - 60_000, expiring.id);
  expiredKey = expiring.secret;
  originKey = seedKey(t.ctx, org.id, ["maps:read"], { allowedOrigins: ["https://maps.example.org"] }).secret;

  const world = JSON.stringify(countries());
  for (const [slug, visibility] of [["world", "public"], ["secret", "private"]] as const) {
    await createTileset(t, "acme", session.headers, { slug, visibility });
    await upload(t, "acme", slug, session.headers, world, "?maxzoom=2&layer=countries");
    expect(((await waitForVersion(t, "acme", slug, 1, session.headers)) as { state: string }).state).toBe("ready");
    expect((await publish(t, "acme", slug, 1, session.headers)).status).toBe(200);
  }
  for (const [slug, visibility] of [["streets", "public"], ["hidden", "private"]] as const) {
    expect((await t.fetch("/api/v1/orgs/acme/styles", json(session.headers, { slug, visibility }))).status).toBe(201);
    const sprite = await t.fetch(`/api/v1/orgs/acme/styles/${slug}/sprite`, { method: "PUT", headers: { ...session.headers, "content-type": "application/zip" }, body: zipOf({ "pin.svg": pinSvg, "park.svg": squareSvg("#0a0") }) as BodyInit });
    expect(sprite.status).toBe(200);
    expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}/draft`, json(session.headers, mapStyle("acme", { tileset: "world", sprite: slug }), "PUT"))).status).toBe(200);
    expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}/publish`, { method: "POST", headers: session.headers })).status).toBe(200);
  }

  fast = t.app;
  const routes = fast.config.serve!.routes as Record<string, { GET: (request: Request) => unknown }>;
  for (const [path, methods] of Object.entries(routes)) {
    const handler = methods.GET;
    methods.GET = (request) => {
      fastCalls.set(path, (fastCalls.get(path) ?? 0) + 1);
      return handler(request);
    };
  }
  fastUrl = listen(fast);
  twin = createApp(t.services, { fastPath: false });
  twinUrl = listen(twin);
  quiet = createApp(t.services, { fastPath: false });
  const quietRoutes = fastRoutes(fastReads(t.services), { log: silentLogger, twins: quiet.routes, elysia: (request) => quiet.fetch(request) });
  quiet.config.serve = { ...quiet.config.serve, routes: quietRoutes };
  quietUrl = listen(quiet);
  tileEtag = (await fetch(`${fastUrl}/tiles/v1/acme/world@1/0/0/0.mvt`, { headers: { "accept-encoding": "gzip" } })).headers.get("etag")!;
  styleEtag = (await fetch(`${fastUrl}/styles/v1/acme/streets`)).headers.get("etag")!;
  tileJsonEtag = (await fetch(`${fastUrl}/tiles/v1/acme/world.json`)).headers.get("etag")!;
});

afterAll(async () => {
  await fast?.server?.stop(true);
  await twin?.server?.stop(true);
  await quiet?.server?.stop(true);
  await t.close();
});

interface Seen {
  status: number;
  headers: [string, string][];
  body: string;
}

/** One answer as bytes and headers; Date differs by the clock and the request id by the counter. */
async function seen(base: string, path: string, init: RequestInit): Promise<Seen> {
  const res = await fetch(base + path, { ...init, decompress: false });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const headers = Object.entries(res.headers.toJSON()).filter(([name]) => name !== "date").map(([name, value]): [string, string] => [name, name === "x-request-id" && !new Headers(init.headers).has("x-request-id") ? "(generated)" : String(value)]);
  return { status: res.status, headers: headers.sort(), body: Buffer.from(bytes).toString("base64") };
}

const anon = {};
const gzip = { "accept-encoding": "gzip" };
const preflight = { origin: "https://maps.example.org", "access-control-request-method": "GET" };
const TILE = "/tiles/v1/acme/world@1/0/0/0.mvt";

// [what, method, path, headers, expected status]
const cases: [string, string, string, () => Record<string, string>, number][] = [
  ["health", "GET", "/health", () => anon, 200],
  ["health HEAD", "HEAD", "/health", () => anon, 200],
  ["health with a trailing slash", "GET", "/health/", () => anon, 200],
  ["health POST", "POST", "/health", () => anon, 405],
  ["TileJSON stable", "GET", "/tiles/v1/acme/world.json", () => anon, 200],
  ["TileJSON versioned, CORS origin", "GET", "/tiles/v1/acme/world@1.json", () => ({ origin: "https://maps.example.org" }), 200],
  ["TileJSON 304 (weak, in a list)", "GET", "/tiles/v1/acme/world.json", () => ({ "if-none-match": `"nope", W/${tileJsonEtag}` }), 304],
  ["TileJSON unknown", "GET", "/tiles/v1/acme/nope.json", () => anon, 404],
  ["TileJSON malformed name", "GET", "/tiles/v1/acme/world@x.json", () => anon, 404],
  ["TileJSON private without a key", "GET", "/tiles/v1/acme/secret.json", () => anon, 404],
  ["TileJSON private with a maps:read key", "GET", "/tiles/v1/acme/secret.json", () => ({ "x-api-key": readKey }), 200],
  ["TileJSON private with another org's key", "GET", "/tiles/v1/acme/secret.json", () => ({ "x-api-key": otherKey }), 404],
  ["TileJSON private with a session", "GET", "/tiles/v1/acme/secret@1.json", () => ({ cookie }), 200],
  ["TileJSON private with an expired key", "GET", "/tiles/v1/acme/secret.json", () => ({ "x-api-key": expiredKey }), 404],
  ["TileJSON private with an origin-bound key, right origin", "GET", "/tiles/v1/acme/secret.json", () => ({ "x-api-key": originKey, origin: "https://maps.example.org" }), 200],
  ["TileJSON private with an origin-bound key, other origin", "GET", "/tiles/v1/acme/secret.json", () => ({ "x-api-key": originKey, origin: "https://evil.example" }), 404],
  ["TileJSON private, a key in the query is no key", "GET", "/tiles/v1/acme/secret.json?api_key=msk_nope&key=x", () => anon, 404],
  ["TileJSON with a malformed key", "GET", "/tiles/v1/acme/world.json", () => ({ "x-api-key": "not-a-key" }), 200],
  ["TileJSON owner too long (schema)", "GET", `/tiles/v1/${"a".repeat(201)}/world.json`, () => anon, 400],
  ["TileJSON with a trailing slash (Elysia answers it)", "GET", "/tiles/v1/acme/world.json/", () => anon, 200],
  ["TileJSON HEAD", "HEAD", "/tiles/v1/acme/world.json", () => anon, 200],
  ["TileJSON POST", "POST", "/tiles/v1/acme/world.json", () => anon, 405],
  ["TileJSON preflight", "OPTIONS", "/tiles/v1/acme/world.json", () => preflight, 204],
  ["tile gzip", "GET", TILE, () => gzip, 200],
  ["tile decoded", "GET", TILE, () => anon, 200],
  ["tile 304", "GET", TILE, () => ({ ...gzip, "if-none-match": tileEtag }), 304],
  ["tile HEAD", "HEAD", TILE, () => gzip, 200],
  ["tile HEAD 304", "HEAD", TILE, () => ({ ...gzip, "if-none-match": tileEtag }), 304],
  ["tile HEAD 404 (no body)", "HEAD", "/tiles/v1/acme/world@1/5/0/0.mvt", () => anon, 404],
  ["tile HEAD 400 from the schema", "HEAD", "/tiles/v1/acme/world@1/123456789012345678901/0/0.mvt", () => anon, 400],
  ["tile outside the zoom range", "GET", "/tiles/v1/acme/world@1/5/0/0.mvt", () => anon, 404],
  ["tile outside the world", "GET", "/tiles/v1/acme/world@1/1/2/0.mvt", () => anon, 404],
  ["tile wrong extension", "GET", "/tiles/v1/acme/world@1/0/0/0.png", () => anon, 404],
  ["tile without a version", "GET", "/tiles/v1/acme/world/0/0/0.mvt", () => anon, 404],
  ["tile bad z", "GET", "/tiles/v1/acme/world@1/a/0/0.mvt", () => anon, 400],
  ["tile z too long (schema)", "GET", "/tiles/v1/acme/world@1/123456789012345678901/0/0.mvt", () => anon, 400],
  ["tile private without a key", "GET", "/tiles/v1/acme/secret@1/0/0/0.mvt", () => gzip, 404],
  ["tile private with a maps:read key", "GET", "/tiles/v1/acme/secret@1/0/0/0.mvt", () => ({ ...gzip, "x-api-key": readKey }), 200],
  ["tile with a bad key", "GET", TILE, () => ({ ...gzip, "x-api-key": "msk_" + "x".repeat(40) }), 200],
  ["tile path not UTF-8", "GET", "/tiles/v1/acme/world%E0%A4%A@1/0/0/0.mvt", () => anon, 400],
  ["tile path with a lone %", "GET", "/tiles/v1/acme/world@1/0/0/0%.mvt", () => anon, 400],
  ["TileJSON path with a malformed escape", "GET", "/tiles/v1/ac%ZZme/world.json", () => anon, 400],
  ["TileJSON path with an escaped letter", "GET", "/tiles/v1/acme/w%6Frld.json", () => anon, 200],
  ["style path with an overlong UTF-8 escape", "GET", "/styles/v1/acme/%C0%80", () => anon, 400],
  ["style path with an escaped U+FFFD", "GET", "/styles/v1/acme/%EF%BF%BD", () => anon, 404],
  ["glyphs path with a truncated escape", "GET", "/fonts/v1/Noto%20Sans%E2%82/0-255.pbf", () => anon, 400],
  // `bun` refuses a request head over 16 KiB itself (the compiled binary lets up to 64 KiB through to the
  // conventions' own 431: test/binary/serve.test.ts asks that of /health, a fast route).
  ["tile oversized headers", "GET", TILE, () => ({ "x-padding": "p".repeat(17 * 1024) }), 431],
  ["tile large headers just under Bun's limit", "GET", TILE, () => ({ "x-padding": "p".repeat(16_000) }), 200],
  ["tile caller's request id", "GET", TILE, () => ({ ...gzip, "x-request-id": "caller-chosen-1" }), 200],
  ["tile preflight", "OPTIONS", TILE, () => preflight, 204],
  ["tile DELETE", "DELETE", TILE, () => anon, 405],
  ["style stable", "GET", "/styles/v1/acme/streets", () => anon, 200],
  ["style versioned", "GET", "/styles/v1/acme/streets@1", () => anon, 200],
  ["style 304", "GET", "/styles/v1/acme/streets", () => ({ "if-none-match": styleEtag }), 304],
  ["style unknown version", "GET", "/styles/v1/acme/streets@9", () => anon, 404],
  ["style private without a key", "GET", "/styles/v1/acme/hidden", () => anon, 404],
  ["style private with a maps:read key", "GET", "/styles/v1/acme/hidden", () => ({ "x-api-key": readKey }), 200],
  ["style private with a session", "GET", "/styles/v1/acme/hidden@1", () => ({ cookie }), 200],
  ["style private with a bad key", "GET", "/styles/v1/acme/hidden", () => ({ "x-api-key": "msk_nope" }), 404],
  ["style private with an unrelated cookie", "GET", "/styles/v1/acme/hidden", () => ({ cookie: "theme=dark" }), 404],
  ["tile private with an unrelated cookie", "GET", "/tiles/v1/acme/secret@1/0/0/0.mvt", () => ({ ...gzip, cookie: "theme=dark" }), 404],
  ["style HEAD", "HEAD", "/styles/v1/acme/streets", () => anon, 200],
  ["style preflight", "OPTIONS", "/styles/v1/acme/streets", () => preflight, 204],
  ["style PUT", "PUT", "/styles/v1/acme/streets", () => anon, 405],
  ["sprite json", "GET", "/styles/v1/acme/streets/sprite.json", () => anon, 200],
  ["sprite png @2x", "GET", "/styles/v1/acme/streets@1/sprite@2x.png", () => anon, 200],
  ["sprite private without a key", "GET", "/styles/v1/acme/hidden/sprite.json", () => anon, 404],
  ["sprite private with a key", "GET", "/styles/v1/acme/hidden/sprite.png", () => ({ "x-api-key": readKey }), 200],
  ["raster TileJSON of a style is not taken for a sprite file", "GET", "/styles/v1/acme/streets/tiles.json", () => anon, 200],
  ["sprite unknown file", "GET", "/styles/v1/acme/streets/sprite.gif", () => anon, 404],
  ["glyphs", "GET", "/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", () => anon, 200],
  ["glyphs fontstack", "GET", "/fonts/v1/Noto%20Sans%20Bold,Noto%20Sans%20Regular/256-511.pbf", () => anon, 200],
  ["glyphs unknown font", "GET", "/fonts/v1/Nope/0-255.pbf", () => anon, 404],
  ["glyphs bad range", "GET", "/fonts/v1/Noto%20Sans%20Regular/1-256.pbf", () => anon, 400],
  ["glyphs HEAD", "HEAD", "/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", () => anon, 200],
  ["glyphs preflight", "OPTIONS", "/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", () => preflight, 204],
];

describe("every fast route answers byte for byte as its Elysia twin", () => {
  for (const [what, method, path, headers, status] of cases) {
    test(`${what}: ${method} ${path.slice(0, 80)}`, async () => {
      const init = () => ({ method, headers: headers() });
      const a = await seen(fastUrl, path, init());
      const b = await seen(twinUrl, path, init());
      expect(a).toEqual(b);
      expect(await seen(quietUrl, path, init())).toEqual(b);
      expect(a.status).toBe(status);
      // Bun itself refuses headers past its own limit, before any route (and so without a request id).
      if (status !== 431) expect(a.headers.some(([name]) => name === "x-request-id")).toBe(true);
    });
  }

  test("GET and HEAD on every fast route reached the fast handlers, not Elysia", () => {
    expect([...fastCalls.keys()].sort()).toEqual(fastReads(t.services).map((r) => r.path).sort());
  });
});

describe("the conventions around the answer", () => {
  const lineOf = (id: string) => {
    const line = logLines.find((l) => l.includes(`"request_id":"${id}"`));
    expect(line).toBeDefined();
    const { time: _time, ms: _ms, request_id: _id, ...rest } = JSON.parse(line!) as Record<string, unknown>;
    return rest;
  };

  test("the same access-log line, without the query string", async () => {
    // The tile's path is spelled from its parameters, the font stack's (a space) read from the URL.
    for (const [path, status] of [[`${TILE}?key=secret`, 200], ["/fonts/v1/Nope/0-255.pbf", 404], ["/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", 200], ["/health", 200]] as const) {
      const tag = `log-${status}-${path.length}`;
      expect((await fetch(fastUrl + path, { headers: { "x-request-id": `${tag}-fast` } })).status).toBe(status);
      expect((await fetch(twinUrl + path, { headers: { "x-request-id": `${tag}-twin` } })).status).toBe(status);
      await Bun.sleep(50); // the log writes batched lines after the response
      const fastLine = lineOf(`${tag}-fast`);
      expect(fastLine).toEqual(lineOf(`${tag}-twin`));
      expect(fastLine).toMatchObject({ msg: "request", method: "GET", status });
      expect(JSON.stringify(fastLine)).not.toContain("secret");
    }
  });

  test("a plain character the client escaped is logged decoded: the same path", async () => {
    const escaped = TILE.replace("/acme/", "/%61cme/");
    expect((await fetch(fastUrl + escaped, { headers: { "x-request-id": "log-escaped-fast" } })).status).toBe(200);
    await Bun.sleep(50);
    expect(lineOf("log-escaped-fast")).toMatchObject({ path: TILE, status: 200 });
  });

  test("the same metrics: each path counts one request in its route group", async () => {
    const count = async (group: string, status: string) => {
      const text = await (await fetch(`${fastUrl}/metrics`)).text();
      return Number(new RegExp(`mapstead_http_requests_total\\{group="${group}",method="GET",status="${status}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };
    for (const [path, group, status] of [[TILE, "tiles", "2xx"], ["/styles/v1/acme/hidden", "styles", "4xx"], ["/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", "fonts", "2xx"], ["/health", "health", "2xx"]] as const) {
      for (const base of [fastUrl, twinUrl]) {
        const before = await count(group, status);
        await (await fetch(base + path)).arrayBuffer();
        await Bun.sleep(20); // Elysia's twin counts after the response has gone
        expect(await count(group, status)).toBe(before + 1);
      }
    }
  });

  test("a maps:read key used on the fast path is marked as used, as on the twin", async () => {
    const key = seedKey(t.ctx, (t.ctx.sqlite.query("SELECT id FROM orgs WHERE slug = 'acme'").get() as { id: number }).id, ["maps:read"]);
    expect((await fetch(`${fastUrl}/tiles/v1/acme/secret.json`, { headers: { "x-api-key": key.secret } })).status).toBe(200);
    expect(t.services.auth.usage.lastUsedAt(key.id, null)).not.toBeNull();
  });
});

describe("twins", () => {
  test("every fast route doubles an Elysia GET route that the OpenAPI document lists", async () => {
    const doc = (await (await fetch(`${fastUrl}/openapi.json`)).json()) as { paths: Record<string, { get?: unknown }> };
    for (const { path } of fastReads(t.services)) {
      expect(fast.routes.some((r) => r.method === "GET" && r.path === path)).toBe(true);
      expect(doc.paths[path.replace(/:(\w+)/g, "{$1}")]?.get).toBeDefined();
    }
  });

  test("a fast route without an Elysia twin is refused when the app is built", () => {
    const reads = [{ path: "/tiles/v1/:owner/:name/:z/:x/:y/extra", answer: () => ({ status: 200, headers: {}, body: null }) }];
    expect(() => fastRoutes(reads, { log: t.ctx.log, twins: fast.routes, elysia: () => new Response() })).toThrow("no Elysia twin");
  });

  test("a key-protected service route (origin echo, billing) cannot be put on the fast path", () => {
    const service = fast.routes.find((r) => r.method === "GET" && factsOf(r).cors === "service")!;
    expect(service).toBeDefined();
    const reads = [{ path: service.path, answer: () => ({ status: 200, headers: {}, body: null }) }];
    expect(() => fastRoutes(reads, { log: t.ctx.log, twins: fast.routes, elysia: () => new Response() })).toThrow("service routes");
  });
});

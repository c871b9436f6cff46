// PUBLIC_URL with a path (https://gis.example.org/maps): a reverse proxy publishes Mapstead under the
// prefix. Routes stay where they are; every URL Mapstead writes carries the prefix (TileJSON, style
// JSON, raster TileJSON and WMTS, Location, the session cookie's Path, the OpenAPI server, the pages);
// a request that still has the prefix in its path (a proxy that does not strip it) is answered as the
// stripped one. test/browser/base-path.test.ts drives the console and MapLibre through a real proxy.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort, listenAsServed, makeTestApp, type TestApp } from "../support/app";
import { seedSession } from "../support/seed";
import { buildWorld, type World } from "../read/render/world";
import { requestAsSent, stripBasePath } from "../../src/http/base-path";

const ORIGIN = "http://127.0.0.1:8080";
const PUBLIC = `${ORIGIN}/maps`;

let t: TestApp;
let w: World;
/** As a proxy that strips /maps sends it: the route's own path. */
const stripped = (path: string, init?: RequestInit) => t.app.handle(new Request(ORIGIN + path, init));
/** As a proxy that keeps /maps sends it (t.fetch puts PUBLIC_URL, prefix included, before the path). */
const prefixed = (path: string, init?: RequestInit) => t.fetch(path, init);

beforeAll(async () => {
  // The trailing slash is PUBLIC_URL's as an operator may write it.
  t = await makeTestApp({ PUBLIC_URL: `${PUBLIC}/` });
  w = await buildWorld(t);
}, 120_000);
afterAll(() => t?.close());

async function json(res: Response | Promise<Response>) {
  const r = await res;
  expect(r.status).toBe(200);
  return (await r.json()) as Record<string, any>;
}

describe("what Mapstead writes carries the prefix", () => {
  test("TileJSON tiles", async () => {
    const tj = await json(stripped("/tiles/v1/acme/countries.json"));
    expect(tj.tiles).toEqual([`${PUBLIC}/tiles/v1/acme/countries@1/{z}/{x}/{y}.mvt`]);
    const tile = await stripped(new URL(tj.tiles[0].replace("{z}/{x}/{y}", "0/0/0")).pathname.slice("/maps".length));
    expect(tile.status).toBe(200);
  });

  test("style JSON: sources and glyphs resolved from mapstead:// to PUBLIC_URL, prefix included", async () => {
    const style = await json(stripped("/styles/v1/acme/world"));
    expect(style.sources.countries.url).toBe(`${PUBLIC}/tiles/v1/acme/countries.json`);
    expect(style.sources.cities.url).toBe(`${PUBLIC}/tiles/v1/acme/cities.json`);
    expect(style.glyphs).toBe(`${PUBLIC}/fonts/v1/{fontstack}/{range}.pbf`);
    const versioned = await json(stripped("/styles/v1/acme/world@1"));
    expect(versioned.sources.countries.url).toBe(`${PUBLIC}/tiles/v1/acme/countries@1.json`);
  });

  test("a style's absolute URLs under the prefix are known as this server's (checked, and served back as given)", async () => {
    const headers = { ...w.session.headers, "content-type": "application/json" };
    const style = (url: string) => ({ version: 8, sources: { c: { type: "vector", url } }, layers: [{ id: "bg", type: "background" }] });
    const create = (slug: string, url: string) => stripped("/api/v1/orgs/acme/styles", { method: "POST", headers, body: JSON.stringify({ slug, style: style(url) }) });
    expect((await create("absolute", `${PUBLIC}/tiles/v1/acme/countries.json`)).status).toBe(201);
    expect((await stripped("/api/v1/orgs/acme/styles/absolute/publish", { method: "POST", headers: w.session.headers })).status).toBe(200);
    expect((await json(stripped("/styles/v1/acme/absolute"))).sources.c.url).toBe(`${PUBLIC}/tiles/v1/acme/countries.json`);
    // A tileset that does not exist, named by this server's URL, is the style's error.
    const missing = await create("missing", `${PUBLIC}/tiles/v1/acme/nothing.json`);
    expect(missing.status).toBe(422);
  });

  test("raster TileJSON and WMTS capabilities", async () => {
    const tj = await json(stripped("/styles/v1/acme/world/tiles.json"));
    expect(tj.tiles).toEqual([`${PUBLIC}/styles/v1/acme/world/tiles/256/{z}/{x}/{y}.png`]);
    const xml = await (await stripped("/styles/v1/acme/world/wmts.xml")).text();
    expect(xml).toContain(`template="${PUBLIC}/styles/v1/acme/world/tiles/256/{TileMatrix}/{TileCol}/{TileRow}.png"`);
    expect(xml).toContain(`<ServiceMetadataURL xlink:href="${PUBLIC}/styles/v1/acme/world/wmts.xml"/>`);
  });

  test("a Location header (a queued gazetteer import) names the URL under the prefix", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const res = await stripped("/api/v1/gazetteer/datasets/from-tileset", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ tileset: "acme/cities", name_field: "name" }) });
    expect(res.status).toBe(202);
    const location = res.headers.get("location")!;
    expect(location).toMatch(/^\/maps\/api\/v1\/gazetteer\/imports\/[^/]+$/);
    expect((await res.json()).status_url).toBe(location);
    // The browser resolves it against PUBLIC_URL's origin; through the proxy it reaches the import.
    expect((await stripped(location.slice("/maps".length), { headers: admin.headers })).status).toBe(200);
    expect((await prefixed(location.slice("/maps".length), { headers: admin.headers })).status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const s = await json(stripped(location.slice("/maps".length), { headers: admin.headers }));
      if (s.state === "done" || s.state === "failed") break;
      await Bun.sleep(50);
    }
  });

  test("the session cookie's Path is the prefix; CSRF still compares origins only", async () => {
    const user = await seedSession(t.ctx, { isAdmin: true });
    const login = await stripped("/api/v1/session", { method: "POST", headers: { "content-type": "application/json", origin: ORIGIN }, body: JSON.stringify({ email: user.email, password: user.password }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get("set-cookie")!;
    expect(cookie).toContain("; Path=/maps;");
    // An unsafe console request with the page's Origin (PUBLIC_URL's origin, no path) and no token passes.
    const session = cookie.split(";")[0]!;
    const org = await stripped("/api/v1/orgs", { method: "POST", headers: { cookie: session, origin: ORIGIN, "content-type": "application/json" }, body: JSON.stringify({ slug: "csrf-ok" }) });
    expect(org.status).toBe(201);
    const cross = await stripped("/api/v1/orgs", { method: "POST", headers: { cookie: session, origin: "http://evil.example", "content-type": "application/json" }, body: JSON.stringify({ slug: "csrf-no" }) });
    expect(cross.status).toBe(403);
    const logout = await stripped("/api/v1/session", { method: "DELETE", headers: { cookie: session, origin: ORIGIN } });
    expect(logout.headers.get("set-cookie")).toContain("; Path=/maps;");
  });

  test("the OpenAPI document's server, and the API reference page's URLs", async () => {
    expect((await json(stripped("/openapi.json"))).servers).toEqual([{ url: PUBLIC }]);
    const page = await (await stripped("/docs")).text();
    expect(page).toContain('<script src="/maps/docs/assets/api-reference.js">');
    expect(page).toContain("&#34;url&#34;:&#34;/maps/openapi.json&#34;");
  });

  test("the landing, setup and preflight pages link under the prefix", async () => {
    const home = await (await stripped("/")).text();
    const hrefs = [...home.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(5);
    for (const href of hrefs) expect(href).toStartWith("/maps/");
    expect(home).toContain(`<code>${PUBLIC}</code>`);
    const setup = await (await stripped("/setup")).text();
    expect(setup).toContain('href="/maps/console"');
    const preflight = await (await stripped("/setup/preflight", { headers: { accept: "text/html" } })).text();
    expect([...preflight.matchAll(/href="([^"]+)"/g)].map((m) => m[1])).toEqual(["/maps/favicon.ico", "/maps/console", "/maps/"]);
  });

  test("each page names its icon under the prefix: a browser otherwise asks the host's /favicon.ico, outside /maps", async () => {
    for (const path of ["/", "/setup", "/setup/preflight", "/docs"]) {
      const page = await (await stripped(path, { headers: { accept: "text/html" } })).text();
      expect(`${path} ${/<link rel="icon" href="([^"]+)">/.exec(page)?.[1]}`).toBe(`${path} /maps/favicon.ico`);
    }
    // The setup page's Content-Security-Policy lets it load (Chromium logs a refused icon as an error).
    expect((await stripped("/setup")).headers.get("content-security-policy")).toContain("img-src 'self'");
    expect((await prefixed("/favicon.ico")).headers.get("content-type")).toBe("image/x-icon");
  });

  test("the console page: its assets, links and the base its scripts read", async () => {
    const html = await (await stripped("/console")).text();
    expect(html).toContain('<html lang="en" data-base="/maps">');
    const urls = [...html.matchAll(/(?:href|src)="([^"#][^"]*)"/g)].map((m) => m[1]!).filter((u) => !u.startsWith("data:"));
    expect(urls).toEqual(["/maps/console/assets/console.css", "/maps/console/assets/maplibre-gl.css", "/maps/console/assets/console.js", "/maps/setup", "/maps/docs"]);
    for (const u of urls.filter((u) => u.includes("/assets/"))) expect((await prefixed(u.slice("/maps".length))).status).toBe(200);
  });
});

describe("a request that keeps the prefix is answered as the stripped one", () => {
  test("through app.handle: the same bodies", async () => {
    for (const path of ["/tiles/v1/acme/countries.json", "/styles/v1/acme/world", "/styles/v1/acme/world/tiles.json", "/openapi.json", "/health"]) {
      const a = await stripped(path);
      const b = await prefixed(path);
      expect(b.status).toBe(a.status);
      expect(await b.text()).toBe(await a.text());
    }
    expect((await t.app.handle(new Request(`${ORIGIN}/maps`))).headers.get("content-type")).toContain("text/html");
    // Only the whole segment is the prefix.
    expect((await t.app.handle(new Request(`${ORIGIN}/mapsx/health`))).status).toBe(404);
  });

  test("over a socket, on Bun's fast path and Elysia's alike, with the client's address kept", async () => {
    // A second app on the same data, listening as `mapstead serve` does (Bun's routes table included).
    const port = freePort();
    const served = await makeTestApp({ HOST: "127.0.0.1", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}/maps` }, { dataDir: t.dataDir });
    listenAsServed(served.app, port);
    try {
      const origin = `http://127.0.0.1:${port}`;
      // The style's raster TileJSON and WMTS sit beside the fast sprite route /styles/v1/:owner/:style/:file,
      // which must not take them under the prefix (nginx `proxy_pass http://127.0.0.1:8080;` answered 404).
      const paths = ["/tiles/v1/acme/countries.json", "/styles/v1/acme/world", "/styles/v1/acme/world/tiles.json", "/styles/v1/acme/world/wmts.xml", "/styles/v1/acme/world@1/wmts.xml", "/health", "/fonts/v1", "/console"];
      for (const path of paths) {
        const a = await fetch(origin + path);
        const b = await fetch(`${origin}/maps${path}`);
        expect(`${path} ${b.status}`).toBe(`${path} ${a.status}`);
        expect(await b.text()).toBe(await a.text());
      }
      expect((await fetch(`${origin}/maps/`)).status).toBe(200);
      expect((await fetch(`${origin}/maps`)).status).toBe(200);
      expect((await fetch(`${origin}/mapsx/health`)).status).toBe(404);
      // /metrics answers loopback callers only: a prefixed request still comes from 127.0.0.1.
      expect((await fetch(`${origin}/maps/metrics`)).status).toBe(200);
    } finally {
      await served.app.server?.stop(true);
      await served.close();
    }
  });

  test("a Host header that is no host name (Bun then gives the request its path alone as url): a 404 in the envelope, not a bare 500", async () => {
    const port = freePort();
    const served = await makeTestApp({ HOST: "127.0.0.1", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}/maps` }, { dataDir: t.dataDir });
    listenAsServed(served.app, port);
    const send = (path: string, host: string) =>
      new Promise<string>((resolve) => {
        let got = "";
        void Bun.connect({
          hostname: "127.0.0.1",
          port,
          socket: {
            open: (s) => void s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
            data: (_s, d) => void (got += d.toString()),
            close: () => resolve(got),
            error: () => resolve(got),
          },
        });
      });
    try {
      for (const path of ["/maps/maps/health", "/maps/maps/metrics"]) {
        const answer = await send(path, "a/b");
        expect(`${path} ${answer.split("\r\n")[0]}`).toBe(`${path} HTTP/1.1 404 Not Found`);
        expect(answer).toContain('"code":"NOT_FOUND"');
      }
      expect((await send("/maps/health", `127.0.0.1:${port}`)).split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
    } finally {
      await served.app.server?.stop(true);
      await served.close();
    }
  });

  test("a stripped copy of a served request keeps the client's address", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request, srv) => Response.json({ url: stripBasePath(request, "/maps").url, ip: srv.requestIP(requestAsSent(stripBasePath(request, "/maps")))?.address ?? null }),
    });
    try {
      const body = await (await fetch(`http://127.0.0.1:${server.port}/maps/tiles/v1/x.json?a=1`)).json();
      expect(body.url).toBe(`http://127.0.0.1:${server.port}/tiles/v1/x.json?a=1`);
      expect(body.ip).toContain("127.0.0.1");
    } finally {
      server.stop(true);
    }
  });
});

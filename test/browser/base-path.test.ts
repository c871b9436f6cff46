// Mapstead published under a path of another host: PUBLIC_URL=http://127.0.0.1:{proxy}/maps, and a
// reverse proxy in front (a Bun server that strips /maps, as nginx `location /maps/ { proxy_pass
// http://127.0.0.1:8080/; }` or Caddy `handle_path /maps/*` do). Chromium signs in to the console
// through it and opens a style's live preview, and MapLibre GL JS draws a published style through it:
// every request the pages make stays under /maps, and nothing reaches the proxy outside it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { freePort, listenAsServed, makeTestApp, type TestApp } from "../support/app";
import { canvasPixels, countColor, launchBrowser, openMap } from "../support/browser";
import { seedSession } from "../support/seed";
import { buildWorld, LAND } from "../read/render/world";

let t: TestApp;
let browser: Browser;
let proxy: ReturnType<typeof Bun.serve>;
let proxyOrigin: string;
let publicUrl: string;
/** Paths that reached the proxy outside /maps (another app's, on a real host). */
const escaped: string[] = [];

beforeAll(async () => {
  const appPort = freePort();
  const proxyPort = freePort();
  proxyOrigin = `http://127.0.0.1:${proxyPort}`;
  publicUrl = `${proxyOrigin}/maps`;
  t = await makeTestApp({ HOST: "127.0.0.1", PORT: String(appPort), PUBLIC_URL: publicUrl });
  listenAsServed(t.app, appPort);
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: proxyPort,
    async fetch(request) {
      const url = new URL(request.url);
      if (!url.pathname.startsWith("/maps/")) {
        escaped.push(`${request.method} ${url.pathname}`);
        return new Response("not Mapstead's", { status: 404 });
      }
      const headers = new Headers(request.headers);
      headers.delete("host");
      const upstream = await fetch(`http://127.0.0.1:${appPort}${url.pathname.slice("/maps".length)}${url.search}`, {
        method: request.method,
        headers,
        body: request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer(),
        redirect: "manual",
        decompress: false,
      });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
  await buildWorld(t);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  proxy?.stop(true);
  await t?.app.server?.stop(true);
  await t?.close();
});

function watch(page: Page) {
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  return { requests, problems };
}

test("the console through the proxy: sign in, the API, a live style preview, all under /maps", async () => {
  const admin = await seedSession(t.ctx, { isAdmin: true, email: "admin@example.com" });
  const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
  const page = await context.newPage();
  const { requests, problems } = watch(page);

  await page.goto(`${publicUrl}/console`);
  await page.fill("#login-email", admin.email);
  await page.fill("#login-password", admin.password);
  await page.click("#login-form button[type=submit]");
  await page.waitForSelector("#app-view:not([hidden])");
  // The session cookie belongs to /maps alone.
  const cookies = await context.cookies(publicUrl);
  expect(cookies.find((c) => c.name === "mapstead_session")?.path).toBe("/maps");

  // A page that calls the API, then a style page with its MapLibre preview (style, TileJSON, tiles, glyphs).
  await page.evaluate(() => (location.hash = "#/acme/tilesets"));
  await page.waitForSelector("text=countries");
  await page.evaluate(() => (location.hash = "#/acme/styles/world"));
  await page.waitForSelector("#map-preview[data-idle=true]", { timeout: 30_000 });
  expect(await page.getAttribute("#map-preview", "data-style")).toBe(`${publicUrl}/styles/v1/acme/world`);
  const px = await canvasPixels(page, "#map-preview canvas");
  expect(countColor(px, LAND)).toBeGreaterThan(500);
  // The console's links stay under /maps too (the API reference opens in a new tab).
  expect(await page.getAttribute(".sidebar-links a", "href")).toBe("/maps/docs");

  // A reload with the cookie asks for the session under /maps and comes back signed in.
  await page.reload();
  await page.waitForSelector("#map-preview[data-idle=true]", { timeout: 30_000 });

  expect(requests.some((u) => u.startsWith(`${publicUrl}/api/v1/`))).toBe(true);
  expect(requests.some((u) => u.startsWith(`${publicUrl}/tiles/v1/acme/countries@1/`))).toBe(true);
  expect(requests.filter((u) => !u.startsWith(`${publicUrl}/`) && !u.startsWith("blob:") && !u.startsWith("data:"))).toEqual([]);
  expect(problems).toEqual([]);
  expect(escaped).toEqual([]);
  await context.close();
}, 90_000);

test("MapLibre GL JS draws a published style through the proxy", async () => {
  const map = await openMap(browser, { style: `${publicUrl}/styles/v1/acme/world`, zoom: 1 });
  try {
    const px = await map.pixels();
    expect(countColor(px, LAND)).toBeGreaterThan(px.width * px.height * 0.05);
    expect(await map.mapErrors()).toEqual([]);
    expect(map.failedRequests).toEqual([]);
    const fromMapstead = map.requests.filter((u) => u.startsWith(proxyOrigin));
    expect(fromMapstead.some((u) => u.startsWith(`${publicUrl}/tiles/v1/acme/countries@1/`))).toBe(true);
    expect(fromMapstead.filter((u) => !u.startsWith(`${publicUrl}/`))).toEqual([]);
    expect(escaped).toEqual([]);
  } finally {
    await map.close();
  }
}, 60_000);

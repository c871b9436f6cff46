// The management console: served with a strict CSP and nothing from another origin, and the whole
// publishing flow driven through the real page in Chromium (login, organization, API key, tileset
// upload and publish, style from the template, publish, live MapLibre preview), and the admin's
// Geocoding panel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { dirname, join, relative } from "node:path";
import { makeTestApp, serveTestApp, tempDir, type TestApp } from "../support/app";
import { ARTIFACTS_DIR, canvasPixels, countColor, launchBrowser } from "../support/browser";
import { startBinary } from "../support/binary";
import { seedSession } from "../support/seed";
import { demMbtiles, ramp } from "../support/dem";
import { createTileset, publish, upload, waitForVersion } from "../routes/management/tilesets/fixtures";
import { CONSOLE_CSP } from "../../src/routes/web/console";
import { VILLAGES_TSV } from "../backends/geocoder/embedded/fixtures";
import { CONSOLE_FILE_ASSETS, CONSOLE_TEXT_ASSETS } from "../../src/web/console/assets";

const CONSOLE_DIR = join(import.meta.dir, "..", "..", "src", "web", "console");

/** Every browser file of the console on disk (modules and styles), as paths relative to its folder. */
function consoleFilesOnDisk(): string[] {
  return (readdirSync(CONSOLE_DIR, { recursive: true }) as string[]).filter((f) => /\.(js|css)$/.test(f)).sort();
}

/** A GET sent byte for byte (fetch and Request normalize "../" away before it could reach the server). */
function rawGet(baseUrl: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let data = "";
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    socket.on("data", (chunk) => (data += chunk));
    socket.on("error", reject);
    socket.on("end", () => resolve({ status: Number(data.split(" ")[1]), body: data.slice(data.indexOf("\r\n\r\n") + 4) }));
  });
}

describe("GET /console", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(() => t.close());

  test("serves the page with a strict CSP and only same-origin assets", async () => {
    const res = await t.fetch("/console");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy")!;
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "img-src 'self' data: blob:", "worker-src blob: 'self'"])
      expect(csp).toContain(directive);
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    const html = await res.text();
    expect(html).toContain('<script type="module" src="/console/assets/console.js">');
    // Nothing inline (the CSP would block it) and nothing loaded from elsewhere.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style\b|\sstyle=/);
    expect(html).not.toMatch(/(src|href)=["'](https?:)?\/\//);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of refs.filter((r) => r.startsWith("/console/"))) expect((await t.fetch(ref)).status).toBe(200);
  });

  test("the page asks for the session only when the request carries a session cookie", async () => {
    const plain = await (await t.fetch("/console")).text();
    expect(plain).toContain("<body>");
    expect(plain).not.toContain("data-session");
    const withCookie = await (await t.fetch("/console", { headers: { cookie: "other=1; mapstead_session=stale" } })).text();
    expect(withCookie).toContain('<body data-session="cookie">');
  });

  test("assets: every console module, nested ones included, with revalidation", async () => {
    // Every module and stylesheet on disk is listed (else the browser gets a 404 for it), and nothing else.
    expect(Object.keys(CONSOLE_TEXT_ASSETS).sort()).toEqual(consoleFilesOnDisk());
    for (const [path, text] of Object.entries(CONSOLE_TEXT_ASSETS)) {
      const res = await t.fetch(`/console/assets/${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain(path.endsWith(".css") ? "text/css" : "text/javascript");
      expect(res.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
      const source = await res.text();
      expect(source).toBe(text);
      expect(source).not.toMatch(/(import\s*\(?|fetch\()\s*["'`]https?:/);
      expect(source).not.toMatch(/localStorage|sessionStorage/);
      // Each relative import names a listed module, as the browser resolves it.
      for (const [, spec] of source.matchAll(/^import [^;]*? from "(\.{1,2}\/[^"]+)";$/gm)) {
        const target = relative(CONSOLE_DIR, join(CONSOLE_DIR, dirname(path), spec!));
        expect(CONSOLE_TEXT_ASSETS[target]).toBeDefined();
      }
    }
    expect(Object.keys(CONSOLE_TEXT_ASSETS)).toEqual(expect.arrayContaining(["console.js", "lib/api.js", "lib/dom.js", "lib/router.js", "lib/map.js", "views/login.js"]));
    const nested = await t.fetch("/console/assets/lib/api.js");
    const etag = nested.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await t.fetch("/console/assets/lib/api.js", { headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await t.fetch("/console/assets/console.js", { headers: { "if-none-match": etag } })).status).toBe(200);
    const css = await (await t.fetch("/console/assets/console.css")).text();
    expect(css).not.toMatch(/url\(|@import/);
    for (const [f, file] of Object.entries(CONSOLE_FILE_ASSETS)) {
      const r = await t.fetch(`/console/assets/${f}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain(f.endsWith(".css") ? "text/css" : "text/javascript");
      const bytes = Buffer.from(await r.arrayBuffer());
      expect(bytes.equals(Buffer.from(await Bun.file(file).arrayBuffer()))).toBe(true);
      // maplibre-gl-shared.mjs is empty in MapLibre's own dist; the others are the library.
      if (f !== "maplibre-gl-shared.mjs") expect(bytes.byteLength).toBeGreaterThan(10_000);
    }
    for (const path of ["..%2Fsecret", "lib%2Fapi.js", "lib/", "lib/nope.js", "views", "index.html", "assets.ts"]) {
      const missing = await t.fetch(`/console/assets/${path}`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).error.code).toBe("NOT_FOUND");
    }
  });

  test("assets: ../ out of the asset folder is refused over real HTTP", async () => {
    const served = await serveTestApp();
    try {
      for (const path of ["/console/assets/../../package.json", "/console/assets/lib/../../../../etc/passwd", "/console/assets/..%2F..%2Fpackage.json", "/console/assets/lib/..%2F..%2F..%2Fpackage.json"]) {
        const res = await rawGet(served.baseUrl, path);
        expect(res.status).toBe(404);
        expect(JSON.parse(res.body).error.code).toBe("NOT_FOUND");
      }
      // A ../ that stays inside the folder is just another name of a listed module.
      const inside = await rawGet(served.baseUrl, "/console/assets/lib/../lib/dom.js");
      expect(inside.status).toBe(200);
      expect(inside.body).toContain("export function h(");
    } finally {
      await served.close();
    }
  });

  test("the exported CSP is the one served", async () => {
    expect((await t.fetch("/console")).headers.get("content-security-policy")).toBe(CONSOLE_CSP);
  });
});

/** Polygons, a line and points across a wide area: the preview must show them. */
function sampleGeojson(): string {
  const square = (x: number, y: number, s: number) => [[[x, y], [x + s, y], [x + s, y + s], [x, y + s], [x, y]]];
  return JSON.stringify({
    type: "FeatureCollection",
    features: [
      { type: "Feature", properties: { name: "west park", kind: "park" }, geometry: { type: "Polygon", coordinates: square(-20, -10, 22) } },
      { type: "Feature", properties: { name: "east park", kind: "park" }, geometry: { type: "Polygon", coordinates: square(8, 5, 20) } },
      { type: "Feature", properties: { name: "trail" }, geometry: { type: "LineString", coordinates: [[-20, 30], [0, 20], [28, 32]] } },
      ...[[-5, 28], [15, -5], [25, 15]].map(([x, y], i) => ({ type: "Feature", properties: { name: `gate ${i}` }, geometry: { type: "Point", coordinates: [x, y] } })),
    ],
  });
}

describe("console in Chromium", () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await serveTestApp();
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1360, height: 1000 }, deviceScaleFactor: 1 });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      // CSP violations and script errors show up here.
      if (m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  test("the sign-in page loads without an error or a failed request in the browser console", async () => {
    const context = await browser.newContext();
    const fresh = await context.newPage();
    const logged: string[] = [];
    fresh.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") logged.push(`${m.type()}: ${m.text()}`);
    });
    fresh.on("pageerror", (e) => logged.push(`page error: ${e.message}`));
    fresh.on("response", (r) => {
      if (r.status() >= 400) logged.push(`${r.status()} ${r.url()}`);
    });
    const visit = async () => {
      await fresh.goto(`${t.baseUrl}/console`, { waitUntil: "networkidle" });
      await fresh.waitForSelector("#login-view:not([hidden])");
    };
    await visit();
    expect(await fresh.isVisible("#login-form")).toBe(true);
    expect(await fresh.isHidden("#login-error")).toBe(true);
    expect(logged).toEqual([]);

    // A cookie whose session is gone costs one 401 (the page cannot know before asking), then the
    // cookie is cleared and the next visit is quiet again.
    await context.addCookies([{ name: "mapstead_session", value: "ended-session", url: t.baseUrl, httpOnly: true }]);
    await visit();
    expect(logged.filter((l) => l.startsWith("401 "))).toEqual([`401 ${t.baseUrl}/api/v1/session`]);
    expect(await fresh.isHidden("#login-error")).toBe(true);
    expect((await context.cookies()).map((c) => c.name)).not.toContain("mapstead_session");
    logged.length = 0;
    await visit();
    expect(logged).toEqual([]);
    await context.close();
  }, 30_000);

  test("log in, create an org, a key, publish a tileset and a style, and see the map", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true, email: "admin@example.com" });
    const requests: string[] = [];
    page.on("request", (r) => requests.push(`${r.method()} ${r.url()}`));

    // Log in through the form; a wrong password shows the API's message.
    await page.goto(`${t.baseUrl}/console`);
    await page.fill("#login-email", admin.email);
    await page.fill("#login-password", "not the password");
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#login-error:not([hidden])");
    expect(await page.textContent("#login-error")).toContain("Wrong email or password");
    await page.fill("#login-password", admin.password);
    await page.click("#login-form button[type=submit]");

    // No organization yet: the console asks for one.
    await page.waitForSelector("#new-org-form");
    await page.fill("#org-slug", "Bad Slug");
    await page.evaluate(() => (document.querySelector("#org-slug") as HTMLInputElement).removeAttribute("pattern"));
    await page.click("#new-org-form button[type=submit]");
    await page.waitForSelector("#new-org-form .alert-error");
    expect(await page.textContent("#new-org-form .alert-error")).toMatch(/slug/i);
    await page.fill("#org-slug", "acme");
    await page.fill("#org-name", "Acme Mapping");
    await page.click("#new-org-form button[type=submit]");
    await page.waitForSelector(".stats");
    expect(await page.textContent("#org-select")).toContain("acme");

    // API key: the secret is shown once.
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    await page.fill("#key-name", "web-app");
    await page.check('input[name=scope][value="geocoding"]');
    await page.fill("#key-origins", "https://app.example.com");
    await page.click("#create-key");
    const secret = (await (await page.waitForSelector("#key-secret")).textContent())!;
    expect(secret).toMatch(/^msk_/);
    const row = await page.waitForSelector("tr[data-key]");
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS_DIR, "console-keys.png") });
    expect(await row.textContent()).toContain("web-app");
    expect(await row.textContent()).toContain("https://app.example.com");
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    expect(storage).not.toContain(secret);
    // Stored: the page no longer holds the user back (test/console/console-ux.test.ts covers the guard).
    await page.click("#key-secret-done");
    await page.click('#nav a[data-section="members"]');
    await page.waitForSelector("tr[data-member]");
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("tr[data-key]");
    expect(await page.$("#key-secret")).toBeNull();
    expect(await page.textContent("tr[data-key]")).not.toContain(secret);

    // The secret works until the key is revoked (after a confirmation) in the list.
    const geocode = () => fetch(`${t.baseUrl}/geocoding/v1/forward?q=berlin`, { headers: { "x-api-key": secret } }).then((r) => r.status);
    expect(await geocode()).not.toBe(401);
    await page.click("tr[data-key] button.btn-danger");
    await page.waitForSelector("#confirm-dialog[open]");
    await page.click("#confirm-ok");
    await page.waitForSelector("tr[data-key] .badge-revoked");
    expect(await geocode()).toBe(401);

    // Tileset: create, upload through the file input, wait for ready, publish.
    await page.click('#nav a[data-section="tilesets"]');
    await page.waitForSelector("#new-tileset-form:not([hidden])");
    await page.fill("#tileset-slug", "parks");
    await page.fill("#tileset-name", "Parks");
    await page.click("#new-tileset-form button[type=submit]");
    await page.waitForSelector("#upload-form");
    expect(await page.textContent("#tileset-preview")).toContain("A preview appears once a version is ready");
    const dir = tempDir("mapstead-console-");
    const file = join(dir, "parks.geojson");
    writeFileSync(file, sampleGeojson());
    await page.setInputFiles("#tileset-file", file);
    await page.click("#upload-button");
    await page.waitForSelector('tr[data-version="1"][data-state="ready"]', { timeout: 20_000 });
    expect(await page.evaluate(() => (document.querySelector("#upload-progress") as HTMLProgressElement).value)).toBe(100);
    // The ready version lists its layers: name, features kept, zooms.
    const v1 = (await (await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions/1", { headers: admin.headers })).json()) as any;
    expect(v1.stats.features_by_layer).toEqual({ parks: 6 });
    expect(await page.textContent('tr[data-version="1"] .version-layers tr[data-layer="parks"]')).toBe(`parks6z${v1.minzoom}–${v1.maxzoom}`);
    // The preview card turns into a map of the version as soon as it is ready, before any click.
    await page.waitForSelector('#tileset-preview #map-preview[data-idle="true"]', { timeout: 20_000 });
    expect(await page.textContent("#tileset-preview h2")).toBe("Preview of v1");
    expect(await page.textContent("#tileset-preview")).not.toContain("A preview appears");
    await page.click('button[data-publish="1"]');
    await page.waitForSelector('#tileset-urls code[data-url="Stable"]');
    expect(await page.textContent('#tileset-urls code[data-url="Stable"]')).toBe(`${t.baseUrl}/tiles/v1/acme/parks.json`);
    expect(await page.textContent('#tileset-urls code[data-url="Versioned"]')).toBe(`${t.baseUrl}/tiles/v1/acme/parks@1.json`);
    await page.click("#verify-tilejson");
    await page.waitForSelector("#tilejson-check .alert-ok");
    // The tile URL template the TileJSON names can be copied for clients that take no TileJSON.
    expect(await page.textContent("#tile-url")).toBe(`${t.baseUrl}/tiles/v1/acme/parks@1/{z}/{x}/{y}.mvt`);
    await page.click("#tilejson-check button");
    await page.waitForSelector(".toast >> text=Tile URL copied to the clipboard");
    await page.waitForSelector(`#map-preview[data-idle="true"]`, { timeout: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS_DIR, "console-tileset.png"), fullPage: true });

    // A file that is not geodata fails visibly.
    const bad = join(dir, "broken.geojson");
    writeFileSync(bad, '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1]}}]}');
    await page.setInputFiles("#tileset-file", bad);
    await page.click("#upload-button");
    const failure = await page.waitForSelector('tr[data-version="2"][data-state="failed"] .version-error', { timeout: 20_000 });
    expect(await failure.textContent()).toContain("not an array of [longitude, latitude]");
    // The failed version can be deleted after a confirmation; the published one offers no delete.
    expect(await page.$('tr[data-version="1"] button.btn-danger')).toBeNull();
    await page.click('tr[data-version="2"] button.btn-danger');
    await page.waitForSelector("#confirm-dialog[open]");
    await page.click("#confirm-ok");
    await page.waitForSelector('tr[data-version="2"]', { state: "detached" });
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions/2", { headers: admin.headers })).status).toBe(404);

    // What was left out shows with the version: an invalid feature skipped, points shed from tiles over
    // a tiny byte limit, by zoom.
    const crowd = Array.from({ length: 3000 }, (_, i) => ({ type: "Feature", properties: { name: `spot ${i}` }, geometry: { type: "Point", coordinates: [(i % 60) / 6, Math.floor(i / 60) / 6] } }));
    const shed = await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions?tile_bytes=1024&point_spacing=0&maxzoom=2", {
      method: "POST",
      headers: admin.headers,
      body: JSON.stringify({ type: "FeatureCollection", features: [...crowd, { type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [999, 0] } }] }),
    });
    expect(shed.status).toBe(202);
    // A version caught mid-processing: its row as the worker leaves it between two progress reports.
    const tilesetId = t.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM tilesets WHERE slug = 'parks'").get()!.id;
    t.ctx.sqlite
      .query("INSERT INTO tileset_versions (tileset_id, version, state, progress, stats, created_at, updated_at) VALUES (?, 9, 'processing', 0.5, ?, ?, ?)")
      .run(tilesetId, JSON.stringify({ phase: "tiling", features: 3000, tiles: 40, rate: 1234, rate_unit: "tiles/s", eta_seconds: 75 }), Date.now(), Date.now());
    await page.reload();
    const dropped = await page.waitForSelector('tr[data-version="3"][data-state="ready"] .version-dropped', { timeout: 20_000 });
    const v3 = (await (await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions/3", { headers: admin.headers })).json()) as any;
    expect(await dropped.textContent()).toContain("1 skipped (invalid geometry)");
    expect(await dropped.textContent()).toContain(`placements shed for the tile byte limit (z0: ${v3.stats.dropped_by_size["0"].toLocaleString("en-US")}`);
    expect(await page.textContent('tr[data-version="9"] .version-progress')).toBe("tiling · 1,234 tiles/s · ETA 1 min 15 s");
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions/9", { method: "DELETE", headers: admin.headers })).status).toBe(204);
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/parks/versions/3", { method: "DELETE", headers: admin.headers })).status).toBe(204);

    // Style from the template; a bad draft lists the validator's problems with their paths.
    await page.click('#nav a[data-section="styles"]');
    await page.waitForSelector("#new-style-form:not([hidden])");
    await page.fill("#style-slug", "parks-map");
    await page.fill("#style-name", "Parks map");
    expect(await page.inputValue("#style-tileset")).toBe("parks");
    await page.click("#new-style-form button[type=submit]");
    await page.waitForSelector("#draft-json");
    const draft = JSON.parse(await page.inputValue("#draft-json"));
    expect(draft.sources.parks.url).toBe("mapstead://tilesets/acme/parks");
    expect(draft.layers.map((l: { type: string }) => l.type)).toEqual(expect.arrayContaining(["background", "fill", "line", "circle"]));
    const broken = structuredClone(draft);
    broken.layers[1].paint["fill-color"] = "not a colour";
    await page.fill("#draft-json", JSON.stringify(broken, null, 2));
    await page.click("#save-draft");
    await page.waitForSelector("#draft-errors li");
    expect(await page.textContent("#draft-errors li")).toContain("layers[1].paint.fill-color");
    await page.fill("#draft-json", JSON.stringify(draft, null, 2));
    await page.click("#save-draft");
    await page.waitForSelector("#draft-errors .alert-ok");

    // A key for static images, made elsewhere (its secret is not known to this page).
    const created = await t.fetch("/api/v1/orgs/acme/keys", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "newsletter", scopes: ["static_maps"] }) });
    expect(created.status).toBe(201);
    const imageKey = (await created.json()) as { key: { id: number; prefix: string }; secret: string };

    await page.click("#publish-style");
    await page.waitForSelector('#style-urls code[data-url="Stable"]');
    expect(await page.textContent('#style-urls code[data-url="Stable"]')).toBe(`${t.baseUrl}/styles/v1/acme/parks-map`);
    expect(await page.textContent('#style-urls code[data-url="Versioned"]')).toBe(`${t.baseUrl}/styles/v1/acme/parks-map@1`);

    // The live preview renders the published style: the canvas holds more than the background.
    await page.waitForSelector(`#map-preview[data-idle="true"][data-style="${t.baseUrl}/styles/v1/acme/parks-map"]`, { timeout: 20_000 });
    await page.screenshot({ path: join(ARTIFACTS_DIR, "console.png"), fullPage: false });

    const px = await canvasPixels(page, "#map-preview canvas");
    const total = px.width * px.height;
    // Anything but the background (#f4f1ea) is painted data.
    const painted = total - countColor(px, [0xf4, 0xf1, 0xea], 20);
    expect(painted).toBeGreaterThan(total * 0.05);
    expect(await page.textContent(".map-status")).toBe("Map loaded");

    // Static image panel: it opens at the style's own view (the template's centre on the parks, not 0,0)...
    expect(draft.center).toHaveLength(2);
    expect(Number(await page.inputValue("#static-lon"))).toBeCloseTo(draft.center[0], 4);
    expect(Number(await page.inputValue("#static-lat"))).toBeCloseTo(draft.center[1], 4);
    expect(Number(await page.inputValue("#static-zoom"))).toBeCloseTo(draft.zoom, 2);
    // ...or takes the preview's view, a size, @2x and an overlay; the server draws it with the session.
    await page.click("#static-use-map");
    await page.waitForSelector('#static-image-preview[data-loaded="true"]', { timeout: 20_000 });
    const [lon, lat, zoom] = await Promise.all(["#static-lon", "#static-lat", "#static-zoom"].map(async (id) => Number(await page.inputValue(id))));
    // The preview opened on the extent of the parks (20 W to 28 E, 10 S to 32 N).
    expect(lon).toBeGreaterThan(-20);
    expect(lon).toBeLessThan(28);
    expect(lat).toBeGreaterThan(-10);
    expect(lat).toBeLessThan(32);
    expect(zoom).toBeGreaterThan(0);
    await page.fill("#static-width", "300");
    await page.fill("#static-height", "200");
    await page.check("#static-retina");
    await page.fill("#static-overlay", `pin-l+f00(${lon},${lat})`);
    await page.click("#static-render");
    await page.waitForFunction(() => {
      const img = document.querySelector("#static-image-preview") as HTMLImageElement;
      return img.dataset.loaded === "true" && img.naturalWidth === 600;
    }, undefined, { timeout: 20_000 });
    const drawn = await page.evaluate(() => {
      const img = document.querySelector("#static-image-preview") as HTMLImageElement;
      const canvas = document.createElement("canvas");
      [canvas.width, canvas.height] = [img.naturalWidth, img.naturalHeight];
      const g = canvas.getContext("2d")!;
      g.drawImage(img, 0, 0);
      const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
      let painted = 0;
      let red = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (Math.abs(data[i]! - 0xf4) + Math.abs(data[i + 1]! - 0xf1) + Math.abs(data[i + 2]! - 0xea) > 30) painted++;
        if (data[i]! > 200 && data[i + 1]! < 60 && data[i + 2]! < 60) red++;
      }
      return { width: img.naturalWidth, height: img.naturalHeight, painted, red, total: data.length / 4 };
    });
    expect([drawn.width, drawn.height]).toEqual([600, 400]);
    expect(drawn.painted).toBeGreaterThan(drawn.total * 0.05);
    expect(drawn.red).toBeGreaterThan(100);
    await page.screenshot({ path: join(ARTIFACTS_DIR, "console-static-image.png"), fullPage: true });

    // The URL to copy: the overlay in the path, the key as a placeholder, the chosen key named by its prefix.
    const imageUrl = (await page.textContent("#static-url"))!;
    expect(imageUrl.startsWith(`${t.baseUrl}/static/v1/acme/parks-map/${encodeURIComponent(`pin-l+f00(${lon},${lat})`)}/${lon},${lat},${zoom}`)).toBe(true);
    expect(imageUrl.endsWith("/300x200@2x.png?access_token=YOUR_KEY")).toBe(true);
    expect(await page.inputValue("#static-key")).toBe(String(imageKey.key.id));
    const note = (await page.textContent("#static-key-note"))!;
    expect(note).toContain("newsletter");
    expect(note).toContain(imageKey.key.prefix);
    expect(await page.content()).not.toContain(imageKey.secret);
    // With the real secret in place of the placeholder, the URL is the same image for anyone.
    const viaKey = await fetch(imageUrl.replace("YOUR_KEY", encodeURIComponent(imageKey.secret)));
    expect(viaKey.status).toBe(200);
    expect(viaKey.headers.get("content-type")).toBe("image/png");
    expect(viaKey.headers.get("x-ratelimit-limit")).toBeTruthy();

    // A value the server refuses shows its message, naming the parameter.
    await page.fill("#static-zoom", "30");
    await page.click("#static-render");
    await page.waitForSelector("#static-status .alert-error");
    expect(await page.textContent("#static-status")).toContain("zoom 30");

    // Raster tiles of the same style for Leaflet, OpenLayers and QGIS.
    const template = (await page.textContent("#raster-template"))!;
    expect(template).toBe(`${t.baseUrl}/styles/v1/acme/parks-map/tiles/256/{z}/{x}/{y}.png`);
    const rasterTile = await fetch(template.replace("{z}/{x}/{y}", "0/0/0"));
    expect(rasterTile.status).toBe(200);
    expect(rasterTile.headers.get("content-type")).toBe("image/png");
    // The stable TileJSON lists the stable tiles, so a GIS layer follows new publishes.
    const tilejson = await fetch((await page.textContent("#raster-tilejson"))!);
    expect(((await tilejson.json()) as { tiles: string[] }).tiles).toEqual([template]);
    // And the WMTS capabilities, for a GIS that speaks WMTS, with the same tiles in its template.
    const wmts = await fetch((await page.textContent("#raster-wmts"))!);
    expect(wmts.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(await wmts.text()).toContain(`template="${template.replace("{z}/{x}/{y}", "{TileMatrix}/{TileCol}/{TileRow}")}"`);

    // Every unsafe request went to this origin; no request carried the secret; no CSP violation.
    for (const r of requests) expect(r).toContain(t.baseUrl);
    expect(requests.join("\n")).not.toContain(secret);
    expect(problems).toEqual([]);

    // Log out: back to the form, and the session is gone server-side.
    await page.click("#logout-button");
    await page.waitForSelector("#login-view:not([hidden])");
    const after = await page.evaluate(() => fetch("/api/v1/session").then((r) => r.status));
    expect(after).toBe(401);
  }, 60_000);

  test("an admin chooses the elevation DEM, sees its coverage and looks up a height through the elevation API", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const org = await t.fetch("/api/v1/orgs", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "relief" }) });
    expect(org.status).toBe(201);
    await createTileset(t, "relief", admin.headers, { slug: "alps", attribution: "Alps heights (CC0)" });
    const dem = join(tempDir("console-dem-"), "alps.mbtiles");
    demMbtiles(dem, "terrarium", 8, [7, 46, 8, 47], ramp, { declareEncoding: true });
    expect((await upload(t, "relief", "alps", admin.headers, new Uint8Array(readFileSync(dem)))).status).toBe(202);
    expect((await waitForVersion(t, "relief", "alps", 1, admin.headers)).state).toBe("ready");
    expect((await publish(t, "relief", "alps", 1, admin.headers)).status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
    const tab = await context.newPage();
    const seen: string[] = [];
    tab.on("pageerror", (e) => seen.push(`page error: ${e.message}`));
    tab.on("console", (m) => {
      if (m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) seen.push(`console: ${m.text()}`);
    });
    await tab.goto(`${t.baseUrl}/console#/relief/elevation`);
    await tab.fill("#login-email", admin.email);
    await tab.fill("#login-password", admin.password);
    await tab.click("#login-form button[type=submit]");
    await tab.waitForSelector("#elevation-backend");
    expect(await tab.textContent("#elevation-backend")).toContain("Nothing answers yet");
    expect(await tab.textContent("#elevation-dem")).toContain("No DEM tileset is chosen");

    // Choose the DEM: the page shows the embedded backend, the DEM's version, zooms and coverage.
    await tab.selectOption("#elevation-tileset", "relief/alps");
    await tab.click("#elevation-form button[type=submit]");
    await tab.waitForSelector("#elevation-dem [data-coverage]");
    expect(await tab.textContent("#elevation-backend")).toContain("The embedded DEM tileset relief/alps answers");
    const demText = (await tab.textContent("#elevation-dem"))!;
    expect(demText).toContain("relief/alps v1");
    expect(demText).toContain("terrarium (png tiles)");
    expect(demText).toContain("8–8");
    expect(await tab.textContent("#elevation-dem [data-coverage]")).toBe("7, 46, 8, 47");
    expect(await tab.inputValue("#elevation-tileset")).toBe("relief/alps");

    // The point query asks the real elevation API with the console session.
    await tab.fill("#elevation-lon", "7.5");
    await tab.fill("#elevation-lat", "46.5");
    await tab.click("#elevation-query button[type=submit]");
    const height = Number(await (await tab.waitForSelector("#elevation-result [data-height]")).getAttribute("data-height"));
    expect(Math.abs(height - ramp(7.5, 46.5))).toBeLessThan(0.5);
    expect(await tab.textContent("#elevation-result")).toContain("Alps heights (CC0)");
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    await tab.screenshot({ path: join(ARTIFACTS_DIR, "console-elevation.png"), fullPage: true });
    // Outside the DEM the API's 404 is shown, not a height.
    await tab.fill("#elevation-lon", "20");
    await tab.click("#elevation-query button[type=submit]");
    await tab.waitForSelector("#elevation-result .alert-error");
    expect(await tab.textContent("#elevation-result")).toContain("No elevation data");

    // Back to none: the API answers 503 again, as the page says.
    await tab.selectOption("#elevation-tileset", "");
    await tab.click("#elevation-form button[type=submit]");
    await tab.waitForSelector("#elevation-dem >> text=No DEM tileset is chosen");
    expect(seen).toEqual([]);
    await context.close();
  }, 60_000);
  test("the Geocoding panel: datasets, a GeoNames upload followed to the end, search results on the map, delete", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true, email: "geo-admin@example.com" });
    const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
    const geo = await context.newPage();
    const logged: string[] = [];
    geo.on("pageerror", (e) => logged.push(`page error: ${e.message}`));
    geo.on("console", (m) => {
      // The refused tileset import below answers 404, which the browser logs as a failed resource.
      if (m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) logged.push(`console: ${m.text()}`);
    });
    await geo.goto(`${t.baseUrl}/console`);
    await geo.fill("#login-email", admin.email);
    await geo.fill("#login-password", admin.password);
    await geo.click("#login-form button[type=submit]");
    await geo.click('#nav a[data-section="geocoding"]');
    // The first visit builds the gazetteer from the built-in data.
    await geo.waitForSelector('#gazetteer-datasets tr[data-dataset="geonames-cities1000"]', { timeout: 60_000 });
    expect(await geo.textContent('#gazetteer-datasets tr[data-dataset="regions"]')).toContain("iso3166-2-db");
    expect(await geo.$('button[data-delete="geonames-cities1000"]')).toBeNull();

    // Upload a GeoNames file: the import runs as a job and the page follows it to the end.
    await geo.fill("#gazetteer-dataset", "swiss");
    await geo.setInputFiles("#gazetteer-file", { name: "CH.txt", mimeType: "text/plain", buffer: Buffer.from(VILLAGES_TSV) });
    await geo.click("#gazetteer-upload-form button[type=submit]");
    await geo.waitForSelector('#gazetteer-datasets tr[data-dataset="swiss"]', { timeout: 30_000 });
    expect(await geo.textContent('#gazetteer-datasets tr[data-dataset="swiss"]')).toContain("3");
    expect(await geo.textContent("#gazetteer-imports")).toContain("CH.txt → swiss (add): done, 3 lines, 3 places");

    // A tileset that does not exist is refused with the API's message, and nothing is queued.
    await geo.fill("#gazetteer-tileset", "nobody/nothing");
    await geo.fill("#gazetteer-name-field", "name");
    await geo.fill("#gazetteer-dataset", "");
    await geo.click("#gazetteer-tileset-form button[type=submit]");
    await geo.waitForSelector("#gazetteer-import-error:not([hidden])");
    expect(await geo.textContent("#gazetteer-import-error")).toContain("does not exist or has no published version");

    // Search: the results are listed and drawn on the map.
    await geo.fill("#gazetteer-search", "Hintertupfingen");
    await geo.click("#gazetteer-search-form button[type=submit]");
    await geo.waitForSelector("#gazetteer-results li");
    expect(await geo.textContent("#gazetteer-results li")).toContain("Hintertupfingen, Canton of Zurich, Switzerland");
    await geo.waitForSelector('#map-preview[data-idle="true"]', { timeout: 20_000 });
    const px = await canvasPixels(geo, "#map-preview canvas");
    expect(countColor(px, [0xd9, 0x48, 0x0f], 30)).toBeGreaterThan(20);

    // Delete the dataset after confirming.
    await geo.click('button[data-delete="swiss"]');
    await geo.waitForSelector("#confirm-dialog[open]");
    await geo.click("#confirm-ok");
    await geo.waitForSelector('#gazetteer-datasets tr[data-dataset="swiss"]', { state: "detached" });
    expect(logged).toEqual([]);
    await context.close();
  }, 120_000);

  test("a plain member sees no admin sections or key form, and an ended session returns to sign-in", async () => {
    const org = await t.fetch("/api/v1/orgs", { method: "POST", headers: { ...(await seedSession(t.ctx, { isAdmin: true })).headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "team" }) });
    expect(org.status).toBe(201);
    const orgId = t.ctx.sqlite.query<{ id: number }, [string]>("SELECT id FROM orgs WHERE slug = ?").get("team")!.id;
    const member = await seedSession(t.ctx, { orgId, role: "member", email: "member@example.com" });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const first = await context.newPage();
    await first.goto(`${t.baseUrl}/console#/team/keys`);
    await first.fill("#login-email", member.email);
    await first.fill("#login-password", member.password);
    await first.click("#login-form button[type=submit]");
    await first.waitForSelector(".main .alert-info");
    expect(await first.textContent(".main .alert-info")).toContain("Only owners and admins");
    expect(await first.isVisible("#new-key-form")).toBe(false);
    expect(await first.isVisible('#nav a[data-section="fonts"]')).toBe(false);
    expect(await first.isVisible('#nav a[data-section="setup"]')).toBe(false);
    expect(await first.isVisible('#nav a[data-section="elevation"]')).toBe(false);
    expect(await first.isVisible('#nav a[data-section="geocoding"]')).toBe(false);
    await first.click('#nav a[data-section="members"]');
    await first.waitForSelector('tr[data-member="member@example.com"]');
    expect(await first.$("#add-member-form")).toBeNull();

    // Signing out in another tab ends the session: the next action in this tab asks to sign in again.
    const second = await context.newPage();
    await second.goto(`${t.baseUrl}/console`);
    await second.click("#logout-button");
    await second.waitForSelector("#login-view:not([hidden])");
    await first.click('#nav a[data-section="tilesets"]');
    await first.waitForSelector("#login-view:not([hidden])");
    expect(await first.textContent("#login-error")).toContain("session ended");
    await context.close();
  }, 30_000);
});

test("the compiled binary embeds the console page, every module and stylesheet, and MapLibre", async () => {
  const app = await startBinary();
  try {
    const page = await app.fetch("/console");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    const root = join(import.meta.dir, "..", "..");
    const sources: Record<string, string> = {
      ...Object.fromEntries(consoleFilesOnDisk().map((f) => [f, join(CONSOLE_DIR, f)])),
      "maplibre-gl.mjs": join(root, "node_modules/maplibre-gl/dist/maplibre-gl.mjs"),
      "maplibre-gl-worker.mjs": join(root, "node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs"),
      "maplibre-gl-shared.mjs": join(root, "node_modules/maplibre-gl/dist/maplibre-gl-shared.mjs"),
      "maplibre-gl.css": join(root, "node_modules/maplibre-gl/dist/maplibre-gl.css"),
    };
    expect(Object.keys(sources)).toContain("lib/api.js");
    for (const [name, source] of Object.entries(sources)) {
      const res = await app.fetch(`/console/assets/${name}`);
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(await Bun.file(source).arrayBuffer()))).toBe(true);
    }
  } finally {
    await app.stop();
  }
}, 120_000);

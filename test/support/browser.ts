// Real map clients for tests: Debian's chromium driven by playwright-core, MapLibre GL JS rendering
// with WebGL through SwiftShader, OpenLayers (with ol-mapbox-style) and Leaflet drawing on 2D canvases
// and <img> tiles. A small harness server serves the clients from node_modules, so pages load nothing
// from the internet.
import { chromium, type Browser, type Page } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { readPng } from "../../src/sprites/png";

const ROOT = join(import.meta.dir, "..", "..");
const MAPLIBRE_DIR = join(ROOT, "node_modules", "maplibre-gl", "dist");
// The UMD builds: ol.js is OpenLayers' full build (global `ol`), olms.js ol-mapbox-style's, which takes
// its OpenLayers from that global (global `olms`); leaflet.js defines `L`.
const CLIENT_FILES: Record<string, [string, string]> = {
  "/ol/ol.js": [join(ROOT, "node_modules", "ol", "dist", "ol.js"), "text/javascript"],
  "/ol/ol.css": [join(ROOT, "node_modules", "ol", "ol.css"), "text/css"],
  "/ol/olms.js": [join(ROOT, "node_modules", "ol-mapbox-style", "dist", "olms.js"), "text/javascript"],
  "/leaflet/leaflet.js": [join(ROOT, "node_modules", "leaflet", "dist", "leaflet.js"), "text/javascript"],
  "/leaflet/leaflet.css": [join(ROOT, "node_modules", "leaflet", "dist", "leaflet.css"), "text/css"],
};
export const ARTIFACTS_DIR = join(ROOT, "test-artifacts");

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--ignore-gpu-blocklist",
];

export function chromiumPath(): string {
  const path = Bun.which("chromium") ?? Bun.which("chromium-browser");
  if (!path) throw new Error("chromium is not installed: apt-get install -y chromium (bun run test does this as root)");
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}

let harness: { url: string; stop(): void } | null = null;

/** Serves MapLibre's dist files and /map.html, OpenLayers' and Leaflet's with /ol.html and /leaflet.html (one harness per test process). */
export function harnessUrl(): string {
  if (harness) return harness.url;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const { pathname } = new URL(req.url);
      // MapLibre 6 ships ES modules only; the page imports them and they load their worker relatively.
      const asset = /^\/(maplibre-gl[a-z-]*\.(mjs|css))$/.exec(pathname);
      if (asset) return new Response(Bun.file(join(MAPLIBRE_DIR, asset[1]!)), { headers: { "content-type": asset[2] === "css" ? "text/css" : "text/javascript" } });
      if (pathname === "/map.html") return new Response(MAP_HTML, { headers: { "content-type": "text/html; charset=utf-8" } });
      const client = CLIENT_FILES[pathname];
      if (client) return new Response(Bun.file(client[0]), { headers: { "content-type": client[1] } });
      if (pathname === "/ol.html") return new Response(OL_HTML, { headers: { "content-type": "text/html; charset=utf-8" } });
      if (pathname === "/leaflet.html") return new Response(LEAFLET_HTML, { headers: { "content-type": "text/html; charset=utf-8" } });
      return new Response("not found", { status: 404 });
    },
  });
  harness = { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
  return harness.url;
}

/** Stops the harness server (scripts outside `bun test`, such as benches, would otherwise never exit). */
export function stopHarness(): void {
  harness?.stop();
  harness = null;
}

const MAP_HTML = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/maplibre-gl.css">
<style>html,body,#map{margin:0;width:100%;height:100%}</style>
</head><body><div id="map"></div>
<script type="module">
import * as maplibregl from "/maplibre-gl.mjs";
window.maplibregl = maplibregl;
window.mapErrors = [];
window.openMap = (options) => new Promise((resolve) => {
  const map = new maplibregl.Map({ container: "map", fadeDuration: 0, attributionControl: false, canvasContextAttributes: { preserveDrawingBuffer: true }, ...options });
  window.map = map;
  map.on("error", (e) => window.mapErrors.push(String(e && e.error && e.error.message || e && e.error || e)));
  map.once("idle", () => resolve(true));
});
</script></body></html>`;

export interface MapPage {
  page: Page;
  /** map "error" events */
  mapErrors(): Promise<string[]>;
  /** requests that failed or answered >= 400 */
  failedRequests: string[];
  /** every request URL the page made */
  requests: string[];
  /** RGBA pixels of the map canvas */
  pixels(): Promise<{ width: number; height: number; data: Uint8Array }>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface OpenMapOptions {
  style: string | object;
  center?: [number, number];
  zoom?: number;
  width?: number;
  height?: number;
  /** extra headers for requests to the appliance (e.g. X-API-Key); sent via transformRequest */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Opens a page, creates a MapLibre map with the style and waits until it is idle (everything loaded). */
export async function openMap(browser: Browser, opts: OpenMapOptions): Promise<MapPage> {
  const page = await browser.newPage({ viewport: { width: opts.width ?? 800, height: opts.height ?? 600 }, deviceScaleFactor: 1 });
  const failedRequests: string[] = [];
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("requestfailed", (r) => failedRequests.push(`${r.url()} (${r.failure()?.errorText})`));
  page.on("response", (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()} (HTTP ${r.status()})`);
  });
  await page.goto(`${harnessUrl()}/map.html`);
  await page.waitForFunction(() => typeof (window as any).openMap === "function");
  const headers = opts.headers ?? {};
  await page.evaluate(
    ({ style, center, zoom, headers, timeoutMs }) => {
      const transformRequest = Object.keys(headers).length ? (url: string) => ({ url, headers }) : undefined;
      return Promise.race([
        (window as any).openMap({ style, center, zoom, transformRequest }),
        new Promise((_, reject) => setTimeout(() => reject(new Error("map did not become idle")), timeoutMs)),
      ]);
    },
    { style: opts.style as any, center: opts.center ?? [0, 0], zoom: opts.zoom ?? 1, headers, timeoutMs: opts.timeoutMs ?? 30_000 },
  );
  return {
    page,
    failedRequests,
    requests,
    mapErrors: () => page.evaluate(() => (window as any).mapErrors as string[]),
    pixels: () => canvasPixels(page, "#map canvas"),
    async screenshot(name) {
      mkdirSync(ARTIFACTS_DIR, { recursive: true });
      const path = join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
    close: () => page.close(),
  };
}

/** RGBA pixels of a WebGL canvas on the page (copied through a 2D canvas, as MapLibre draws it). */
export async function canvasPixels(page: Page, selector: string): Promise<{ width: number; height: number; data: Uint8Array }> {
  const r = await page.evaluate((sel) => {
    const src = document.querySelector(sel) as HTMLCanvasElement;
    const c = document.createElement("canvas");
    c.width = src.width;
    c.height = src.height;
    const g = c.getContext("2d")!;
    g.drawImage(src, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let s = "";
    for (let i = 0; i < d.length; i += 0x8000) s += String.fromCharCode(...d.subarray(i, i + 0x8000));
    return { width: c.width, height: c.height, b64: btoa(s) };
  }, selector);
  return { width: r.width, height: r.height, data: new Uint8Array(Buffer.from(r.b64, "base64")) };
}

/** How many pixels are within `tolerance` of an RGB colour. */
export function countColor(px: { data: Uint8Array }, rgb: [number, number, number], tolerance = 12): number {
  let n = 0;
  const d = px.data;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs(d[i]! - rgb[0]) <= tolerance && Math.abs(d[i + 1]! - rgb[1]) <= tolerance && Math.abs(d[i + 2]! - rgb[2]) <= tolerance) n++;
  }
  return n;
}

/** RGBA pixels of what the page shows (a screenshot): OpenLayers and ol-mapbox-style draw the background in a
 *  div and each layer on its own canvas, and Leaflet's tiles are <img> elements, so the screen is what counts. */
export async function screenPixels(page: Page): Promise<{ width: number; height: number; data: Uint8Array }> {
  const image = readPng(new Uint8Array(await page.screenshot({ type: "png" })), { pixels: true });
  return { width: image.width, height: image.height, data: image.data! };
}

/** The colour at (x, y). */
export function pixelAt(px: { width: number; data: Uint8Array }, x: number, y: number): [number, number, number] {
  const i = (y * px.width + x) * 4;
  return [px.data[i]!, px.data[i + 1]!, px.data[i + 2]!];
}

export interface ClientPage {
  page: Page;
  /** requests that failed or answered >= 400 */
  failedRequests: string[];
  /** every request URL the page made */
  requests: string[];
  /** errors the client reported (tile load errors, style errors, page errors) */
  clientErrors(): Promise<string[]>;
  /** RGBA pixels of the screen */
  pixels(): Promise<{ width: number; height: number; data: Uint8Array }>;
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

async function clientPage(browser: Browser, path: string, ready: string, width: number, height: number) {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  const failedRequests: string[] = [];
  const requests: string[] = [];
  const pageErrors: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("requestfailed", (r) => failedRequests.push(`${r.url()} (${r.failure()?.errorText})`));
  page.on("response", (r) => {
    if (r.status() >= 400) failedRequests.push(`${r.url()} (HTTP ${r.status()})`);
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(`${harnessUrl()}${path}`);
  await page.waitForFunction((fn) => typeof (window as any)[fn] === "function", ready);
  const result: ClientPage = {
    page,
    failedRequests,
    requests,
    clientErrors: async () => [...pageErrors, ...(await page.evaluate(() => (window as any).clientErrors as string[]))],
    pixels: () => screenPixels(page),
    async screenshot(name) {
      mkdirSync(ARTIFACTS_DIR, { recursive: true });
      const file = join(ARTIFACTS_DIR, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    close: () => page.close(),
  };
  return result;
}

export interface OpenLayersOptions {
  /** a Mapbox/MapLibre style URL */
  styleUrl: string;
  /**
   * "apply": olms.apply(map, styleUrl) (every layer of the style); "layer": one MapboxVectorLayer of
   * `source`; "wmts": `styleUrl` is a WMTS capabilities URL, and `source` the layer shown from it;
   * "tilejson": `styleUrl` is a raster TileJSON URL, shown in an ol.source.TileJSON
   */
  mode?: "apply" | "layer" | "wmts" | "tilejson";
  source?: string;
  center?: [number, number];
  zoom?: number;
  width?: number;
  height?: number;
  /** extra headers for every request ol-mapbox-style makes (style, TileJSON, tiles, sprites), via its transformRequest */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Opens a page with an OpenLayers map of a style URL through ol-mapbox-style and waits until every tile is drawn. */
export async function openOpenLayers(browser: Browser, opts: OpenLayersOptions): Promise<ClientPage> {
  const client = await clientPage(browser, "/ol.html", "openOl", opts.width ?? 800, opts.height ?? 600);
  await client.page.evaluate(
    ({ timeoutMs, ...options }) =>
      Promise.race([(window as any).openOl(options), new Promise((_, reject) => setTimeout(() => reject(new Error("OpenLayers map did not finish rendering")), timeoutMs))]),
    { styleUrl: opts.styleUrl, mode: opts.mode ?? "apply", source: opts.source, center: opts.center ?? [0, 0], zoom: opts.zoom ?? 1, headers: opts.headers ?? {}, timeoutMs: opts.timeoutMs ?? 30_000 },
  );
  return client;
}

export interface LeafletOptions {
  /** an L.tileLayer URL template */
  url: string;
  tileSize?: number;
  zoomOffset?: number;
  center?: [number, number];
  zoom?: number;
  width?: number;
  height?: number;
  timeoutMs?: number;
}

/** Opens a page with a Leaflet map of one L.tileLayer and waits for the layer's `load` (every visible tile loaded). */
export async function openLeaflet(browser: Browser, opts: LeafletOptions): Promise<ClientPage & { tiles(): Promise<{ loaded: { src: string; width: number; height: number }[]; errors: string[] }> }> {
  const client = await clientPage(browser, "/leaflet.html", "openLeaflet", opts.width ?? 512, opts.height ?? 512);
  await client.page.evaluate(
    ({ timeoutMs, ...options }) =>
      Promise.race([(window as any).openLeaflet(options), new Promise((_, reject) => setTimeout(() => reject(new Error("Leaflet tile layer did not load")), timeoutMs))]),
    { url: opts.url, tileSize: opts.tileSize ?? 256, zoomOffset: opts.zoomOffset ?? 0, center: opts.center ?? [0, 0], zoom: opts.zoom ?? 1, timeoutMs: opts.timeoutMs ?? 60_000 },
  );
  return { ...client, tiles: () => client.page.evaluate(() => (window as any).tileEvents) };
}

const OL_HTML = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/ol/ol.css">
<style>html,body,#map{margin:0;width:100%;height:100%}</style>
<script src="/ol/ol.js"></script><script src="/ol/olms.js"></script>
</head><body><div id="map"></div>
<script>
window.clientErrors = [];
const rendered = (map) => new Promise((resolve) => map.once("rendercomplete", resolve));
window.openOl = async ({ styleUrl, mode, source, center, zoom, headers }) => {
  const map = new ol.Map({ target: "map", controls: [], interactions: [], pixelRatio: 1, view: new ol.View({ center: ol.proj.fromLonLat(center), zoom }) });
  window.map = map;
  // ol-mapbox-style loads CSS web fonts for text (from a CDN unless told otherwise); the page is offline.
  const options = { webfonts: "data:text/css," };
  if (Object.keys(headers).length) options.transformRequest = (url) => new Request(url, { headers });
  if (mode === "layer") {
    const layer = new olms.MapboxVectorLayer({ styleUrl, source, ...options });
    layer.on("error", (e) => window.clientErrors.push("layer: " + (e.error && e.error.message || e)));
    map.addLayer(layer);
    await new Promise((resolve, reject) => {
      const check = () => { const s = layer.getSource().getState(); if (s === "ready") resolve(); else if (s === "error") reject(new Error("MapboxVectorLayer source error: " + window.clientErrors.join("; "))); };
      layer.getSource().on("change", check);
      check();
    });
  } else if (mode === "wmts") {
    // OpenLayers' own WMTS client: the capabilities parsed by its reader, the layer set up from them.
    const capabilities = new ol.format.WMTSCapabilities().read(await (await fetch(styleUrl)).text());
    const wmtsOptions = ol.source.WMTS.optionsFromCapabilities(capabilities, { layer: source });
    if (!wmtsOptions) throw new Error("no layer " + source + " in the WMTS capabilities");
    map.addLayer(new ol.layer.Tile({ source: new ol.source.WMTS(wmtsOptions) }));
  } else if (mode === "tilejson") {
    // A raster TileJSON in OpenLayers' TileJSON source.
    const source = new ol.source.TileJSON({ url: styleUrl, crossOrigin: "anonymous" });
    map.addLayer(new ol.layer.Tile({ source }));
    await new Promise((resolve, reject) => {
      const check = () => { const s = source.getState(); if (s === "ready") resolve(); else if (s === "error") reject(new Error("TileJSON source error")); };
      source.on("change", check);
      check();
    });
  } else {
    await olms.apply(map, styleUrl, options);
  }
  map.getAllLayers().forEach((l) => {
    const s = l.getSource && l.getSource();
    if (s && s.on) s.on("tileloaderror", (e) => window.clientErrors.push("tile " + e.tile.getTileCoord().join("/")));
  });
  // Wait until two renders in a row complete with every tile of the view loaded (sprites arrive after the style).
  await rendered(map);
  map.render();
  await rendered(map);
  return true;
};
</script></body></html>`;

const LEAFLET_HTML = `<!doctype html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="/leaflet/leaflet.css">
<style>html,body,#map{margin:0;width:100%;height:100%}</style>
<script src="/leaflet/leaflet.js"></script>
</head><body><div id="map"></div>
<script>
window.clientErrors = [];
window.tileEvents = { loaded: [], errors: [] };
window.openLeaflet = ({ url, tileSize, zoomOffset, center, zoom }) => new Promise((resolve) => {
  const map = L.map("map", { zoomControl: false, attributionControl: false, fadeAnimation: false, zoomAnimation: false, markerZoomAnimation: false });
  map.setView([center[1], center[0]], zoom);
  const layer = L.tileLayer(url, { tileSize, zoomOffset, maxZoom: 22 });
  layer.on("tileload", (e) => window.tileEvents.loaded.push({ src: e.tile.src, width: e.tile.naturalWidth, height: e.tile.naturalHeight }));
  layer.on("tileerror", (e) => { window.tileEvents.errors.push(e.tile.src); window.clientErrors.push("tile " + e.tile.src); });
  layer.on("load", () => resolve(true));
  layer.addTo(map);
  window.map = map;
});
</script></body></html>`;

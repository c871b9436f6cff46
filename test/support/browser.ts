// Real map clients for tests: Debian's chromium driven by playwright-core, MapLibre GL JS rendering
// with WebGL through SwiftShader. A small harness server serves MapLibre from node_modules, so pages
// load nothing from the internet.
import { chromium, type Browser, type Page } from "playwright-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const MAPLIBRE_DIR = join(ROOT, "node_modules", "maplibre-gl", "dist");
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

/** Serves MapLibre's dist files and /map.html (one harness per test process). */
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

// Static images (`bun run bench static`): a 512x512 PNG of a published world style (countries, cities,
// labels) through the full HTTP path, p50/p95 one at a time, and images per second per core with every
// render worker busy. The baseline, in the same run and over the same views: MapLibre GL JS in headless
// Chromium (SwiftShader WebGL, as on a server without a GPU) drawing the same style, the way
// puppeteer-based static map services do it with a warm browser and page: jumpTo the view, wait for
// "idle" (every tile loaded and drawn), then take the image out as PNG bytes in this process, either
// as a screenshot of the map element (Playwright's locator.screenshot, like puppeteer's
// elementHandle.screenshot) or as canvas.toDataURL("image/png") handed back and decoded from base64.
// The faster of the two is the baseline; a fresh page per image (what many such services do) is shown
// too. The sides take turns view by view, so a burst of load on this shared machine hits both alike.
// Targets (issue 10): p50 under 150 ms, at least 5x faster than Chromium.
import type { Page } from "playwright-core";
import { serveTestApp } from "../test/support/app";
import { launchBrowser, openMap, stopHarness } from "../test/support/browser";
import { buildWorld } from "../test/read/render/world";
import { chromiumImage, type Capture, median, percentile, QUICK, report } from "./lib";

interface View {
  lon: number;
  lat: number;
  zoom: number;
}

const SIZE = 512;
const SAMPLES = QUICK ? 8 : 24;
/** Warm-up images per render worker and per Chromium page: JIT and WebAssembly tiers settle on both sides. */
const WARM_UP = QUICK ? 3 : 8;
// One process, as `WORKERS=1 mapstead serve`: its render pool gets every core.
const app = await serveTestApp({ WORKERS: "1" });
const world = await buildWorld(app);
const headers = { "x-api-key": world.staticKey };
const styleUrl = `${app.baseUrl}/styles/v1/acme/world`;

/** World-level and regional views over land and sea; `salt` gives sets that never meet. */
function views(count: number, salt: number): View[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1 + salt * 1000;
    return {
      lon: Number((-150 + ((n * 47.3) % 300)).toFixed(4)),
      lat: Number((-50 + ((n * 23.9) % 110)).toFixed(4)),
      zoom: Number((1 + ((n * 0.7) % 4)).toFixed(2)),
    };
  });
}

/** Mapstead: one static image over HTTP, every byte read. */
async function mapstead(v: View): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${app.baseUrl}/static/v1/acme/world/${v.lon},${v.lat},${v.zoom}/${SIZE}x${SIZE}.png`, { headers });
  const bytes = await res.bytes();
  if (res.status !== 200 || bytes.length < 1000) throw new Error(`static image: HTTP ${res.status}`);
  return performance.now() - started;
}

function line(label: string, times: number[]): void {
  console.log(`  ${label}: p50 ${median(times).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms (${times.length} images)`);
}

const browser = await launchBrowser();
try {
  const cores = app.ctx.config.renderWorkers;
  console.log(`  ${SAMPLES} views of ${SIZE}x${SIZE} at zoom 1-5, the same for every side, taken in turns, after ${WARM_UP} warm-up images per worker and page`);
  console.log("  mapstead: GET /static/v1/... over HTTP (style, tiles, labels, render worker, PNG), bytes read");
  console.log("  chromium: MapLibre GL JS, warm page: jumpTo + wait for idle + PNG bytes back (screenshot or toDataURL)");

  // Warm-up on views outside the measured set: worker threads, WebAssembly, fonts; page, MapLibre, style.
  const warm = views(WARM_UP * cores, 1);
  await Promise.all(Array.from({ length: cores }, async (_, w) => {
    for (let i = w; i < warm.length; i += cores) await mapstead(warm[i]!);
  }));
  const pages: Record<Capture, Page> = {
    screenshot: (await openMap(browser, { style: styleUrl, width: SIZE, height: SIZE, center: [0, 0], zoom: 1, timeoutMs: 120_000 })).page,
    dataUrl: (await openMap(browser, { style: styleUrl, width: SIZE, height: SIZE, center: [0, 0], zoom: 1, timeoutMs: 120_000 })).page,
  };
  for (const capture of ["screenshot", "dataUrl"] as const) for (const v of warm.slice(0, WARM_UP)) await chromiumImage(pages[capture], v, capture);

  const ours: number[] = [];
  const theirs: Record<Capture, number[]> = { screenshot: [], dataUrl: [] };
  for (const v of views(SAMPLES, 0)) {
    ours.push(await mapstead(v));
    theirs.screenshot.push(await chromiumImage(pages.screenshot, v, "screenshot"));
    theirs.dataUrl.push(await chromiumImage(pages.dataUrl, v, "dataUrl"));
  }
  for (const page of Object.values(pages)) await page.close();

  // Many puppeteer services open a fresh page per image: page, MapLibre, style, tiles, PNG.
  const fresh: number[] = [];
  for (const v of views(QUICK ? 2 : 4, 2)) {
    const started = performance.now();
    const map = await openMap(browser, { style: styleUrl, width: SIZE, height: SIZE, center: [v.lon, v.lat], zoom: v.zoom, timeoutMs: 120_000 });
    await map.page.locator("#map").screenshot({ type: "png" });
    fresh.push(performance.now() - started);
    await map.close();
  }

  // Throughput: every render worker busy, new views so the image cache never answers.
  const busy = views(cores * (QUICK ? 3 : 6), 3);
  const busyStarted = performance.now();
  await Promise.all(Array.from({ length: cores }, async (_, w) => {
    for (let i = w; i < busy.length; i += cores) await mapstead(busy[i]!);
  }));
  const perCore = busy.length / ((performance.now() - busyStarted) / 1000) / cores;

  line("mapstead", ours);
  line("chromium + MapLibre GL JS, warm page, element screenshot", theirs.screenshot);
  line("chromium + MapLibre GL JS, warm page, canvas.toDataURL", theirs.dataUrl);
  line("chromium + MapLibre GL JS, fresh page per image, element screenshot", fresh);
  console.log(`  mapstead: ${cores} render workers busy: ${(perCore * cores).toFixed(1)} images/s`);

  const p50 = median(ours);
  const chromiumP50 = Math.min(median(theirs.screenshot), median(theirs.dataUrl));
  report("static 512x512 p50", p50, "ms", "< 150");
  report("static 512x512 p95", percentile(ours, 95), "ms");
  report("static images per second per core", perCore, "images/s");
  report("speed-up over MapLibre GL JS in Chromium, warm page, faster capture (p50)", chromiumP50 / p50, "x", ">= 5");
  report("speed-up over MapLibre GL JS in Chromium, fresh page per image (p50)", median(fresh) / p50, "x", ">= 5");
} finally {
  await browser.close();
  stopHarness();
  await app.close();
}

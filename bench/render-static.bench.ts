// Static images (`bun run bench static`): a 512x512 PNG of a published world style (countries, cities,
// labels) through the full HTTP path, at views that never repeat (so the image cache never answers):
// p50/p95 one at a time, and renders per second per worker with every worker busy. The baseline, in the
// same run: MapLibre GL JS in headless Chromium drawing the same style at the same views and reading the
// canvas back as PNG (what puppeteer-based static map services do), with a warm page (their best case)
// and with a fresh page per image (what many of them do).
// Targets (issue 10): p50 under 150 ms, at least 5x faster than Chromium.
import { serveTestApp } from "../test/support/app";
import { launchBrowser, openMap } from "../test/support/browser";
import { buildWorld } from "../test/read/render/world";
import { median, percentile, QUICK, report } from "./lib";

const SIZE = 512;
const SAMPLES = QUICK ? 8 : 24;
// One process, as `WORKERS=1 mapstead serve`: its render pool gets every core.
const app = await serveTestApp({ WORKERS: "1" });
const world = await buildWorld(app);
const headers = { "x-api-key": world.staticKey };

/** A view nobody asked for before: world-level and regional zooms over land and sea. */
let n = 0;
function nextView(): { lon: number; lat: number; zoom: number } {
  n++;
  const lon = -150 + ((n * 47.3) % 300);
  const lat = -50 + ((n * 23.9) % 110);
  const zoom = 1 + ((n * 0.7) % 4);
  return { lon: Number(lon.toFixed(4)), lat: Number(lat.toFixed(4)), zoom: Number(zoom.toFixed(2)) };
}

async function renderOnce(): Promise<number> {
  const v = nextView();
  const started = performance.now();
  const res = await fetch(`${app.baseUrl}/static/v1/acme/world/${v.lon},${v.lat},${v.zoom}/${SIZE}x${SIZE}.png`, { headers });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`static image: HTTP ${res.status}`);
  return performance.now() - started;
}

try {
  // Warm the workers (thread start, WebAssembly compile, fonts) before measuring.
  const workers = app.ctx.config.renderWorkers;
  await Promise.all(Array.from({ length: workers }, () => renderOnce()));

  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await renderOnce());
  const p50 = median(times);
  console.log(`  mapstead: ${SAMPLES} images of ${SIZE}x${SIZE}, p50 ${p50.toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms`);

  const busyStarted = performance.now();
  const perWorker = QUICK ? 3 : 6;
  await Promise.all(Array.from({ length: workers }, async () => {
    for (let i = 0; i < perWorker; i++) await renderOnce();
  }));
  const rps = (workers * perWorker) / ((performance.now() - busyStarted) / 1000);
  console.log(`  mapstead: ${workers} workers busy: ${rps.toFixed(2)} images/s`);

  const browser = await launchBrowser();
  const chromium: number[] = [];
  const coldChromium: number[] = [];
  try {
    const map = await openMap(browser, { style: `${app.baseUrl}/styles/v1/acme/world`, width: SIZE, height: SIZE, center: [0, 0], zoom: 1, timeoutMs: 120_000 });
    for (let i = 0; i < Math.min(SAMPLES, 12); i++) {
      const v = nextView();
      const started = performance.now();
      await map.page.evaluate(
        (view) =>
          new Promise<number>((resolve) => {
            const m = (window as any).map;
            m.once("idle", () => resolve(m.getCanvas().toDataURL("image/png").length));
            m.jumpTo({ center: [view.lon, view.lat], zoom: view.zoom });
          }),
        v,
      );
      chromium.push(performance.now() - started);
    }
    await map.close();
    // Many puppeteer services open a fresh page per image: page, MapLibre, style, tiles, PNG.
    for (let i = 0; i < (QUICK ? 2 : 4); i++) {
      const v = nextView();
      const started = performance.now();
      const fresh = await openMap(browser, { style: `${app.baseUrl}/styles/v1/acme/world`, width: SIZE, height: SIZE, center: [v.lon, v.lat], zoom: v.zoom, timeoutMs: 120_000 });
      await fresh.page.evaluate(() => (window as any).map.getCanvas().toDataURL("image/png").length);
      coldChromium.push(performance.now() - started);
      await fresh.close();
    }
  } finally {
    await browser.close();
  }
  const chromiumP50 = median(chromium);
  console.log(`  chromium + MapLibre GL JS (warm page, jumpTo + idle + PNG): p50 ${chromiumP50.toFixed(0)} ms, p95 ${percentile(chromium, 95).toFixed(0)} ms`);

  console.log(`  chromium + MapLibre GL JS (fresh page per image): p50 ${median(coldChromium).toFixed(0)} ms`);

  report("static 512x512 p50", p50, "ms", "< 150");
  report("static 512x512 p95", percentile(times, 95), "ms");
  report("static images per second per worker", rps / workers, "images/s");
  report("speed-up over MapLibre GL JS in Chromium, warm page (p50)", chromiumP50 / p50, "x", ">= 5");
  report("speed-up over MapLibre GL JS in Chromium, fresh page per image (p50)", median(coldChromium) / p50, "x", ">= 5");
} finally {
  await app.close();
}

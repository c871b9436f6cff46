// Relief maps (`bun run bench relief`): static images and raster tiles of a style that shades a raster-DEM
// tileset (hillshade over color-relief), through the full HTTP path. The baseline, in the same run and
// over the same views: MapLibre GL JS in headless Chromium drawing the same published style in a warm
// page (jumpTo, wait for "idle", canvas.toDataURL back as PNG bytes), as render-static.bench.ts measures
// it for vector maps. Every view is new to both sides, so no cache answers a whole image; the DEM tiles
// the views share are what a worker keeps between renders (decoded heights, shaded tiles).
// No target of its own yet (vector static images have >= 5x): the figures show where relief stands.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { serveTestApp, tempDir } from "../test/support/app";
import { launchBrowser, openMap, stopHarness } from "../test/support/browser";
import { demMbtiles } from "../test/support/dem";
import { seedKey, seedOrg, seedSession } from "../test/support/seed";
import { createTileset, publish, upload, waitForVersion } from "../test/routes/management/tilesets/fixtures";
import { createStyle } from "../test/read/render/world";
import { chromiumImage, median, percentile, QUICK, report } from "./lib";

const SIZE = 512;
const SAMPLES = QUICK ? 6 : 20;
const WARM_UP = QUICK ? 2 : 5;
// Alpine-like terrain from 200 m to 3800 m over one degree square, DEM tiles at zoom 10 (256 px).
const BOUNDS: [number, number, number, number] = [7, 46, 8, 47];
const terrain = (lon: number, lat: number) => 2000 + 900 * Math.sin(lon * 41) * Math.cos(lat * 37) + 600 * Math.sin(lon * 97 + lat * 13) + 300 * Math.cos(lat * 151);

const app = await serveTestApp({ WORKERS: "1" });
const orgId = seedOrg(app.ctx, "acme").id;
const session = await seedSession(app.ctx, { orgId });
const headers = { "x-api-key": seedKey(app.ctx, orgId, ["static_maps"]).secret };
const archive = join(tempDir("bench-relief-"), "alps.mbtiles");
demMbtiles(archive, "terrarium", 10, BOUNDS, terrain, { declareEncoding: true });
await createTileset(app, "acme", session.headers, { slug: "alps" });
await upload(app, "acme", "alps", session.headers, new Uint8Array(readFileSync(archive)));
if (((await waitForVersion(app, "acme", "alps", 1, session.headers)) as { state: string }).state !== "ready") throw new Error("the DEM tileset did not process");
await publish(app, "acme", "alps", 1, session.headers);
await createStyle(app, session.headers, "relief", {
  version: 8,
  sources: { dem: { type: "raster-dem", url: "mapstead://tilesets/acme/alps", tileSize: 256 } },
  layers: [
    { id: "bg", type: "background", paint: { "background-color": "#f2efe9" } },
    { id: "colours", type: "color-relief", source: "dem", paint: { "color-relief-color": ["interpolate", ["linear"], ["elevation"], 0, "#5a8f4e", 1500, "#c8b77d", 3000, "#ffffff"], "color-relief-opacity": 0.6 } },
    { id: "shade", type: "hillshade", source: "dem" },
  ],
});
const styleUrl = `${app.baseUrl}/styles/v1/acme/relief`;

interface View {
  lon: number;
  lat: number;
  zoom: number;
}

/** Views inside the DEM at zoom 9-11; `salt` gives sets that never meet. */
function views(count: number, salt: number): View[] {
  return Array.from({ length: count }, (_, i) => {
    const n = i + 1 + salt * 1000;
    return { lon: Number((7.2 + ((n * 0.137) % 0.6)).toFixed(4)), lat: Number((46.2 + ((n * 0.091) % 0.6)).toFixed(4)), zoom: Number((9 + ((n * 0.37) % 2)).toFixed(2)) };
  });
}

async function mapstead(v: View): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${app.baseUrl}/static/v1/acme/relief/${v.lon},${v.lat},${v.zoom}/${SIZE}x${SIZE}.png?attribution=false&logo=false`, { headers });
  const bytes = await res.bytes();
  if (res.status !== 200 || bytes.length < 1000) throw new Error(`static image: HTTP ${res.status}`);
  return performance.now() - started;
}

const browser = await launchBrowser();
try {
  console.log(`  ${SAMPLES} views of ${SIZE}x${SIZE} at zoom 9-11 over a zoom-10 DEM (hillshade over color-relief), taken in turns, after ${WARM_UP} warm-up images per side`);
  for (const v of views(WARM_UP, 1)) await mapstead(v);
  const page = (await openMap(browser, { style: styleUrl, width: SIZE, height: SIZE, center: [7.5, 46.5], zoom: 9, timeoutMs: 120_000 })).page;
  for (const v of views(WARM_UP, 2)) await chromiumImage(page, v, "dataUrl");
  const ours: number[] = [];
  const theirs: number[] = [];
  for (const v of views(SAMPLES, 0)) {
    ours.push(await mapstead(v));
    theirs.push(await chromiumImage(page, v, "dataUrl"));
  }
  await page.close();

  // Raster tiles: a Leaflet-sized screen of 256-px tiles at zoom 11 (5x4), each drawn once.
  const tiles: string[] = [];
  for (let x = 1065; x < 1070; x++) for (let y = 726; y < 730; y++) tiles.push(`/styles/v1/acme/relief/tiles/256/11/${x}/${y}.png`);
  const tileTimes: number[] = [];
  for (const path of tiles) {
    const started = performance.now();
    const res = await fetch(app.baseUrl + path);
    await res.bytes();
    if (res.status !== 200) throw new Error(`raster tile: HTTP ${res.status}`);
    tileTimes.push(performance.now() - started);
  }

  console.log(`  mapstead: p50 ${median(ours).toFixed(0)} ms, p95 ${percentile(ours, 95).toFixed(0)} ms`);
  console.log(`  chromium + MapLibre GL JS, warm page, canvas.toDataURL: p50 ${median(theirs).toFixed(0)} ms, p95 ${percentile(theirs, 95).toFixed(0)} ms`);
  report("relief static 512x512 p50", median(ours), "ms");
  report("relief static, speed-up over MapLibre GL JS in Chromium, warm page (p50)", median(theirs) / median(ours), "x");
  report("relief raster tile 256 px, p50 of a screen drawn once", median(tileTimes), "ms");
} finally {
  await browser.close();
  stopHarness();
  await app.close();
}

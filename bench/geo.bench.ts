// Geocoding and elevation overhead, against the fake Pelias and OpenTopoData servers of the tests:
// - cache-hit forward geocoding throughput as a ratio to a bare Bun.serve constant response (>= 0.5);
// - median latency a cache miss adds over calling the fake geocoder directly (< 1 ms);
// - median latency a 100-point elevation lookup adds over calling the fake dataset directly (< 1 ms).
import { serveTestApp } from "../test/support/app";
import { seedKey, seedOrg } from "../test/support/seed";
import { startFakePelias } from "../test/support/fake-pelias";
import { startFakeOpenTopoData } from "../test/support/fake-opentopodata";
import { peliasForwardUrl } from "../src/backends/geocoder/pelias";
import { openTopoDataUrl } from "../src/backends/elevation/opentopodata";
import { Elysia } from "elysia";
import { authPlugin } from "../src/http/auth";
import { conventions, routeTableFrom } from "../src/http/conventions";
import { bareConstantServer, DURATION_S, median, QUICK, report, wrk, wrkLine } from "./lib";

const pelias = startFakePelias();
const topo = startFakeOpenTopoData();
const app = await serveTestApp({ GEOCODER_INTERNAL_URL: pelias.url, ELEVATION_INTERNAL_URL: topo.url, RATE_LIMIT_PER_MINUTE: "10000000" });
const key = seedKey(app.ctx, seedOrg(app.ctx, "bench").id, ["geocoding", "elevation"]).secret;
const headers = { "x-api-key": key };

try {
  // 1. Cache hits: 64 warmed queries, picked at random by wrk.
  const paths = Array.from({ length: 64 }, (_, i) => `/geocoding/v1/forward?q=${encodeURIComponent(`Bahnhofstrasse ${i}`)}`);
  for (const p of paths) if ((await app.fetch(p, { headers })).status !== 200) throw new Error(`warm-up of ${p} failed`);
  const sampleBody = await (await app.fetch(paths[0]!, { headers })).text();
  const callsAfterWarmup = pelias.calls.length;
  const bare = bareConstantServer(sampleBody);
  try {
    await wrk(bare.url, { durationS: 1 });
    const base = await wrk(bare.url, { durationS: DURATION_S });
    await wrk(app.baseUrl, { durationS: 1, headers, paths });
    const hits = await wrk(app.baseUrl, { durationS: DURATION_S, headers, paths });
    wrkLine("bare Bun.serve constant", base);
    wrkLine("forward geocoding cache hit", hits);
    if (hits.non2xx) console.log(`  warning: ${hits.non2xx} non-2xx answers from the app`);
    if (pelias.calls.length !== callsAfterWarmup) console.log(`  warning: ${pelias.calls.length - callsAfterWarmup} backend calls during the cache-hit run`);
    report("forward cache-hit throughput / bare Bun.serve", hits.rps / base.rps, "ratio", ">= 0.5");
    // Reference: the same constant body behind only the shared HTTP conventions and the auth/rate-limit
    // macro, i.e. the floor any key-protected route starts from. Forward cache hits add little to it.
    const routes = routeTableFrom(() => floor.routes);
    const floor = new Elysia()
      .use(conventions(app.ctx.config, app.ctx.log, routes))
      .use(new Elysia({ name: "floor" }).use(authPlugin(app.ctx)).get("/floor", () => new Response(sampleBody, { headers: { "content-type": "application/json" } }), { scope: "geocoding" }))
      .listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const url = `http://127.0.0.1:${floor.server!.port}/floor`;
      await wrk(url, { durationS: 1, headers });
      const ref = await wrk(url, { durationS: DURATION_S, headers });
      wrkLine("constant body behind conventions + auth macro only (reference)", ref);
      report("auth-macro constant route / bare Bun.serve (reference, no target)", ref.rps / base.rps, "ratio");
    } finally {
      await floor.stop(true);
    }
  } finally {
    bare.stop();
  }

  // 2. and 3.: sequential unique requests, direct and through the app interleaved so drift hits both alike.
  const rounds = QUICK ? 150 : 400;
  const time = async (url: string, init?: RequestInit) => {
    const t0 = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    return performance.now() - t0;
  };

  const direct: number[] = [];
  const viaApp: number[] = [];
  for (let i = 0; i < rounds + 20; i++) {
    const q = `miss ${i} ${Math.random().toString(36).slice(2)}`;
    const d = await time(peliasForwardUrl(pelias.url, { q: `${q} direct`, limit: 5, language: "en" }));
    const a = await time(`${app.baseUrl}/geocoding/v1/forward?q=${encodeURIComponent(q)}`, { headers });
    if (i >= 20) {
      direct.push(d);
      viaApp.push(a);
    }
  }
  console.log(`  forward miss: direct median ${median(direct).toFixed(3)} ms, through Mapstead ${median(viaApp).toFixed(3)} ms`);
  report("forward cache-miss added latency (median)", median(viaApp) - median(direct), "ms", "< 1");

  const directE: number[] = [];
  const viaAppE: number[] = [];
  for (let i = 0; i < rounds + 20; i++) {
    const offset = i * 0.001 + Math.random() * 1e-4;
    const pts = Array.from({ length: 100 }, (_, j) => ({ lon: 7 + j * 0.01 + offset, lat: 46 + offset }));
    const d = await time(openTopoDataUrl(topo.url, pts.map((p) => ({ lon: p.lon + 0.5, lat: p.lat }))));
    const a = await time(`${app.baseUrl}/elevation/v1/${pts.map((p) => `${p.lon.toFixed(6)},${p.lat.toFixed(6)}`).join(";")}`, { headers });
    if (i >= 20) {
      directE.push(d);
      viaAppE.push(a);
    }
  }
  console.log(`  100-point elevation: direct median ${median(directE).toFixed(3)} ms, through Mapstead ${median(viaAppE).toFixed(3)} ms`);
  report("100-point elevation lookup added latency (median)", median(viaAppE) - median(directE), "ms", "< 1");
} finally {
  await app.close();
  await pelias.stop();
  await topo.stop();
}

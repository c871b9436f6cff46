// Stable style JSON throughput (GET /styles/v1/{owner}/{style}, the URL every map load starts with) as a
// ratio to a bare Bun.serve answering the same bytes (issue 9: >= 0.8). Also the same for a versioned
// URL, a 304 revalidation with If-None-Match, and the stable style through Elysia alone (the fast
// route's twin, to show what the fast path buys).
import { createApp } from "../src/app";
import { freePort, listenAsServed, makeTestApp } from "../test/support/app";
import { seedOrg, seedSession } from "../test/support/seed";
import { bareConstantServer, DURATION_S, headersOf, loadLine, median, QUICK, report, wrk, wrkLine } from "./lib";

// The app as serveTestApp builds it, plus one trivial route that answers the style's bytes: the cost of
// the framework and the global HTTP conventions alone, to tell them apart from the styles module's own.
const port = freePort();
const app = await makeTestApp({ HOST: "127.0.0.1", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: "10000000" });
let constantBytes = new Uint8Array(0);
app.app.get("/__bench/constant", ({ set }) => {
  set.headers["content-type"] = "application/json; charset=utf-8";
  return constantBytes;
});
listenAsServed(app.app, port);
const twin = createApp(app.services, { fastPath: false });
const twinPort = freePort();
listenAsServed(twin, twinPort);
const org = seedOrg(app.ctx, "bench");
const session = await seedSession(app.ctx, { orgId: org.id });

// A realistic style: 40 layers over an external source (no tileset module needed for the bench).
const style = {
  version: 8,
  name: "Bench",
  glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
  sources: { osm: { type: "vector", url: "https://tiles.example.com/osm.json" } },
  layers: [
    { id: "bg", type: "background", paint: { "background-color": "#f8f4f0" } },
    ...Array.from({ length: 40 }, (_, i) => ({
      id: `layer-${i}`,
      type: i % 3 === 0 ? "symbol" : i % 3 === 1 ? "line" : "fill",
      source: "osm",
      "source-layer": `layer${i}`,
      ...(i % 3 === 0
        ? { layout: { "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": ["interpolate", ["linear"], ["zoom"], 8, 10, 16, 14] } }
        : i % 3 === 1
          ? { paint: { "line-color": "#aab", "line-width": ["interpolate", ["exponential", 1.5], ["zoom"], 5, 0.5, 18, 8] } }
          : { paint: { "fill-color": ["match", ["get", "class"], "park", "#cec", "water", "#acf", "#eee"] } }),
    })),
  ],
};

const post = (path: string, body?: unknown) =>
  app.fetch(path, { method: "POST", headers: { ...session.headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

try {
  if ((await post("/api/v1/orgs/bench/styles", { slug: "streets", style })).status !== 201) throw new Error("style create failed");
  if ((await post("/api/v1/orgs/bench/styles/streets/publish")).status !== 200) throw new Error("publish failed");
  const stableUrl = `${app.baseUrl}/styles/v1/bench/streets`;
  const first = await fetch(stableUrl);
  const body = await first.text();
  constantBytes = new TextEncoder().encode(body);
  const etag = first.headers.get("etag")!;
  console.log(`  style JSON: ${body.length} bytes`);

  const bare = bareConstantServer(body, { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60", etag });
  const bareSame = bareConstantServer(body, headersOf(first));
  try {
    // Rounds alternate baseline and app so load from anything else on the machine hits both alike;
    // each figure is the median of the per-round ratios.
    const rounds = QUICK ? 1 : 3;
    const ratios: Record<string, number[]> = { stable: [], versioned: [], revalidate: [], floor: [], twin: [], same: [], stableCpu: [], versionedCpu: [] };
    loadLine("before the rounds");
    await wrk(bare.url, { durationS: 1 });
    await wrk(stableUrl, { durationS: 1 });
    for (let round = 0; round < rounds; round++) {
      const base = await wrk(bare.url, { durationS: DURATION_S });
      const stable = await wrk(stableUrl, { durationS: DURATION_S });
      const versioned = await wrk(`${stableUrl}@1`, { durationS: DURATION_S });
      const revalidate = await wrk(stableUrl, { durationS: DURATION_S, headers: { "if-none-match": etag } });
      const floor = await wrk(`${app.baseUrl}/__bench/constant`, { durationS: DURATION_S });
      const elysia = await wrk(`http://127.0.0.1:${twinPort}/styles/v1/bench/streets`, { durationS: DURATION_S });
      const same = await wrk(bareSame.url, { durationS: DURATION_S });
      console.log(`  round ${round + 1}:`);
      wrkLine("  bare Bun.serve constant", base);
      wrkLine("  stable style", stable);
      wrkLine("  versioned style", versioned);
      wrkLine("  stable style, If-None-Match (304)", revalidate);
      wrkLine("  trivial Elysia route, same bytes (framework floor)", floor);
      wrkLine("  stable style through Elysia alone (the twin)", elysia);
      wrkLine("  bare Bun.serve constant with the app's very headers", same);
      for (const [name, r] of [["stable", stable], ["versioned", versioned]] as const) if (r.non2xx) console.log(`  warning: ${r.non2xx} non-2xx answers (${name})`);
      ratios.stable!.push(stable.rps / base.rps);
      ratios.versioned!.push(versioned.rps / base.rps);
      ratios.stableCpu!.push(base.cpuUsPerRequest / stable.cpuUsPerRequest);
      ratios.versionedCpu!.push(base.cpuUsPerRequest / versioned.cpuUsPerRequest);
      ratios.revalidate!.push(revalidate.rps / base.rps);
      ratios.floor!.push(floor.rps / base.rps);
      ratios.twin!.push(elysia.rps / base.rps);
      ratios.same!.push(stable.rps / same.rps);
    }
    report("stable style JSON throughput ratio vs bare constant response", median(ratios.stable!), "x", ">= 0.8");
    report("versioned style JSON throughput ratio vs bare constant response", median(ratios.versioned!), "x", ">= 0.8");
    // Server CPU per request (every server here lives in this process): the load-robust counterpart.
    report("stable style server CPU per request, bare / ours", median(ratios.stableCpu!), "x", ">= 0.8");
    report("versioned style server CPU per request, bare / ours", median(ratios.versionedCpu!), "x", ">= 0.8");
    loadLine("after the rounds");
    report("stable style 304 revalidation throughput ratio vs bare constant response", median(ratios.revalidate!), "x");
    report("stable style through Elysia alone, ratio vs bare (before the fast path)", median(ratios.twin!), "x");
    report("stable style, ratio vs bare constant with the same headers (our code alone)", median(ratios.same!), "x");
    report("trivial Elysia route with the same bytes, ratio vs bare (framework floor)", median(ratios.floor!), "x");
  } finally {
    bare.stop();
    bareSame.stop();
  }
} finally {
  await app.app.server?.stop(true);
  await twin.server?.stop(true);
  await app.close();
}

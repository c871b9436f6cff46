// Glyph ranges:
// - cold build of Noto Sans Regular 0-255 (font parse + SDF of every glyph + PBF), the first one in a
//   fresh process (JIT cold) and the median of fresh builds (new font parse each time) (< 150 ms);
// - warm range throughput over HTTP (served from the in-memory cache) as a ratio to a bare Bun.serve
//   answering the same bytes (issue 9: >= 0.8), alternating rounds, median of the per-round ratios.
import { BUILTIN_FONTS } from "../src/domain/fonts/builtin";
import { buildRangePbf, parseFont } from "../src/glyphs";
import { serveTestApp } from "../test/support/app";
import { bareConstantServer, DURATION_S, headersOf, loadLine, median, QUICK, report, wrk, wrkLine } from "./lib";

const regular = BUILTIN_FONTS.find((f) => f.name === "Noto Sans Regular")!;
const bytes = await Bun.file(regular.path).arrayBuffer();

function coldBuild(): { ms: number; parseMs: number; size: number } {
  const t0 = performance.now();
  const parsed = parseFont(bytes.slice(0));
  const t1 = performance.now();
  const { pbf } = buildRangePbf(parsed, regular.name, 0);
  return { ms: performance.now() - t0, parseMs: t1 - t0, size: pbf.length };
}

const first = coldBuild();
console.log(`  first build: ${first.ms.toFixed(1)} ms (font parse ${first.parseMs.toFixed(1)} ms), ${first.size} bytes`);
// The first build of a process also pays for compiling the code (JIT): the worst case a server sees.
report("cold build Noto Sans Regular 0-255, first in process", first.ms, "ms", "< 150");
const runs = Array.from({ length: QUICK ? 5 : 15 }, () => coldBuild());
report("cold build Noto Sans Regular 0-255, median of fresh builds", median(runs.map((r) => r.ms)), "ms", "< 150");
report("  of which range build without the font parse", median(runs.map((r) => r.ms - r.parseMs)), "ms");
console.log(`  (load average while measuring: ${(await Bun.file("/proc/loadavg").text().catch(() => "?")).split(" ").slice(0, 3).join(" ")}; 2 cores)`);

const app = await serveTestApp();
try {
  const paths = ["/fonts/v1/Noto%20Sans%20Regular/0-255.pbf", "/fonts/v1/Noto%20Sans%20Regular/256-511.pbf", "/fonts/v1/Noto%20Sans%20Bold/0-255.pbf", "/fonts/v1/Noto%20Sans%20Regular/1024-1279.pbf"];
  for (const p of paths) if ((await app.fetch(p)).status !== 200) throw new Error(`warm-up of ${p} failed`);
  const bodies = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const p of paths) bodies.set(p, new Uint8Array(await (await app.fetch(p)).arrayBuffer()));
  const body = bodies.get(paths[0]!)!;
  console.log(`  range sizes: ${paths.map((p) => `${p.slice(10)} ${bodies.get(p)!.length} bytes`).join(", ")}`);
  const bare = bareConstantServer(body, { "content-type": "application/x-protobuf" });
  // The same bytes with the app's very headers: the ratio against it is the cost of our code alone.
  const bareSame = bareConstantServer(body, headersOf(await app.fetch(paths[0]!)));
  // The mixed paths differ in size: their baseline answers each path with its own bytes.
  const bareByPath = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(bodies.get(req.url.slice(req.url.indexOf("/", 8))), { headers: { "content-type": "application/x-protobuf" } }),
  });
  const bareByPathUrl = `http://127.0.0.1:${bareByPath.port}`;
  try {
    await wrk(bare.url, { durationS: 1 });
    await wrk(app.baseUrl + paths[0], { durationS: 1 });
    loadLine("before the rounds");
    const oneRatios: number[] = [];
    const oneCpuRatios: number[] = [];
    const sameRatios: number[] = [];
    const mixedRatios: number[] = [];
    for (let round = 0; round < (QUICK ? 1 : 3); round++) {
      const base = await wrk(bare.url, { durationS: DURATION_S });
      const one = await wrk(app.baseUrl + paths[0], { durationS: DURATION_S });
      const same = await wrk(bareSame.url, { durationS: DURATION_S });
      // wrk's Lua path picking costs wrk time too: the mixed run is compared with the bare server driven
      // by the same script.
      const baseMixed = await wrk(bareByPathUrl, { durationS: DURATION_S, paths });
      const mixed = await wrk(app.baseUrl, { durationS: DURATION_S, paths });
      console.log(`  round ${round + 1}:`);
      wrkLine(`  bare Bun.serve constant (${body.length} bytes)`, base);
      wrkLine("  warm range 0-255", one);
      wrkLine("  bare Bun.serve constant with the app's very headers", same);
      wrkLine("  bare Bun.serve, each path's bytes, random paths script", baseMixed);
      wrkLine("  warm ranges, 4 mixed (two fonts, three ranges)", mixed);
      if (one.non2xx || mixed.non2xx) console.log(`  warning: non-2xx answers from the app`);
      oneRatios.push(one.rps / base.rps);
      oneCpuRatios.push(base.cpuUsPerRequest / one.cpuUsPerRequest);
      sameRatios.push(one.rps / same.rps);
      mixedRatios.push(mixed.rps / baseMixed.rps);
    }
    report("warm glyph range throughput ratio vs bare constant response", median(oneRatios), "x", ">= 0.8");
    // Server CPU per request (both servers live in this process): the load-robust counterpart.
    report("warm glyph range server CPU per request, bare / ours", median(oneCpuRatios), "x", ">= 0.8");
    loadLine("after the rounds");
    report("warm mixed glyph ranges throughput ratio vs bare constant response", median(mixedRatios), "x", ">= 0.8");
    report("warm glyph range, ratio vs bare constant with the same headers (our code alone)", median(sameRatios), "x");
  } finally {
    bare.stop();
    bareSame.stop();
    bareByPath.stop(true);
  }
} finally {
  await app.close();
}

// Tile serving: (1) throughput over random existing z3-z8 tiles of a published tileset, as a ratio to a
// bare Bun.serve + bun:sqlite reader of the same MBTiles in the same run (issue 9: >= 0.9), and the p99
// as a ratio to the bare p99 (<= 1.2, both offered the same fixed rate, half what the slower sustains), with the Elysia twins of the fast routes (src/http/fast-routes.ts)
// measured beside them to show what the fast path buys, and the bare reader sending the app's very
// headers (our code alone); (2) TileJSON throughput as a ratio to a bare Bun.serve answering the same
// bytes (>= 0.8), beside the same bytes with the app's headers, and those reading the request's X-Request-Id
// (which Bun builds the request's headers for); (3) tile p99 while a large import is processing (< 20 ms).
import { Database } from "bun:sqlite";
import { join } from "node:path";
import * as topojson from "topojson-client";
import world50 from "world-atlas/countries-50m.json";
import world10 from "world-atlas/countries-10m.json";
import { createApp } from "../src/app";
import { freePort, listenAsServed, serveTestApp } from "../test/support/app";
import { seedOrg, seedSession } from "../test/support/seed";
import { bareConstantServer, DURATION_S, headersOf, loadLine, median, QUICK, report, wrk, wrkLine, type WrkResult } from "./lib";

const app = await serveTestApp();
const org = seedOrg(app.ctx, "bench");
const session = await seedSession(app.ctx, { orgId: org.id });
const json = { ...session.headers, "content-type": "application/json" };
const geojson = (w: unknown) => JSON.stringify(topojson.feature(w as never, (w as { objects: { countries: never } }).objects.countries));

/** Sends a management request the bench depends on; a refusal ends the bench instead of a wait forever. */
async function must(path: string, init: RequestInit, expected: number) {
  const res = await app.fetch(path, init);
  if (res.status !== expected) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res;
}

// Polls a version until `until` holds; a version that fails (or ends ready while waited for as
// processing) also ends the wait, so the bench never polls forever.
async function waitState(slug: string, version: number, until: (state: string) => boolean) {
  for (;;) {
    const v = (await (await must(`/api/v1/orgs/bench/tilesets/${slug}/versions/${version}`, { headers: session.headers }, 200)).json()) as { state: string; stats: { tiles: number } };
    if (until(v.state) || v.state === "ready" || v.state === "failed") return v;
    await Bun.sleep(100);
  }
}

let bare: ReturnType<typeof Bun.serve> | null = null;
let bareTilesSame: ReturnType<typeof Bun.serve> | null = null;
let bareIds = 0;
// The same services answered by Elysia alone (no fast routes): the figure before the fast path.
const twin = createApp(app.services, { fastPath: false });
const twinPort = freePort();
listenAsServed(twin, twinPort);
const twinUrl = `http://127.0.0.1:${twinPort}`;
try {
  await must("/api/v1/orgs/bench/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "world" }) }, 201);
  await must("/api/v1/orgs/bench/tilesets/world/versions?maxzoom=8", { method: "POST", headers: session.headers, body: geojson(world50) }, 202);
  const ready = await waitState("world", 1, () => false);
  if (ready.state !== "ready") throw new Error("bench tileset failed to process");
  await must("/api/v1/orgs/bench/tilesets/world/publish", { method: "POST", headers: json, body: JSON.stringify({ version: 1 }) }, 200);
  console.log(`  tileset: countries-50m z0-z8, ${ready.stats.tiles} tiles`);

  // Random existing z3-z8 tiles, the same list for both servers.
  const archive = app.ctx.sqlite.query<{ archive_path: string }, []>("SELECT archive_path FROM tileset_versions").get()!.archive_path;
  const mbtiles = new Database(join(app.dataDir, archive), { readonly: true });
  const rows = mbtiles.query<{ z: number; x: number; row: number }, []>("SELECT zoom_level AS z, tile_column AS x, tile_row AS row FROM tiles WHERE zoom_level BETWEEN 3 AND 8").all();
  const paths: string[] = [];
  for (let i = 0; i < 2000; i++) {
    const r = rows[Math.floor(Math.random() * rows.length)]!;
    paths.push(`/tiles/v1/bench/world@1/${r.z}/${r.x}/${(1 << r.z) - 1 - r.row}.mvt`);
  }

  // The baseline: nothing but Bun.serve, a path split and one prepared statement.
  const stmt = mbtiles.query<{ tile_data: Uint8Array }, [number, number, number]>("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?");
  /** A bare tile server: the path split by hand, one prepared statement, the headers `headersOf` gives. */
  const bareTileServer = (headersOf: (z: number, x: number, y: number) => Record<string, string>) =>
    Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const parts = new URL(req.url).pathname.split("/");
        const z = Number(parts[parts.length - 3]);
        const x = Number(parts[parts.length - 2]);
        const y = Number(parts[parts.length - 1]!.split(".")[0]);
        const row = stmt.get(z, x, (1 << z) - 1 - y);
        if (!row) return new Response(null, { status: 204 });
        return new Response(row.tile_data as Uint8Array<ArrayBuffer>, { headers: headersOf(z, x, y) });
      },
    });
  bare = bareTileServer(() => ({ "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" }));
  const bareUrl = `http://127.0.0.1:${bare.port}`;
  // The same reader sending the app's very headers (request id, CORS, nosniff, cache, ETag, Vary): the
  // ratio against it is the cost of our code alone, apart from the bytes the conventions add.
  const sample = await fetch(app.baseUrl + paths[0]!, { headers: { "accept-encoding": "gzip" } });
  const sampleHeaders = headersOf(sample);
  await sample.arrayBuffer();
  bareTilesSame = bareTileServer((z, x, y) => ({ ...sampleHeaders, etag: `"1.1.${z}.${x}.${y}.gz"`, "x-request-id": `bare-${++bareIds}` }));
  const bareSameUrl = `http://127.0.0.1:${bareTilesSame.port}`;
  const headers = { "accept-encoding": "gzip" };
  const opts = { paths, headers, connections: 32, durationS: DURATION_S };

  await wrk(bareUrl, { ...opts, durationS: 1 });
  await wrk(app.baseUrl, { ...opts, durationS: 1 });
  await wrk(twinUrl, { ...opts, durationS: 1 });
  await wrk(bareSameUrl, { ...opts, durationS: 1 });
  // Rounds alternate the servers so load from anything else on the machine hits them alike; each
  // figure is the median of the per-round ratios.
  const rounds = QUICK ? 1 : 3;
  loadLine("before the tile rounds");
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const p99Ratios: number[] = [];
  const twinRatios: number[] = [];
  const sameRatios: number[] = [];
  const p99s: number[] = [];
  const bareP99s: number[] = [];
  const bareRps: number[] = [];
  const oursRps: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const base = await wrk(bareUrl, opts);
    const ours = await wrk(app.baseUrl, opts);
    const elysia = await wrk(twinUrl, opts);
    const same = await wrk(bareSameUrl, opts);
    console.log(`  round ${round + 1}:`);
    wrkLine("bare Bun.serve + bun:sqlite", base);
    wrkLine("mapstead tiles (fast path)", ours);
    wrkLine("mapstead tiles through Elysia (the twins)", elysia);
    wrkLine("bare Bun.serve + bun:sqlite with the app's very headers", same);
    if (ours.non2xx || elysia.non2xx) throw new Error(`${ours.non2xx + elysia.non2xx} tile requests failed`);
    ratios.push(ours.rps / base.rps);
    cpuRatios.push(base.cpuUsPerRequest / ours.cpuUsPerRequest);
    p99Ratios.push(ours.p99Ms / base.p99Ms);
    twinRatios.push(elysia.rps / base.rps);
    sameRatios.push(ours.rps / same.rps);
    p99s.push(ours.p99Ms);
    bareP99s.push(base.p99Ms);
    bareRps.push(base.rps);
    oursRps.push(ours.rps);
  }
  report("tile throughput ratio vs bare Bun.serve + bun:sqlite (z3-z8, 32 conns)", median(ratios), "x", ">= 0.9");
  // The same comparison in server CPU time per request (both servers live in this process): what a
  // request costs, which a busy machine stretches far less than it does req/s or latency.
  report("tile server CPU per request, bare / ours (1 = as cheap as bare)", median(cpuRatios), "x", ">= 0.9");
  report("tile p99 ratio vs bare p99, each at its own saturation", median(p99Ratios), "x");
  report("tile throughput through Elysia alone, ratio vs bare (before the fast path)", median(twinRatios), "x");
  report("tile throughput, ratio vs bare with the same headers (our code alone)", median(sameRatios), "x");
  report("tile p99 at 32 connections", median(p99s), "ms", "< 5");
  report("bare baseline p99 at 32 connections (machine noise floor)", median(bareP99s), "ms");

  // The p99s above are each server's at its own saturation: the faster one keeps wrk (one thread, on
  // the same two cores) busier and queues more requests behind it, so its tail measures the client as
  // much as the server (a bare server answering tiles from a Map had a higher p99 than the SQLite one).
  // Paced, both servers are offered the very same fixed rate, half what the slower of them sustained
  // above: the p99 then is each server's own tail (GC pauses, slow requests). An earlier pacing, each
  // connection waiting 1 ms after every answer, offered the faster server more requests, and its p99
  // ratio measured that (1.9x here, where one rate gave 1.8x: the pacing alone was not the gap).
  const rate = Math.max(1000, Math.round((0.5 * Math.min(median(bareRps), median(oursRps))) / 1000) * 1000);
  // A p99 is the slowest 1% of one run, so one pause of the shared machine moves it: the paced figures take
  // more and shorter rounds than the throughput ones, and each round starts with a different server, so
  // none always runs right after another's garbage. Three rounds in a fixed order gave this ratio 1.06,
  // 1.31 and 1.25 in three runs of this bench on a 2-core machine; eight rotated rounds of the same two
  // servers gave 1.11 and 1.13 in two runs (each round's figures are printed, to judge the spread).
  const pacedRounds = QUICK ? 1 : 7;
  /** p99 ratios, ours / bare and ours / bare with the app's headers, at one offered rate. */
  const pacedRun = async (ratePerS: number) => {
    const paced = { ...opts, ratePerS, durationS: QUICK ? DURATION_S : 3 };
    const servers = [
      { label: "bare Bun.serve + bun:sqlite", url: bareUrl },
      { label: "mapstead tiles (fast path)", url: app.baseUrl },
      { label: "bare with the app's very headers", url: bareSameUrl },
    ];
    for (const s of servers) await wrk(s.url, { ...paced, durationS: 1 });
    const ratios: number[] = [];
    const sameRatios: number[] = [];
    const p99s: number[] = [];
    for (let round = 0; round < pacedRounds; round++) {
      const results = new Map<string, WrkResult>();
      for (let i = 0; i < servers.length; i++) {
        const s = servers[(i + round) % servers.length]!;
        results.set(s.url, await wrk(s.url, paced));
      }
      for (const s of servers) wrkLine(`  ${ratePerS} req/s, round ${round + 1}: ${s.label}`, results.get(s.url)!);
      const [base, ours, same] = servers.map((s) => results.get(s.url)!) as [WrkResult, WrkResult, WrkResult];
      if (ours.non2xx) throw new Error(`${ours.non2xx} tile requests failed`);
      ratios.push(ours.p99Ms / base.p99Ms);
      sameRatios.push(ours.p99Ms / same.p99Ms);
      p99s.push(ours.p99Ms);
    }
    return { ratio: median(ratios), sameRatio: median(sameRatios), p99: median(p99s) };
  };
  const half = await pacedRun(rate);
  report(`tile p99 ratio vs bare p99 at the same offered rate (${rate} req/s over 32 connections)`, half.ratio, "x", "<= 1.2");
  report("tile p99 at that rate", half.p99, "ms");
  report("tile p99 at that rate, ratio vs bare with the app's very headers (our code alone)", half.sameRatio, "x");
  // A lighter load shows how much of the tail is the machine's queueing: on two cores wrk and the
  // server share, the ratio grows with the rate.
  const quarter = Math.max(1000, Math.round(rate / 2000) * 1000);
  const light = await pacedRun(quarter);
  report(`tile p99 ratio vs bare p99 at a quarter of saturation (${quarter} req/s)`, light.ratio, "x");

  // TileJSON of the published version (stable URL) against a bare server sending its bytes.
  const tileJsonUrl = `${app.baseUrl}/tiles/v1/bench/world.json`;
  const first = await fetch(tileJsonUrl);
  const tileJson = await first.text();
  const bareJson = bareConstantServer(tileJson, { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=60", etag: first.headers.get("etag")! });
  const bareSame = bareConstantServer(tileJson, headersOf(first));
  const bareReading = bareConstantServer(tileJson, headersOf(first), { readsRequestId: true });
  try {
    const jsonRatios: number[] = [];
    const jsonCpuRatios: number[] = [];
    const sameRatios: number[] = [];
    const readingRatios: number[] = [];
    await wrk(bareJson.url, { durationS: 1 });
    await wrk(tileJsonUrl, { durationS: 1 });
    for (let round = 0; round < rounds; round++) {
      const base = await wrk(bareJson.url, { durationS: DURATION_S });
      const ours = await wrk(tileJsonUrl, { durationS: DURATION_S });
      const same = await wrk(bareSame.url, { durationS: DURATION_S });
      const reading = await wrk(bareReading.url, { durationS: DURATION_S });
      wrkLine(`  round ${round + 1}: bare Bun.serve constant (${tileJson.length} bytes)`, base);
      wrkLine(`  round ${round + 1}: TileJSON (fast path)`, ours);
      wrkLine(`  round ${round + 1}: bare Bun.serve constant with the app's very headers`, same);
      wrkLine(`  round ${round + 1}: the same, reading the request's X-Request-Id`, reading);
      if (ours.non2xx) throw new Error(`${ours.non2xx} TileJSON requests failed`);
      jsonRatios.push(ours.rps / base.rps);
      jsonCpuRatios.push(base.cpuUsPerRequest / ours.cpuUsPerRequest);
      sameRatios.push(ours.rps / same.rps);
      readingRatios.push(ours.rps / reading.rps);
    }
    report("TileJSON throughput ratio vs bare constant response", median(jsonRatios), "x", ">= 0.8");
    report("TileJSON server CPU per request, bare / ours", median(jsonCpuRatios), "x", ">= 0.8");
    loadLine("after the TileJSON rounds");
    report("TileJSON, ratio vs bare constant with the same headers (our code alone)", median(sameRatios), "x");
    // Echoing a client's X-Request-Id means reading the request's headers, which Bun builds only then.
    report("TileJSON, ratio vs the same bare server reading the request's X-Request-Id (our code beyond that)", median(readingRatios), "x");
  } finally {
    bareJson.stop();
    bareSame.stop();
    bareReading.stop();
  }

  // (2) The same tile load while a large import is being processed.
  await must("/api/v1/orgs/bench/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "big" }) }, 201);
  await must("/api/v1/orgs/bench/tilesets/big/versions?maxzoom=8", { method: "POST", headers: session.headers, body: geojson(world10) }, 202);
  await waitState("big", 1, (s) => s === "processing");
  const during = await wrk(app.baseUrl, { ...opts, durationS: QUICK ? 3 : 8 });
  const after = (await (await app.fetch("/api/v1/orgs/bench/tilesets/big/versions/1", { headers: session.headers })).json()) as { state: string; progress: number };
  wrkLine(`tiles during import (import ${after.state} at ${after.progress}% when the load ended)`, during);
  if (after.state !== "processing") console.log("  note: the import finished before the load ended; the figure covers part of it");
  report("tile p99 while a large import runs", during.p99Ms, "ms", "< 20");
  mbtiles.close();
} finally {
  bare?.stop(true);
  bareTilesSame?.stop(true);
  twin.stop(true);
  await app.close();
}

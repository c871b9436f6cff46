import { Database } from "bun:sqlite";
import { join } from "node:path";
import * as topojson from "topojson-client";
import world50 from "world-atlas/countries-50m.json";
import { serveTestApp } from "../test/support/app";
import { seedOrg, seedSession } from "../test/support/seed";
import { wrk, wrkLine } from "./lib";
import { Lru } from "../src/lru";
import { fastRoutes } from "../src/http/fast-routes";
import { fastReads } from "../src/routes/public/fast-reads";

const app = await serveTestApp();
seedOrg(app.ctx, "bench");
const org = app.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM orgs WHERE slug='bench'").get()!;
const session = await seedSession(app.ctx, { orgId: org.id });
const json = { ...session.headers, "content-type": "application/json" };
const geojson = (w: any) => JSON.stringify(topojson.feature(w, w.objects.countries));
await app.fetch("/api/v1/orgs/bench/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "world" }) });
await app.fetch("/api/v1/orgs/bench/tilesets/world/versions?maxzoom=8", { method: "POST", headers: session.headers, body: geojson(world50) });
for (;;) { const v = await (await app.fetch(`/api/v1/orgs/bench/tilesets/world/versions/1`, { headers: session.headers })).json() as any; if (v.state === "ready") break; await Bun.sleep(100); }
await app.fetch("/api/v1/orgs/bench/tilesets/world/publish", { method: "POST", headers: json, body: JSON.stringify({ version: 1 }) });
const archive = app.ctx.sqlite.query<{ archive_path: string }, []>("SELECT archive_path FROM tileset_versions").get()!.archive_path;
const mbtiles = new Database(join(app.dataDir, archive), { readonly: true });
const rows = mbtiles.query<{ z: number; x: number; row: number }, []>("SELECT zoom_level AS z, tile_column AS x, tile_row AS row FROM tiles WHERE zoom_level BETWEEN 3 AND 8").all();
const paths: string[] = [];
for (let i = 0; i < 2000; i++) { const r = rows[Math.floor(Math.random() * rows.length)]!; paths.push(`/tiles/v1/bench/world@1/${r.z}/${r.x}/${(1 << r.z) - 1 - r.row}.mvt`); }
const stmt = mbtiles.query<{ tile_data: Uint8Array }, [number, number, number]>("SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?");
const bare = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req) {
  const parts = new URL(req.url).pathname.split("/");
  const z = Number(parts[parts.length - 3]); const x = Number(parts[parts.length - 2]); const y = Number(parts[parts.length - 1]!.split(".")[0]);
  const row = stmt.get(z, x, (1 << z) - 1 - y);
  if (!row) return new Response(null, { status: 204 });
  return new Response(row.tile_data as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} });
const sample = await fetch(app.baseUrl + paths[0]!, { headers: { "accept-encoding": "gzip" } });
const sh: Record<string, string> = {}; sample.headers.forEach((v, k) => { if (k !== "date" && k !== "content-length") sh[k] = v; }); await sample.arrayBuffer();
let ids = 0;
const bareSame = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req) {
  const parts = new URL(req.url).pathname.split("/");
  const z = Number(parts[parts.length - 3]); const x = Number(parts[parts.length - 2]); const y = Number(parts[parts.length - 1]!.split(".")[0]);
  const row = stmt.get(z, x, (1 << z) - 1 - y);
  if (!row) return new Response(null, { status: 204 });
  return new Response(row.tile_data as any, { headers: { ...sh, etag: `"1.1.${z}.${x}.${y}.gz"`, "x-request-id": `bare-${++ids}` } });
} });
const bareRoutes = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:slug/:z/:x/:y": (req) => {
  const p = req.params; const z = Number(p.z); const x = Number(p.x); const y = Number(p.y.split(".")[0]);
  const row = stmt.get(z, x, (1 << z) - 1 - y);
  if (!row) return new Response(null, { status: 204 });
  return new Response(row.tile_data as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} }, fetch() { return new Response("no", { status: 404 }); } });
const memo = new Map<string, Uint8Array>();
const bareMemo = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req) {
  const path = new URL(req.url).pathname; let b = memo.get(path);
  if (!b) { const parts = path.split("/"); const z = Number(parts[parts.length - 3]); const x = Number(parts[parts.length - 2]); const y = Number(parts[parts.length - 1]!.split(".")[0]); b = stmt.get(z, x, (1 << z) - 1 - y)!.tile_data; memo.set(path, b); }
  return new Response(b as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} });
// Gap recording: entry times of each handler call; a stall shows as a gap far over the mean.
const gaps: Record<string, number[]> = {};
let last = 0, recName = "";
const rec = () => { const now = performance.now(); if (recName && last) (gaps[recName] ??= []).push(now - last); last = now; };
const fast = fastRoutes(fastReads(app.services), { log: app.ctx.log, observe: app.services.metrics.observe, twins: app.app.routes, elysia: (r) => app.app.fetch(r) });
const tileRoute = fast["/tiles/v1/:owner/:name/:z/:x/:y"]!.GET;
const oursPlain = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:name/:z/:x/:y": { GET: (req: any) => { rec(); return tileRoute(req); } } }, fetch() { return new Response("no", { status: 404 }); } });
const bareRoutesRec = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:slug/:z/:x/:y": (req) => { rec();
  const p = req.params; const z = Number(p.z); const x = Number(p.x); const y = Number(p.y.split(".")[0]);
  const row = stmt.get(z, x, (1 << z) - 1 - y);
  if (!row) return new Response(null, { status: 204 });
  return new Response(row.tile_data as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} }, fetch() { return new Response("no", { status: 404 }); } });
let calls = 0, promises = 0; const slow: number[] = [];
const tileRead = fastReads(app.services).find((r) => r.path === "/tiles/v1/:owner/:name/:z/:x/:y")!;
const seenAnon = { credentials: false, requestId: null, headerBytes: 0 } as any;
const oursBareHeaders = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:name/:z/:x/:y": { GET: (req: any) => {
  const t0 = performance.now();
  const a = tileRead.answer(req.params, req, seenAnon) as any;
  const dt = performance.now() - t0; if (recName) { calls++; if (a instanceof Promise) promises++; if (dt > 0.2) slow.push(dt); }
  return new Response(a.body, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} } }, fetch() { return new Response("no", { status: 404 }); } });
const bareRoutesSame = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:slug/:z/:x/:y": (req) => {
  const p = req.params; const z = Number(p.z); const x = Number(p.x); const y = Number(p.y.split(".")[0]);
  const row = stmt.get(z, x, (1 << z) - 1 - y);
  if (!row) return new Response(null, { status: 204 });
  return new Response(row.tile_data as any, { headers: { ...sh, etag: `"1.1.${z}.${x}.${y}.gz"`, "x-request-id": `bare-${++ids}` } });
} }, fetch() { return new Response("no", { status: 404 }); } });
const bareMemoHdr = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req) {
  const ae = req.headers.get("accept-encoding"); const inm = req.headers.get("if-none-match");
  const path = new URL(req.url).pathname; let b = memo.get(path);
  if (!b) { const parts = path.split("/"); const z = Number(parts[parts.length - 3]); const x = Number(parts[parts.length - 2]); const y = Number(parts[parts.length - 1]!.split(".")[0]); b = stmt.get(z, x, (1 << z) - 1 - y)!.tile_data; memo.set(path, b); }
  return new Response(b as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": ae && !inm ? "gzip" : "gzip" } });
} });
const oursViaFetch = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch(req: any) {
  const parts = new URL(req.url).pathname.split("/");
  const params = { owner: parts[3], name: parts[4], z: parts[5], x: parts[6], y: parts[7] };
  const a = tileRead.answer(params, req, seenAnon) as any;
  return new Response(a.body, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} });
const bareMemoRoutes = Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:name/:z/:x/:y": { GET: (req: any) => {
  const p = req.params; const key = p.z + "/" + p.x + "/" + p.y; let b = memo.get(key);
  if (!b) { const z = Number(p.z); const x = Number(p.x); const y = Number(p.y.split(".")[0]); b = stmt.get(z, x, (1 << z) - 1 - y)!.tile_data; memo.set(key, b); }
  return new Response(b as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} } }, fetch() { return new Response("no", { status: 404 }); } });
{
  const reqs = paths.slice(0, 500).map((p) => { const parts = p.split("/"); const r = new Request("http://x" + p, { headers: { "accept-encoding": "gzip" } }) as any; return { r, params: { owner: parts[3], name: parts[4], z: parts[5], x: parts[6], y: parts[7] } }; });
  for (let k = 0; k < 0; k++) {
    let t = performance.now();
    for (let i = 0; i < 3_000_000; i++) { const q = reqs[i % 500]!; tileRead.answer(q.params, q.r, seenAnon); }
    const ours = (performance.now() - t) / 3;
    t = performance.now();
    for (let i = 0; i < 500_000; i++) { const q = reqs[i % 500]!; const p = q.params; memo.get(p.z + "/" + p.x + "/" + p.y); }
    const m = (performance.now() - t) * 2;
    t = performance.now();
    for (let i = 0; i < 500_000; i++) { const q = reqs[i % 500]!; q.r.headers.get("accept-encoding"); q.r.headers.get("if-none-match"); }
    const h = (performance.now() - t) * 2;
    console.log(`loop ns/call: tile read ${ours.toFixed(0)}, memo get ${m.toFixed(0)}, two header gets ${h.toFixed(0)}`);
  }
}
const lru = new Lru<Uint8Array>({ maxBytes: 512 * 1024 * 1024 });
const spin = (us: number) => { const end = performance.now() + us / 1000; while (performance.now() < end); };
const lruServer = (extraUs: number) => Bun.serve({ hostname: "127.0.0.1", port: 0, routes: { "/tiles/v1/:owner/:name/:z/:x/:y": { GET: (req: any) => {
  if (extraUs) spin(extraUs);
  const p = req.params; const key = `tile|${p.owner}/${p.name}|${p.z}/${p.x}/${p.y}`; let b = lru.get(key);
  if (!b) { const z = Number(p.z); const x = Number(p.x); const y = Number(p.y.split(".")[0]); b = stmt.get(z, x, (1 << z) - 1 - y)!.tile_data; lru.set(key, b, b.length); }
  return new Response(b as any, { headers: { "content-type": "application/vnd.mapbox-vector-tile", "content-encoding": "gzip" } });
} } }, fetch() { return new Response("no", { status: 404 }); } });
const bareLru = lruServer(0), bareLruSpin = lruServer(5);
const variants: Record<string, string> = { ours: app.baseUrl };
const _unused = { bare: `http://127.0.0.1:${bare.port}`, ours: app.baseUrl, bareSame: `http://127.0.0.1:${bareSame.port}`, bareRoutes: `http://127.0.0.1:${bareRoutes.port}`, bareMemo: `http://127.0.0.1:${bareMemo.port}` };
const extra = process.env.EXTRA;
const paced = { paths, headers: { "accept-encoding": "gzip" }, connections: 32, durationS: 10 };
for (const [n, u] of Object.entries(variants)) await wrk(u, { ...paced, durationS: 1 });
for (let round = 0; round < 1; round++) for (const [n, u] of Object.entries(variants)) {
  console.error(`MARK ${n} start`);
  recName = n; last = 0;
  const r = await wrk(u, paced);
  recName = "";
  console.error(`MARK ${n} end`);
  wrkLine(`${n}`, r);
}
console.log("read calls", calls, "promises", promises, "slow>0.2ms", slow.length, "max", Math.max(...slow, 0).toFixed(2));
for (const [n, g] of Object.entries(gaps)) { g.sort((a, b) => a - b); const q = (p: number) => g[Math.floor(g.length * p)]!.toFixed(3);
  console.log(n, "gaps", g.length, "p50", q(0.5), "p99", q(0.99), "p99.9", q(0.999), "max", g[g.length - 1]!.toFixed(2), ">1ms", g.filter((x) => x > 1).length, ">2ms", g.filter((x) => x > 2).length); }
process.exit(0);

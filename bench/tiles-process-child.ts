// One processing run in a fresh process, so peak RSS (VmHWM) belongs to that run alone.
// Usage: bun bench/tiles-process-child.ts mapstead|plain OUT_DIR INPUT.geojson...
// BENCH_MAXZOOM sets the deepest zoom (default 8). Prints one JSON line: {"seconds", "peakRssMb", "tiles",
// "bytes", "phases"} (phases: Mapstead's CPU seconds, user + sys, per processing phase: robust to load).
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { processSource } from "../src/tiles/process";

const [mode, outDir, ...inputs] = process.argv.slice(2);
const MAXZOOM = Number(process.env.BENCH_MAXZOOM ?? 8);

/** The baseline: what anyone would write with the same two libraries, top-down over non-empty tiles. */
function plain(path: string): { tiles: number; bytes: number } {
  const fc = JSON.parse(readFileSync(path, "utf8"));
  const index = new GeoJSONVT(fc, { maxZoom: MAXZOOM, indexMaxZoom: 5, tolerance: 3, buffer: 64, extent: 4096 });
  let level = [[0, 0]];
  let tiles = 0;
  let bytes = 0;
  for (let z = 0; z <= MAXZOOM; z++) {
    const next: number[][] = [];
    for (const [x, y] of level) {
      const tile = index.getTile(z, x!, y!);
      if (!tile) continue;
      // Shapes too small to draw here may still draw deeper: descend, but write only tiles with features.
      if (z < MAXZOOM) next.push([2 * x!, 2 * y!], [2 * x! + 1, 2 * y!], [2 * x!, 2 * y! + 1], [2 * x! + 1, 2 * y! + 1]);
      if (!tile.features.length) continue;
      const data = Bun.gzipSync(fromGeojsonVt({ layer: tile }, { version: 2, extent: 4096 }) as Uint8Array<ArrayBuffer>);
      tiles++;
      bytes += data.length;
    }
    level = next;
  }
  return { tiles, bytes };
}

const started = performance.now();
let tiles = 0;
let bytes = 0;
const phases: Record<string, number> = {};
let phase = "";
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
let phaseStarted = cpuSeconds();
for (const input of inputs) {
  if (mode === "plain") {
    const r = plain(input);
    tiles += r.tiles;
    bytes += r.bytes;
  } else {
    const r = await processSource(
      {
        sources: [{ path: input, format: "geojson", label: basename(input), fileName: basename(input) }],
        recipe: { maxzoom: MAXZOOM },
        defaultLayer: "layer",
        outPath: join(outDir!, `${basename(input)}.mbtiles`),
        attribution: "",
        name: basename(input),
        description: "",
        memoryMb: 256,
      },
      (p) => {
        if (p.phase === phase) return;
        const now = cpuSeconds();
        if (phase) phases[phase] = (phases[phase] ?? 0) + (now - phaseStarted);
        phase = p.phase;
        phaseStarted = now;
      },
    );
    if (phase) phases[phase] = (phases[phase] ?? 0) + (cpuSeconds() - phaseStarted);
    phase = "";
    tiles += r.stats.tiles;
    bytes += r.stats.bytes;
  }
}
const seconds = (performance.now() - started) / 1000;
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
console.log(JSON.stringify({ seconds, peakRssMb: Number(hwm) / 1024, tiles, bytes, phases }));

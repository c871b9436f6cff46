// What the bulk writer must keep true: a geonameid repeated in one file is one place (the later row,
// also when SQLite refused the multi-row INSERT holding both), counts are right, and the word index
// (filled at commit, emptied by FTS5 'delete' commands) loses the words of replaced, updated and
// deleted names.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { createGazetteer, type Gazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { deleteDataset } from "../../../../src/backends/geocoder/embedded/writer";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer, geonameRow } from "./fixtures";

let dataDir: string;
let gazetteer: Gazetteer;
beforeEach(async () => {
  dataDir = await dataDirWithGazetteer();
  gazetteer = createGazetteer({ dataDir, log: silentLogger });
  await gazetteer.start();
});
afterEach(() => gazetteer.close());

const row = (id: number, name: string, alternates: string[] = []) => geonameRow({ id, name, lat: 47 + id / 1e6, lon: 8.5, country: "CH", admin1: "ZH", population: 10, alternates });
async function importRows(rows: string[], dataset: string, mode: "add" | "replace") {
  const file = join(dataDir, `${dataset}.txt`);
  await Bun.write(file, rows.join("\n") + "\n");
  return importGeonamesFile(gazetteer, file, { dataset, mode });
}
const names = async (q: string) => (await gazetteer.geocoder.forward({ q, limit: 10, language: "en" })).features.map((f) => f.properties.name);
/** The word index's rows holding `word`, straight from FTS5 (what the typo table and substring lookups read). */
function wordRows(word: string): number {
  const db = new Database(gazetteer.path, { readonly: true });
  try {
    return db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM names_words WHERE names_words MATCH ?").get(`"${word}"`)!.n;
  } finally {
    db.close();
  }
}

test("a geonameid repeated in one file is one place, the later row's, in either mode", async () => {
  for (const mode of ["replace", "add"] as const) {
    // 200 rows, so the repeat lands in a later multi-row INSERT than the first, and one repeat within the same one.
    const rows = Array.from({ length: 200 }, (_, i) => row(40_000_000 + i, `Filler${mode}${i}`));
    rows.push(row(40_000_007, `Zwiebelbach${mode}`, [`Oberzwiebel${mode}`]));
    rows.push(row(40_000_199, `Krautheim${mode}`));
    const result = await importRows(rows, `repeat-${mode}`, mode);
    expect(result).toMatchObject({ places: 200, names: 201 });
    expect(await names(`filler${mode}7`)).not.toContain(`Filler${mode}7`);
    expect(await names(`zwiebelbach${mode}`)).toEqual([`Zwiebelbach${mode}`]);
    expect(await names(`oberzwiebel${mode}`)).toEqual([`Zwiebelbach${mode}`]);
    expect(await names(`krautheim${mode}`)).toEqual([`Krautheim${mode}`]);
    expect(gazetteer.status().datasets.find((d) => d.name === `repeat-${mode}`)).toMatchObject({ places: 200, names: 201 });
    expect(wordRows(`filler${mode}7`)).toBe(0);
    expect(wordRows(`oberzwiebel${mode}`)).toBe(1);
  }
});

test("the word index loses the words of replaced, updated and deleted names", async () => {
  await importRows([row(41_000_001, "Quellwiese Nordzipf"), row(41_000_002, "Quellwiese Suedzipf")], "words", "add");
  expect(wordRows("quellwiese")).toBe(2);
  // Add mode updates the first place: its old name's words go, the new ones come.
  await importRows([row(41_000_001, "Moosacker Nordzipf")], "words", "add");
  expect([wordRows("quellwiese"), wordRows("moosacker"), wordRows("nordzipf")]).toEqual([1, 1, 1]);
  expect(await names("quellwiese nordzipf")).toEqual([]);
  // Replace mode drops the dataset's names first.
  await importRows([row(41_000_003, "Moosacker Ostzipf")], "words", "replace");
  expect([wordRows("quellwiese"), wordRows("moosacker"), wordRows("suedzipf")]).toEqual([0, 1, 0]);
  const db = new Database(gazetteer.path);
  expect(deleteDataset(db, "words")).toBe(true);
  db.close();
  expect(wordRows("moosacker")).toBe(0);
  // The built-in names' words are all still there.
  expect(wordRows("zurich")).toBeGreaterThan(0);
});

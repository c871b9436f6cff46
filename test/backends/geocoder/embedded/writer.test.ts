// What the bulk writer must keep true: a geonameid repeated in one file is one place (the later row,
// also when SQLite refused the multi-row INSERT holding both), counts are right, and the word index
// (filled at commit, emptied by FTS5 'delete' commands) loses the words of replaced, updated and
// deleted names; each dataset's count of names, kept up to date by the writer rather than counted
// again, matches its names, also when alternate names of one dataset go with another's places.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { createDatasetWriter, deleteDataset } from "../../../../src/backends/geocoder/embedded/writer";
import { alternateNameRow, gazetteerEachTest, geonameRow } from "./fixtures";

const t = gazetteerEachTest();

const row = (id: number, name: string, alternates: string[] = []) => geonameRow({ id, name, lat: 47 + id / 1e6, lon: 8.5, country: "CH", admin1: "ZH", population: 10, alternates });
async function importRows(rows: string[], dataset: string, mode: "add" | "replace") {
  const file = join(t.dataDir, `${dataset}.txt`);
  await Bun.write(file, rows.join("\n") + "\n");
  return importGeonamesFile(t.gazetteer, file, { dataset, mode });
}
const names = async (q: string) => (await t.gazetteer.geocoder.forward({ q, limit: 10, language: "en" })).features.map((f) => f.properties.name);
/** The word index's rows holding `word`, straight from FTS5 (what the typo table and substring lookups read). */
function wordRows(word: string): number {
  const db = new Database(t.gazetteer.path, { readonly: true });
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
    expect(t.gazetteer.status().datasets.find((d) => d.name === `repeat-${mode}`)).toMatchObject({ places: 200, names: 201 });
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
  const db = new Database(t.gazetteer.path);
  expect(deleteDataset(db, "words")).toBe(true);
  db.close();
  expect(wordRows("moosacker")).toBe(0);
  // The built-in names' words are all still there.
  expect(wordRows("zurich")).toBeGreaterThan(0);
});

test("each dataset's count of names stays that of its names through alternate names, updates, replaces and deletes", async () => {
  /** Every dataset's count against its names counted afresh: its places' own ('') and those it added to others'. */
  function countsMatch() {
    const db = new Database(t.gazetteer.path, { readonly: true });
    try {
      const wrong = db
        .query(
          `SELECT name, names, (SELECT COUNT(*) FROM names n JOIN places p ON p.id = n.place_id WHERE n.dataset = '' AND p.dataset = d.name)
             + (SELECT COUNT(*) FROM names WHERE dataset = d.name) AS counted FROM datasets d`,
        )
        .all()
        .filter((d) => (d as { names: number; counted: number }).names !== (d as { counted: number }).counted);
      expect(wrong).toEqual([]);
    } finally {
      db.close();
    }
  }
  await importRows([row(42_000_001, "Erlenhof", ["Erlenhof Alt"]), row(42_000_002, "Birkenhof"), row(42_000_003, "Eschenhof")], "trees", "add");
  const alt = join(t.dataDir, "alternates.txt");
  // Two names for places of "trees", one for built-in Zurich (2657896), one for no place at all.
  await Bun.write(alt, [alternateNameRow(1, 42_000_001, "de", "Erlenhöfli"), alternateNameRow(2, 42_000_002, "fr", "Bouleau"), alternateNameRow(3, 2657896, "rm", "Turitg"), alternateNameRow(4, 1, "de", "Nirgendwo")].join("\n") + "\n");
  expect(await importGeonamesFile(t.gazetteer, alt, { dataset: "alt", mode: "add" })).toMatchObject({ names: 3, skipped: 1 });
  countsMatch();
  expect(t.gazetteer.status().datasets.find((d) => d.name === "alt")).toMatchObject({ names: 3 });
  // Updating Erlenhof drops the names it had, the alternate one included.
  await importRows([row(42_000_001, "Erlenhof")], "trees", "add");
  countsMatch();
  expect(t.gazetteer.status().datasets.find((d) => d.name === "alt")).toMatchObject({ names: 2 });
  // Replacing "trees" takes the alternate name of Birkenhof with it; Zurich's stays.
  await importRows([row(42_000_004, "Ahornhof")], "trees", "replace");
  countsMatch();
  expect(t.gazetteer.status().datasets.find((d) => d.name === "alt")).toMatchObject({ names: 1 });
  const db = new Database(t.gazetteer.path);
  expect(deleteDataset(db, "alt")).toBe(true);
  db.close();
  countsMatch();
  expect(t.gazetteer.status().datasets.map((d) => d.name)).not.toContain("alt");
});

test("a bulk import builds its dropped indexes again and leaves the file whole", async () => {
  // Past the writer's 50,000 names, the name and point indexes are dropped and built again at commit:
  // each must be back, used by queries, and consistent.
  const rows = Array.from({ length: 26_000 }, (_, i) => row(42_000_000 + i, `Bulkort${i}`, [`Bulkalt${i}`]));
  expect(await importRows(rows, "bulk", "replace")).toMatchObject({ places: 26_000, names: 52_000 });
  expect(await names("bulkort25999")).toEqual(["Bulkort25999"]);
  expect(await names("bulkalt12345")).toEqual(["Bulkort12345"]);
  const db = new Database(t.gazetteer.path, { readonly: true });
  try {
    const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE name IN ('names_by_place', 'names_by_folded', 'places_by_point') ORDER BY name").all();
    expect(indexes.map((i) => i.name)).toEqual(["names_by_folded", "names_by_place", "places_by_point"]);
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const plan = db.query<{ detail: string }, []>("EXPLAIN QUERY PLAN SELECT place_id FROM names WHERE folded = 'bulkort7'").all();
    expect(plan.map((p) => p.detail).join(" ")).toContain("names_by_folded");
  } finally {
    db.close();
  }
});

test("an import's write-ahead log is copied into the file on a thread after it returns", async () => {
  // The import connection never checkpoints at commit (wal_autocheckpoint = 0): without the thread the
  // pages would stay in the log and the file keep its size.
  const before = statSync(t.gazetteer.path).size;
  await importRows(Array.from({ length: 3000 }, (_, i) => row(1_300_000 + i, `Logort${i}`)), "logged", "replace");
  await t.gazetteer.settled();
  expect(statSync(t.gazetteer.path).size).toBeGreaterThan(before + 100_000);
  expect(await names("logort2999")).toEqual(["Logort2999"]);
});

test("a place keeps its distinct names, 64 at most, whether the parsing thread or the writer picks them", async () => {
  // Folded alike to the main name or to an earlier one, or to nothing: left out; then 100 more than fit.
  // A place with a few names (compared pairwise) and one with many (through a set).
  const few = ["ZÜRICHSEE DORF", "Seedorf", "SEEDORF", "--"];
  const others = [...few, ...Array.from({ length: 100 }, (_, i) => `Seename${i}`)];
  const expected = ["Zürichsee-Dorf", "Seedorf", ...Array.from({ length: 62 }, (_, i) => `Seename${i}`), "Kleindorf", "ZÜRICHSEE DORF", "Seedorf"];
  const stored = (dataset: string) => {
    const db = new Database(t.gazetteer.path, { readonly: true });
    try {
      return db.query<{ name: string }, [string]>("SELECT n.name FROM names n JOIN places p ON p.id = n.place_id WHERE p.dataset = ? ORDER BY n.id").all(dataset).map((r) => r.name);
    } finally {
      db.close();
    }
  };
  // From a file: the import's parsing thread picks them.
  await importRows([row(1_400_001, "Zürichsee-Dorf", others), row(1_400_002, "Kleindorf", ["KLEINDORF", ...few])], "picked-in-thread", "replace");
  expect(stored("picked-in-thread")).toEqual(expected);
  // Handed to the writer as they are (as a tileset import does): the writer picks them.
  await t.gazetteer.withWriter(async (db) => {
    const writer = createDatasetWriter(db, { name: "picked-by-writer", kind: "tileset", attribution: "test" }, "replace");
    writer.begin();
    const place = (extId: string, name: string, names: string[]) => ({ extId, layer: "locality", name, countryCode: "CH", admin1: null, population: 0, importance: 0, lon: 8.6, lat: 47.2, names: names.map((n) => ({ name: n, lang: "" })) });
    writer.addPlace(place("1", "Zürichsee-Dorf", others));
    writer.addPlace(place("2", "Kleindorf", ["KLEINDORF", ...few]));
    writer.commit();
  });
  expect(stored("picked-by-writer")).toEqual(expected);
});

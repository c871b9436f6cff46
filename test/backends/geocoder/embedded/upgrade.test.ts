// A gazetteer file of an earlier schema is upgraded in place at start: the operator's imported datasets
// stay; a version 2 file (before built-in regions) gains the regions, a version 3 file (points in an
// R*Tree) loses the R*Tree for the point index, and reverse geocoding finds its places; a version 4
// file (names indexed by trigrams) gets its word index and typo table, so typos in names of several
// words are found in what it had imported; a version 5 file (a word index with a size per name, every
// name carrying its dataset's name) gets the word index without and '' for its datasets' own names,
// and deleting a dataset removes its words; a version 6 file (ranking priors on another scale, regions
// without population) ranks as a new build does; a version 7 file (built-in cities without the
// well-known other names of local-names.json) gains them.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { createGazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { GAZETTEER_FILE, SCHEMA_VERSION, unindexNames } from "../../../../src/backends/geocoder/embedded/store";
import { deleteDataset } from "../../../../src/backends/geocoder/embedded/writer";
import { silentLogger } from "../../../../src/log";
import { alternateNameRow, dataDirWithGazetteer, VILLAGES_TSV } from "./fixtures";

/** A data dir whose gazetteer (current schema) holds an imported "swiss" dataset, closed again. */
async function dataDirWithSwissImport(): Promise<string> {
  const dataDir = await dataDirWithGazetteer();
  const first = createGazetteer({ dataDir, log: silentLogger });
  const file = join(dataDir, "CH.txt");
  writeFileSync(file, VILLAGES_TSV);
  await importGeonamesFile(first, file, { dataset: "swiss", mode: "add" });
  // The import's log is copied into the file on a thread after it returns: a connection opened while
  // that thread is the last one closing can meet SQLite's WAL recovery (SQLITE_BUSY_RECOVERY).
  await first.settled();
  first.close();
  return dataDir;
}

test("a version 2 file keeps its imported datasets and gains the built-in regions", async () => {
  const dataDir = await dataDirWithSwissImport();

  // What version 2 wrote: no regions dataset, no abbr column, an ext_id index, its version number.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  deleteDataset(db, "regions");
  db.exec("ALTER TABLE places DROP COLUMN abbr");
  db.exec("CREATE INDEX places_by_ext_id ON places (ext_id)");
  db.exec("UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    const names = upgraded.status().datasets.map((d) => d.name);
    expect(names).toEqual(["countries", "geonames-cities1000", "regions", "swiss"]);
    const [village] = (await upgraded.geocoder.forward({ q: "hintertupfingen", limit: 1, language: "en" })).features;
    expect(village!.properties).toMatchObject({ source: "swiss", region_a: "ZH" });
    const [springfield] = (await upgraded.geocoder.forward({ q: "Springfield, Illinois", limit: 1, language: "en" })).features;
    expect(springfield!.properties).toMatchObject({ region: "Illinois", region_a: "IL" });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  expect(after.query("SELECT name FROM sqlite_master WHERE name = 'places_by_ext_id'").get()).toBeNull();
  after.close();
}, 60_000);

test("a version 3 file keeps its imported datasets, drops its R*Tree and answers reverse from the point index", async () => {
  const dataDir = await dataDirWithSwissImport();

  // What version 3 wrote: an R*Tree of the points, no point index, names without their place's population.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  db.exec("DROP INDEX places_by_point");
  db.exec("DROP INDEX names_by_folded");
  db.exec("ALTER TABLE names DROP COLUMN population");
  db.exec("CREATE INDEX names_by_folded ON names (folded, place_id)");
  db.exec("CREATE VIRTUAL TABLE places_rtree USING rtree (id, min_lon, max_lon, min_lat, max_lat)");
  db.exec("INSERT INTO places_rtree SELECT id, lon, lon, lat, lat FROM places");
  db.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    expect(upgraded.status().datasets.map((d) => d.name)).toContain("swiss");
    const [village] = (await upgraded.geocoder.forward({ q: "hintertupfingen", limit: 1, language: "en" })).features;
    // Ranked by the population its names now carry: Paris, France before the smaller Parises.
    expect((await upgraded.geocoder.forward({ q: "paris", limit: 1, language: "en" })).features[0]!.properties).toMatchObject({ country_code: "FR" });
    const [lon, lat] = village!.geometry.coordinates;
    const [nearest] = (await upgraded.geocoder.reverse({ lon: lon! + 0.0001, lat: lat!, limit: 1, language: "en" })).features;
    expect(nearest!.properties).toMatchObject({ source: "swiss", name: village!.properties.name });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  expect(after.query("SELECT name FROM sqlite_master WHERE name = 'places_rtree'").get()).toBeNull();
  expect(after.query("SELECT name FROM sqlite_master WHERE name = 'places_by_point'").get()).toEqual({ name: "places_by_point" });
  expect(after.query("SELECT COUNT(*) AS wrong FROM names n JOIN places p ON p.id = n.place_id WHERE n.population != p.population").get()).toEqual({ wrong: 0 });
  expect((after.query("SELECT sql FROM sqlite_master WHERE name = 'names_by_folded'").get() as { sql: string }).sql).toContain("population");
  after.close();
}, 60_000);

test("a version 4 file keeps its imported datasets, drops its trigram index and finds words and typos in them", async () => {
  const dataDir = await dataDirWithSwissImport();

  // What version 4 wrote: a trigram index of the names, no word index, no typo table.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  db.exec("DROP TABLE names_words_vocab");
  db.exec("DROP TABLE names_words");
  db.exec("DROP TABLE word_deletes");
  db.exec("CREATE VIRTUAL TABLE names_fts USING fts5 (folded, content = '', contentless_delete = 1, tokenize = 'trigram')");
  db.exec("INSERT INTO names_fts (rowid, folded) SELECT id, folded FROM names");
  db.exec("UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    expect(upgraded.status().datasets.map((d) => d.name)).toContain("swiss");
    const forward = async (q: string) => (await upgraded.geocoder.forward({ q, limit: 1, language: "en" })).features[0]?.properties;
    // A word inside a name (the imported alternate name "Hinter Tupfingen"), and a typo in its first letters.
    expect(await forward("tupfingen")).toMatchObject({ name: "Hintertupfingen", source: "swiss" });
    expect(await forward("hinter tupfimgen")).toMatchObject({ name: "Hintertupfingen", source: "swiss" });
    expect(await forward("xintertupfingen")).toMatchObject({ name: "Hintertupfingen", source: "swiss" });
    // Built-in names are in the word index too.
    expect(await forward("new yrok")).toMatchObject({ country_code: "US" });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  expect(after.query("SELECT name FROM sqlite_master WHERE name = 'names_fts'").get()).toBeNull();
  expect(after.query("SELECT word FROM word_deletes WHERE key = 'hintertupfngen'").all()).toEqual([{ word: "hintertupfingen" }]);
  after.close();
}, 60_000);

test("a version 5 file gets the word index without sizes and its own names without their dataset's name, finds words in its imports and can delete them", async () => {
  const dataDir = await dataDirWithSwissImport();

  // What version 5 wrote: the word index with contentless_delete (a size per name), and every name
  // carrying its dataset's name, indexed.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  db.exec("UPDATE names SET dataset = (SELECT dataset FROM places WHERE places.id = names.place_id)");
  db.exec("DROP INDEX names_by_adder");
  db.exec("CREATE INDEX names_by_dataset ON names (dataset)");
  db.exec("DROP TABLE names_words");
  db.exec("CREATE VIRTUAL TABLE names_words USING fts5 (folded, content = '', contentless_delete = 1, detail = none, tokenize = 'unicode61 remove_diacritics 0')");
  db.exec("INSERT INTO names_words (rowid, folded) SELECT id, folded FROM names");
  db.exec("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    const forward = async (q: string) => (await upgraded.geocoder.forward({ q, limit: 1, language: "en" })).features[0]?.properties;
    expect(await forward("tupfingen")).toMatchObject({ name: "Hintertupfingen", source: "swiss" });
    expect(await forward("new yrok")).toMatchObject({ country_code: "US" });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE));
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  expect((after.query("SELECT sql FROM sqlite_master WHERE name = 'names_words'").get() as { sql: string }).sql).toContain("columnsize = 0");
  expect(after.query("SELECT name FROM sqlite_master WHERE name IN ('names_by_dataset', 'names_by_adder')").all()).toEqual([{ name: "names_by_adder" }]);
  expect(after.query("SELECT COUNT(*) AS n FROM names WHERE dataset <> ''").get()).toEqual({ n: 0 });
  const holding = (word: string) => after.query("SELECT count(*) AS n FROM names_words WHERE names_words MATCH ?").get(word);
  expect(holding("tupfingen")).toEqual({ n: 1 });
  expect(deleteDataset(after, "swiss")).toBe(true);
  expect(holding("tupfingen")).toEqual({ n: 0 });
  after.close();
}, 60_000);

test("a version 6 file ranks by this release's priors and populations, and its built-in places keep the names imports gave them", async () => {
  const dataDir = await dataDirWithSwissImport();
  // An alternate name an import gave a built-in region (the state of California, geonameid 5332921).
  const alternates = join(dataDir, "alternateNamesV2.txt");
  writeFileSync(alternates, alternateNameRow(1, 5332921, "en", "Golden State") + "\n");
  const gazetteer = createGazetteer({ dataDir, log: silentLogger });
  await importGeonamesFile(gazetteer, alternates, { mode: "add" });
  await gazetteer.settled();
  gazetteer.close();

  // What version 6 wrote: priors on the old scale (countries 0.5, capitals 0.3, first-level seats 0.15,
  // county seats 0.08, imported first-level regions 0.25), and built-in regions without population or prior.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  db.exec(`UPDATE places SET importance = CASE WHEN layer = 'country' THEN 0.5 WHEN dataset = 'regions' THEN 0 WHEN layer = 'region' THEN 0.25
    WHEN importance = 0.6 THEN 0.3 WHEN importance = 0.4 THEN 0.15 WHEN importance = 0.1 THEN 0.08 WHEN importance = 0.05 THEN 0.04 ELSE importance END`);
  db.exec("UPDATE places SET population = 0 WHERE dataset = 'regions'");
  db.exec("UPDATE names SET population = 0 WHERE place_id IN (SELECT id FROM places WHERE dataset = 'regions')");
  // Nor the name "New York" of New York City (geonameid 5128581), nor countries' codes as names.
  for (const added of ["place_id = (SELECT id FROM places WHERE dataset = 'geonames-cities1000' AND ext_id = '5128581') AND folded = 'new york'", "lang = 'abbr' AND place_id IN (SELECT id FROM places WHERE dataset = 'countries')"]) {
    db.exec(unindexNames(added));
    db.exec(`DELETE FROM names WHERE ${added}`);
  }
  db.exec("UPDATE meta SET value = '6' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    const forward = async (q: string) => (await upgraded.geocoder.forward({ q, limit: 5, language: "en" })).features.map((f) => f.properties);
    expect((await forward("new york"))[0]).toMatchObject({ name: "New York City", confidence: 1 });
    expect((await forward("de"))[0]).toMatchObject({ layer: "country", country_code: "DE" });
    expect((await forward("california"))[0]).toMatchObject({ layer: "region", name: "California", country_code: "US" });
    expect((await forward("london")).map((p) => p.label).slice(0, 2)).toEqual(["London, England, United Kingdom", "London, Ontario, Canada"]);
    expect((await forward("golden state"))[0]).toMatchObject({ layer: "region", name: "California" });
    // The imported canton (1.5 million people in the dump) is an area too: the city of Zurich comes first.
    expect((await forward("zurich"))[0]).toMatchObject({ layer: "locality", name: "Zürich" });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  const prior = (dataset: string, extId: string) => after.query("SELECT importance, population FROM places WHERE dataset = ? AND ext_id = ?").get(dataset, extId);
  expect(prior("countries", "FR")).toMatchObject({ importance: 1 });
  expect(prior("geonames-cities1000", "2988507")).toMatchObject({ importance: 0.6 });
  expect(prior("swiss", "2657895")).toEqual({ importance: -1, population: 1_500_000 });
  expect((prior("regions", "5332921") as { population: number }).population).toBeGreaterThan(30_000_000);
  // The names of the refreshed places carry its population again, those an import gave them too.
  expect(after.query("SELECT COUNT(*) AS n FROM names WHERE place_id = (SELECT id FROM places WHERE dataset = 'regions' AND ext_id = '5332921') AND population = 0").get()).toEqual({ n: 0 });
  after.close();
}, 60_000);

test("a version 7 file gains the built-in cities' well-known other names and keeps its imports", async () => {
  const dataDir = await dataDirWithSwissImport();
  // What version 7 wrote: Rome (geonameid 3169070), Munich (2867714) and Genève (2660646) had only their own names.
  const db = new Database(join(dataDir, GAZETTEER_FILE));
  const added = "place_id IN (SELECT id FROM places WHERE dataset = 'geonames-cities1000' AND ext_id IN ('3169070', '2867714', '2660646')) AND lang = ''";
  db.exec(unindexNames(added));
  db.exec(`DELETE FROM names WHERE ${added}`);
  db.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  db.close();

  const upgraded = createGazetteer({ dataDir, log: silentLogger });
  try {
    await upgraded.start();
    const first = async (q: string) => (await upgraded.geocoder.forward({ q, limit: 5, language: "en" })).features[0]?.properties;
    expect(await first("roma")).toMatchObject({ name: "Rome", country_code: "IT" });
    expect(await first("münchen")).toMatchObject({ name: "Munich", country_code: "DE" });
    expect(await first("geneva")).toMatchObject({ name: "Genève", country_code: "CH", layer: "locality" });
    expect(await first("hintertupfingen")).toMatchObject({ source: "swiss" });
    expect(await first("new york")).toMatchObject({ name: "New York City" });
  } finally {
    upgraded.close();
  }
  const after = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  expect(after.query("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: SCHEMA_VERSION });
  after.close();
});

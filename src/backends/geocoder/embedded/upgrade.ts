// A gazetteer file of an earlier schema is brought up to date in place, so the datasets an operator
// imported survive the upgrade; files older than version 2 are rebuilt. Version 2 had no regions and
// no region codes; version 3 kept points in an R*Tree, now a B-tree (store.ts's PLACE_POINT_INDEX,
// which opening the file creates), and its names had no copy of their place's population; version 4
// indexed names by trigrams (names_fts), now by words (names_words, created empty on opening) with a
// typo table of those words; version 5's word index kept a size per name (contentless_delete), which
// doubled the cost of filling it, and is filled again without; names before version 6 carried their
// dataset's name, indexed, where now a dataset's own names carry ''; version 6 ranked by priors on
// another scale and its regions had no population (see rankByNewPriors), and its built-in places are
// brought to this release's (refreshBuiltin); version 7's built-in cities lacked the well-known other
// names of local-names.json, which refreshBuiltin gives them. Every step can run again: a process stopped halfway
// finishes the upgrade at its next start (the last step and the new version number are one transaction).
import type { Database } from "bun:sqlite";
import { BUILTIN_DATASETS, builtinPlaces } from "./builtin";
import { ADMIN_LAYERS, importanceOf } from "./geonames";
import { metaValue, NAMES_BY_ADDER, NAMES_WORDS, openGazetteerFile, regionPeople, SCHEMA_VERSION } from "./store";
import { addWordKeys } from "./word-typos";
import { createDatasetWriter } from "./writer";

async function addRegions(db: Database) {
  const columns = db.query<{ name: string }, []>("PRAGMA table_info(places)").all().map((c) => c.name);
  if (!columns.includes("abbr")) db.exec("ALTER TABLE places ADD COLUMN abbr TEXT");
  // Replaced by the (dataset, ext_id) index.
  db.exec("DROP INDEX IF EXISTS places_by_ext_id");
  const { regions } = await builtinPlaces();
  const writer = createDatasetWriter(db, BUILTIN_DATASETS.regions, "replace");
  writer.begin();
  try {
    for (const r of regions) writer.addPlace(r);
    writer.commit();
  } catch (err) {
    writer.rollback();
    throw err;
  }
}

/** Fills the word index and the typo table from every name (inside the caller's transaction). */
function indexWords(db: Database) {
  // Emptied first: the regions added to a version 2 file above are in it already.
  db.exec("INSERT INTO names_words (names_words) VALUES ('delete-all')");
  // In id order: without it SQLite reads the smaller folded-name index instead, and FTS5 takes rows
  // out of rowid order several times slower.
  db.exec("INSERT INTO names_words (rowid, folded) SELECT id, folded FROM names ORDER BY id");
  addWordKeys(db);
}

/**
 * Brings the built-in countries and regions (and the built-in cities with names besides their own) to
 * what this release builds: populations, priors, names. In place, by the writer's update of a place,
 * which keeps the names other datasets gave them (alternate names); running it again changes nothing.
 */
async function refreshBuiltin(db: Database) {
  const { cities, countries, regions } = await builtinPlaces();
  const fresh = [
    { dataset: BUILTIN_DATASETS.countries, places: countries },
    { dataset: BUILTIN_DATASETS.regions, places: regions },
    { dataset: BUILTIN_DATASETS.cities, places: cities.filter((c) => c.names.length) },
  ];
  for (const { dataset, places } of fresh) {
    const writer = createDatasetWriter(db, dataset, "add", { keepAddedNames: true });
    writer.begin();
    try {
      for (const p of places) writer.addPlace(p);
      writer.commit();
    } catch (err) {
      writer.rollback();
      throw err;
    }
  }
}

/**
 * Version 6 ranked by a prior on another scale (0.3 for a capital, 0.5 for a country, none for
 * regions) and its regions had no population: priors are those of geonames.ts importanceOf now, and a
 * region without a population counts the people of its places (as an import of admin1CodesASCII.txt
 * does now). With the new version number, in one transaction.
 */
function rankByNewPriors(db: Database) {
  const areas = ADMIN_LAYERS.map((l) => `'${l}'`).join(", ");
  const seat = (code: string) => importanceOf("locality", code);
  db.transaction(() => {
    db.query(
      `UPDATE places SET importance = CASE WHEN layer = 'country' THEN ?1 WHEN layer IN (${areas}) THEN ?2
         WHEN importance = 0.3 THEN ?3 WHEN importance = 0.15 THEN ?4 WHEN importance = 0.08 THEN ?5 WHEN importance = 0.04 THEN ?6 ELSE importance END`,
    ).run(importanceOf("country", ""), importanceOf("region", "ADM1"), seat("PPLC"), seat("PPLA"), seat("PPLA2"), seat("PPLA3"));
    // Through the places_by_region index, one region at a time.
    const setPopulation = db.query<null, [number, string, string]>("UPDATE places SET population = ?1 WHERE layer = 'region' AND country_code = ?2 AND admin1 = ?3 AND population = 0");
    for (const [region, people] of regionPeople(db)) setPopulation.run(people, region.slice(0, 2), region.slice(3));
    db.exec("UPDATE names SET population = (SELECT population FROM places WHERE places.id = names.place_id) WHERE place_id IN (SELECT id FROM places WHERE layer = 'region')");
    db.query("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(SCHEMA_VERSION);
  }).immediate();
}

/** True when the file at `path` was of version 2 to 7 and is now current. */
export async function upgradeGazetteerFile(path: string): Promise<boolean> {
  const db: Database = openGazetteerFile(path);
  try {
    const version = metaValue(db, "schema_version");
    if (version !== "2" && version !== "3" && version !== "4" && version !== "5" && version !== "6" && version !== "7") return false;
    if (version !== "6" && version !== "7") await upgradeTo6(db, version);
    await refreshBuiltin(db);
    // Version 7 ranks as this one: only the refreshed names were missing.
    if (version === "7") db.query("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(SCHEMA_VERSION);
    else rankByNewPriors(db);
    return true;
  } finally {
    db.close(false);
  }
}

/** Versions 2 to 5 to version 6 (see the top of the file), which then goes on to the current one. */
async function upgradeTo6(db: Database, version: string) {
  if (version === "2") await addRegions(db);
  if (version !== "5") {
    db.exec("DROP TABLE IF EXISTS places_rtree");
    // store.ts added the column when it opened the file; names take their place's population now.
    db.exec("UPDATE names SET population = (SELECT population FROM places WHERE places.id = names.place_id) WHERE population = 0");
    db.exec("DROP TABLE IF EXISTS names_fts");
  }
  db.transaction(() => {
    if (version === "5") db.exec(`DROP TABLE names_words; ${NAMES_WORDS}`);
    // Without the index while the names change: store.ts built it over every name when it opened the file.
    db.exec("DROP INDEX IF EXISTS names_by_dataset; DROP INDEX IF EXISTS names_by_adder");
    db.exec("UPDATE names SET dataset = '' WHERE dataset = (SELECT dataset FROM places WHERE places.id = names.place_id)");
    db.exec(NAMES_BY_ADDER);
    indexWords(db);
    db.query("UPDATE meta SET value = '6' WHERE key = 'schema_version'").run();
  }).immediate();
}

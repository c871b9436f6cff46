// A gazetteer file of an earlier schema is brought up to date in place, so the datasets an operator
// imported survive the upgrade; files older than version 2 are rebuilt. Version 2 had no regions and
// no region codes; version 3 kept points in an R*Tree, now a B-tree (store.ts's PLACE_POINT_INDEX,
// which opening the file creates), and its names had no copy of their place's population; version 4
// indexed names by trigrams (names_fts), now by words (names_words, created empty on opening) with a
// typo table of those words; version 5's word index kept a size per name (contentless_delete), which
// doubled the cost of filling it, and is filled again without; names before version 6 carried their
// dataset's name, indexed, where now a dataset's own names carry ''. Every step can run again: a process stopped halfway finishes the upgrade
// at its next start (the last step and the new version number are one transaction).
import type { Database } from "bun:sqlite";
import { BUILTIN_DATASETS, builtinPlaces } from "./builtin";
import { metaValue, NAMES_BY_ADDER, NAMES_WORDS, openGazetteerFile, SCHEMA_VERSION } from "./store";
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

/** True when the file at `path` was of version 2 to 5 and is now current. */
export async function upgradeGazetteerFile(path: string): Promise<boolean> {
  const db: Database = openGazetteerFile(path);
  try {
    const version = metaValue(db, "schema_version");
    if (version !== "2" && version !== "3" && version !== "4" && version !== "5") return false;
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
      db.query("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(SCHEMA_VERSION);
    }).immediate();
    return true;
  } finally {
    db.close(false);
  }
}

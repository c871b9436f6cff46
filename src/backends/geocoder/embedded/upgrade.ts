// A gazetteer file of the previous schema (version 2: no regions, no region codes) is brought up to
// date in place, so the datasets an operator imported survive the upgrade; older files are rebuilt.
// Every step can run again: a process stopped halfway finishes the upgrade at its next start.
import type { Database } from "bun:sqlite";
import { BUILTIN_DATASETS, builtinPlaces } from "./builtin";
import { metaValue, openGazetteerFile, SCHEMA_VERSION } from "./store";
import { createDatasetWriter } from "./writer";

const UPGRADABLE_FROM = "2";

/** True when the file at `path` was of version 2 and is now current. */
export async function upgradeGazetteerFile(path: string): Promise<boolean> {
  const db: Database = openGazetteerFile(path);
  try {
    if (metaValue(db, "schema_version") !== UPGRADABLE_FROM) return false;
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
    db.query("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(SCHEMA_VERSION);
    return true;
  } finally {
    db.close(false);
  }
}

// Builds the built-in gazetteer (the GeoNames cities, countries and regions embedded in the binary) into
// a new SQLite file. The server runs it on a thread of its own (build-thread.ts): decoding and indexing
// ~150k places takes seconds of CPU and a few hundred MB that the request thread should never carry.
import { BUILTIN_DATASETS, builtinPlaces } from "./builtin";
import { openGazetteerFile, SCHEMA_VERSION } from "./store";
import { createDatasetWriter, type DatasetWriter, type PlaceRecord } from "./writer";

function writeAll(writer: DatasetWriter, places: PlaceRecord[]) {
  writer.begin();
  try {
    for (const place of places) writer.addPlace(place);
    writer.commit();
  } catch (err) {
    writer.rollback();
    throw err;
  }
}

/** Builds the built-in gazetteer into `path` (a new file); returns how long it took in ms. */
export async function buildBuiltinGazetteer(path: string): Promise<number> {
  const started = performance.now();
  const db = openGazetteerFile(path, { create: true });
  try {
    const { cities, countries, regions } = await builtinPlaces();
    writeAll(createDatasetWriter(db, BUILTIN_DATASETS.cities, "replace"), cities);
    writeAll(createDatasetWriter(db, BUILTIN_DATASETS.countries, "replace"), countries);
    writeAll(createDatasetWriter(db, BUILTIN_DATASETS.regions, "replace"), regions);
    db.query("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?), ('built_at', ?)").run(SCHEMA_VERSION, new Date().toISOString());
    db.exec("PRAGMA optimize");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close(false);
  }
  return Math.round(performance.now() - started);
}

// Writes one dataset into the gazetteer file inside one transaction: a failed or refused import rolls
// back whole, and readers (another connection) keep seeing the previous data until the commit.
import type { Database } from "bun:sqlite";
import { NAME_INDEX_NAMES, NAME_INDEXES, PLACE_POINT_INDEX, PLACE_POINT_INDEX_NAME } from "./store";
import { foldName } from "./text";
import { addWordKeys } from "./word-typos";

export type DatasetKind = "builtin" | "geonames" | "alternate_names" | "tileset";
export type WriteMode = "replace" | "add";

export interface NameRecord {
  name: string;
  /** ISO 639 code, or "" for a name in no particular language */
  lang: string;
  preferred?: boolean;
}

export interface PlaceRecord {
  extId: string;
  layer: string;
  name: string;
  countryCode: string | null;
  admin1: string | null;
  /** a region's short code (ISO 3166-2 without the country), answered as `region_a` */
  abbr?: string | null;
  population: number;
  importance: number;
  lon: number;
  lat: number;
  /** other names than `name` (which is always indexed) */
  names: NameRecord[];
}

/** A place keeps at most this many names: some GeoNames rows list hundreds of spellings. */
const MAX_NAMES_PER_PLACE = 64;
/** Names written with their indexes in place; past this, the name and point indexes are dropped and built again at commit. */
const BULK_AFTER_NAMES = 50_000;
/** Names written by one INSERT statement (7 columns each, far below SQLite's 32766 parameters). */
const NAMES_PER_INSERT = 64;
const NAME_COLUMNS = 7;
type NameColumn = string | number;
/** The import connection's page cache (KiB): the R*Tree and index builds run several times faster in memory. */
const IMPORT_CACHE_KIB = 256 * 1024;

export function createDatasetWriter(db: Database, dataset: { name: string; kind: DatasetKind; attribution: string }, mode: WriteMode) {
  const findPlace = db.query<{ id: number }, [string, string]>("SELECT id FROM places WHERE dataset = ? AND ext_id = ?");
  const insertPlace = db.query<null, [string, string, string, string, string | null, string | null, string | null, number, number, number, number]>(
    "INSERT INTO places (dataset, ext_id, layer, name, country_code, admin1, abbr, population, importance, lon, lat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const updatePlace = db.query<null, [string, string, string | null, string | null, string | null, number, number, number, number, number]>(
    "UPDATE places SET layer = ?, name = ?, country_code = ?, admin1 = ?, abbr = ?, population = ?, importance = ?, lon = ?, lat = ? WHERE id = ?",
  );
  const NAME_ROW = "(?, ?, ?, ?, ?, ?, ?)";
  const insertNames = (rows: number) => db.query<null, NameColumn[]>(`INSERT INTO names (place_id, dataset, name, folded, lang, preferred, population) VALUES ${Array(rows).fill(NAME_ROW).join(", ")}`);
  const insertNameBatch = insertNames(NAMES_PER_INSERT);
  // Names wait here and go in NAMES_PER_INSERT at a time: one statement call per row costs more than the row.
  const pending: NameColumn[] = [];
  function flushNames() {
    if (pending.length === NAMES_PER_INSERT * NAME_COLUMNS) insertNameBatch.run(...pending);
    else if (pending.length) insertNames(pending.length / NAME_COLUMNS).run(...pending);
    pending.length = 0;
  }
  const dropPlaceNames = [
    db.query<null, [number]>("DELETE FROM names_words WHERE rowid IN (SELECT id FROM names WHERE place_id = ?)"),
    db.query<null, [number]>("DELETE FROM names WHERE place_id = ?"),
  ];
  // The (dataset, ext_id) index answers this as one lookup per GeoNames-based dataset.
  const placesByGeonameId = db.query<{ id: number; population: number }, [string]>(
    "SELECT id, population FROM places WHERE dataset IN (SELECT name FROM datasets WHERE kind IN ('builtin', 'geonames')) AND ext_id = ?",
  );
  let places = 0;
  let names = 0;
  let open = false;
  // Names with a larger id were written by this import: they join the word index in one statement at
  // commit, which is faster than a call per row.
  let lastNameBefore = 0;
  // Only a dataset that starts empty may lose the name indexes mid-import: updating places of a dataset
  // in add mode looks names up by place.
  let mayDropIndexes = false;
  let indexesDropped = false;

  function addName(placeId: number, population: number, n: NameRecord, seen: Set<string>) {
    const folded = foldName(n.name);
    const key = `${n.lang}\u0000${folded}`;
    if (!folded || seen.has(key) || seen.size >= MAX_NAMES_PER_PLACE) return;
    seen.add(key);
    pending.push(placeId, dataset.name, n.name, folded, n.lang, n.preferred ? 1 : 0, population);
    if (pending.length === NAMES_PER_INSERT * NAME_COLUMNS) flushNames();
    if (++names === BULK_AFTER_NAMES && mayDropIndexes) {
      for (const index of [...NAME_INDEX_NAMES, PLACE_POINT_INDEX_NAME]) db.exec(`DROP INDEX IF EXISTS ${index}`);
      indexesDropped = true;
    }
  }

  return {
    begin() {
      db.exec(`PRAGMA cache_size = -${IMPORT_CACHE_KIB}`);
      db.exec("PRAGMA temp_store = MEMORY");
      db.exec("BEGIN IMMEDIATE");
      open = true;
      lastNameBefore = db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM names").get()?.id ?? 0;
      if (mode === "replace") removeDatasetRows(db, dataset.name);
      mayDropIndexes = dataset.kind !== "alternate_names" && !db.query("SELECT 1 FROM places WHERE dataset = ? LIMIT 1").get(dataset.name);
      db.query("INSERT INTO datasets (name, kind, attribution, updated_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET kind = ?2, attribution = ?3, updated_at = ?4").run(
        dataset.name,
        dataset.kind,
        dataset.attribution,
        new Date().toISOString(),
      );
    },

    addPlace(p: PlaceRecord) {
      const existing = mode === "add" ? findPlace.get(dataset.name, p.extId) : null;
      let id: number;
      if (existing) {
        id = existing.id;
        updatePlace.run(p.layer, p.name, p.countryCode, p.admin1, p.abbr ?? null, p.population, p.importance, p.lon, p.lat, id);
        flushNames();
        for (const q of dropPlaceNames) q.run(id);
      } else {
        id = Number(insertPlace.run(dataset.name, p.extId, p.layer, p.name, p.countryCode, p.admin1, p.abbr ?? null, p.population, p.importance, p.lon, p.lat).lastInsertRowid);
        places++;
      }
      const seen = new Set<string>();
      addName(id, p.population, { name: p.name, lang: "", preferred: true }, seen);
      for (const n of p.names) addName(id, p.population, n, seen);
    },

    /** A name for the GeoNames place `geonameId` in any GeoNames-based dataset; false when none has it. */
    addAlternateName(geonameId: string, n: NameRecord): boolean {
      const targets = placesByGeonameId.all(geonameId);
      for (const t of targets) addName(t.id, t.population, n, new Set());
      return targets.length > 0;
    },

    /** Commits and refreshes every dataset's counts (a replaced dataset may take others' names with it). */
    commit(): { places: number; names: number } {
      flushNames();
      if (indexesDropped) db.exec(NAME_INDEXES + PLACE_POINT_INDEX);
      db.query("INSERT INTO names_words (rowid, folded) SELECT id, folded FROM names WHERE id > ?").run(lastNameBefore);
      addWordKeys(db);
      db.exec(
        "UPDATE datasets SET places = (SELECT COUNT(*) FROM places WHERE places.dataset = datasets.name), names = (SELECT COUNT(*) FROM names WHERE names.dataset = datasets.name)",
      );
      db.exec("COMMIT");
      open = false;
      return { places, names };
    },

    rollback() {
      pending.length = 0;
      if (open) db.exec("ROLLBACK");
      open = false;
      indexesDropped = false;
    },
  };
}

export type DatasetWriter = ReturnType<typeof createDatasetWriter>;

/** Removes a dataset's places and names, and the names other datasets gave its places (inside the caller's transaction). */
function removeDatasetRows(db: Database, name: string) {
  const ofDataset = "SELECT id FROM places WHERE dataset = ?1";
  db.query(`DELETE FROM names_words WHERE rowid IN (SELECT id FROM names WHERE dataset = ?1 OR place_id IN (${ofDataset}))`).run(name);
  db.query(`DELETE FROM names WHERE dataset = ?1 OR place_id IN (${ofDataset})`).run(name);
  db.query("DELETE FROM places WHERE dataset = ?1").run(name);
}

/** Deletes a dataset whole; false when there is none of that name. */
export function deleteDataset(db: Database, name: string): boolean {
  return db.transaction(() => {
    if (!db.query("SELECT 1 FROM datasets WHERE name = ?").get(name)) return false;
    removeDatasetRows(db, name);
    db.query("DELETE FROM datasets WHERE name = ?").run(name);
    db.exec("UPDATE datasets SET names = (SELECT COUNT(*) FROM names WHERE names.dataset = datasets.name)");
    return true;
  }).immediate();
}

// The gazetteer's own SQLite file in DATA_DIR (not the main database, so it needs no migration and can
// be rebuilt or replaced on its own). Places carry one row each; every name of a place (the main name,
// variants, translations) is a row of `names`, indexed twice: a B-tree on the folded form for exact and
// prefix matches, and a contentless FTS5 index of its words (names_words) for words inside names. Typos
// of a word are found through word_deletes (word-typos.ts). Nearest-place queries read a B-tree over
// (one-degree latitude band, longitude): a box is one seek per band, and the index is built by one sort
// after a bulk import, several times faster than filling an R*Tree.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { WORD_DELETES } from "./word-typos";

export const GAZETTEER_FILE = "gazetteer.sqlite";
/** Bumped when the schema or the built-in data changes: an older file is rebuilt. */
export const SCHEMA_VERSION = "8";

export const gazetteerPath = (dataDir: string) => join(dataDir, GAZETTEER_FILE);

/**
 * The indexes of \`names\`, apart so that a large import can drop them and build them again at the end:
 * sorting once is far faster than a million inserts at random places of a B-tree.
 */
export const NAME_INDEXES = `
CREATE INDEX IF NOT EXISTS names_by_place ON names (place_id);
CREATE INDEX IF NOT EXISTS names_by_folded ON names (folded, population DESC, place_id);`;
export const NAME_INDEX_NAMES = ["names_by_place", "names_by_folded"];
/**
 * The names one dataset gave another's places (alternate names): a dataset's own names, nearly all of
 * them, carry '' and stay out of it, so a bulk import neither writes nor sorts an entry per name.
 */
export const NAMES_BY_ADDER = "CREATE INDEX IF NOT EXISTS names_by_adder ON names (dataset) WHERE dataset <> '';";

/**
 * The word index of names. Words only (detail = none: no positions), a fraction of what a trigram index
 * cost to fill: the lookups are single words, word prefixes and ORs of words. No per-row sizes
 * (columnsize = 0, which rules out contentless_delete): they halve the cost of filling it, and nothing
 * ranks by them. A name leaves it by FTS5's 'delete' command with its folded text, which names keeps.
 */
export const NAMES_WORDS = "CREATE VIRTUAL TABLE IF NOT EXISTS names_words USING fts5 (folded, content = '', columnsize = 0, detail = none, tokenize = 'unicode61 remove_diacritics 0');";
/** Removes the names `where` picks (a condition on `names`, parameters ?1...) from the word index. */
export const unindexNames = (where: string) => `INSERT INTO names_words (names_words, rowid, folded) SELECT 'delete', id, folded FROM names WHERE ${where}`;

/** A place's latitude band: whole degrees from the South Pole (0-180). Queries use the same expression. */
export const LAT_BAND = "CAST(lat + 90 AS INTEGER)";
/** The reverse-geocoding index, apart like the name indexes so a bulk import builds it once at the end. */
export const PLACE_POINT_INDEX = `CREATE INDEX IF NOT EXISTS places_by_point ON places (${LAT_BAND}, lon);`;
export const PLACE_POINT_INDEX_NAME = "places_by_point";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS datasets (
  name TEXT PRIMARY KEY,
  kind TEXT NOT NULL,            -- builtin | geonames | alternate_names
  attribution TEXT NOT NULL,
  places INTEGER NOT NULL DEFAULT 0,
  names INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS places (
  id INTEGER PRIMARY KEY,
  dataset TEXT NOT NULL,
  ext_id TEXT NOT NULL,          -- the source's id (GeoNames geonameid)
  layer TEXT NOT NULL,
  name TEXT NOT NULL,
  country_code TEXT,             -- ISO 3166-1 alpha-2
  admin1 TEXT,                   -- GeoNames first-level region code, for region names in labels
  abbr TEXT,                     -- a region's ISO 3166-2 code (IL for Illinois): its region_a
  population INTEGER NOT NULL DEFAULT 0,
  importance REAL NOT NULL DEFAULT 0,
  lon REAL NOT NULL,
  lat REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS places_by_dataset_id ON places (dataset, ext_id);
CREATE INDEX IF NOT EXISTS places_by_region ON places (country_code, admin1) WHERE layer = 'region';
CREATE INDEX IF NOT EXISTS places_by_country ON places (country_code) WHERE layer = 'country';
${PLACE_POINT_INDEX}
CREATE TABLE IF NOT EXISTS names (
  id INTEGER PRIMARY KEY,
  place_id INTEGER NOT NULL,
  dataset TEXT NOT NULL,         -- '' for a name its place's dataset gave it, else the dataset that added it (alternate names)
  name TEXT NOT NULL,
  folded TEXT NOT NULL,
  lang TEXT NOT NULL DEFAULT '',
  preferred INTEGER NOT NULL DEFAULT 0,
  population INTEGER NOT NULL DEFAULT 0 -- its place's, so lookups rank names without reading places
);
${NAME_INDEXES}
${NAMES_BY_ADDER}
${NAMES_WORDS}
-- The distinct words of names, read by word-typos.ts to key the new ones.
CREATE VIRTUAL TABLE IF NOT EXISTS names_words_vocab USING fts5vocab (names_words, 'row');
${WORD_DELETES}
`;

export function openGazetteerFile(path: string, opts: { create?: boolean; readonly?: boolean } = {}): Database {
  const db = opts.readonly ? new Database(path, { readonly: true, strict: true }) : new Database(path, { create: opts.create ?? false, strict: true });
  db.exec("PRAGMA busy_timeout = 10000");
  if (!opts.readonly) {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    addNamePopulation(db);
    db.exec(SCHEMA);
  }
  return db;
}

/**
 * Files before version 4 have no names.population, and their names_by_folded lacks it: the column comes
 * first (the schema's index needs it), its values with the upgrade (upgrade.ts).
 */
function addNamePopulation(db: Database) {
  const columns = db.query<{ name: string }, []>("PRAGMA table_info(names)").all().map((c) => c.name);
  if (!columns.length || columns.includes("population")) return;
  db.exec("ALTER TABLE names ADD COLUMN population INTEGER NOT NULL DEFAULT 0");
  db.exec("DROP INDEX IF EXISTS names_by_folded");
}

export interface DatasetInfo {
  name: string;
  kind: string;
  attribution: string;
  places: number;
  names: number;
  updated_at: string;
}

export function listDatasets(db: Database): DatasetInfo[] {
  return db.query<DatasetInfo, []>("SELECT name, kind, attribution, places, names, updated_at FROM datasets ORDER BY kind = 'builtin' DESC, name").all();
}

/**
 * The people of each region (`CC.admin1`), which admin1CodesASCII.txt does not give: those of its
 * places in the gazetteer, each place once however many datasets hold it (by geonameid), not
 * counting neighbourhoods (they lie inside places).
 */
export function regionPeople(db: Database): Map<string, number> {
  const rows = db
    .query<{ key: string; people: number }, []>(
      `SELECT key, SUM(population) AS people FROM (
         SELECT country_code || '.' || admin1 AS key, MAX(population) AS population FROM places
         WHERE admin1 IS NOT NULL AND country_code IS NOT NULL AND layer = 'locality' GROUP BY ext_id, key)
       GROUP BY key`,
    )
    .all();
  return new Map(rows.map((r) => [r.key, r.people]));
}

export function metaValue(db: Database, key: string): string | null {
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value ?? null;
}

/** A connection that writes imports: the WAL is copied into the file after each (gazetteer.ts checkpointAfterWrite), not during it. */
export function openWriter(path: string): Database {
  const db = openGazetteerFile(path);
  db.exec("PRAGMA wal_autocheckpoint = 0");
  return db;
}

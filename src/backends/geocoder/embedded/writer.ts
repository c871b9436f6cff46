// Writes one dataset into the gazetteer file inside one transaction: a failed or refused import rolls
// back whole, and readers (another connection) keep seeing the previous data until the commit.
import type { Database } from "bun:sqlite";
import { availableParallelism } from "node:os";
import { NAME_INDEX_NAMES, NAME_INDEXES, PLACE_POINT_INDEX, PLACE_POINT_INDEX_NAME, unindexNames } from "./store";
import { foldName } from "./text";
import { distinctNames } from "./place-names";
import { addWordKeys } from "./word-typos";

export type DatasetKind = "builtin" | "geonames" | "alternate_names" | "tileset";
export type WriteMode = "replace" | "add";

export interface NameRecord {
  name: string;
  /** ISO 639 code, or "" for a name in no particular language */
  lang: string;
  preferred?: boolean;
  /** foldName(name), when the caller has it already (the import folds names on its parsing thread) */
  folded?: string;
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
  /** foldName(name), when the caller has it already */
  folded?: string;
  /**
   * True when `names` are already distinctNames(folded, names), each with its `folded`: the import's
   * parsing thread picks them, so the thread writing SQLite need not.
   */
  namesDistinct?: boolean;
}

/** Names written with their indexes in place; past this, the name and point indexes are dropped and built again at commit. */
const BULK_AFTER_NAMES = 50_000;
/** Names and places written by one INSERT statement (7 and 12 columns each, far below SQLite's 32766 parameters). */
const ROWS_PER_INSERT = 64;
const NAME_COLUMNS = 7;
const PLACE_COLUMNS = 12;
type Column = string | number | null;
/** FTS5's in-memory buffer of new words (bytes) before it writes them out: 8x its default makes fewer, larger segments to merge. */
const WORD_INDEX_BUFFER = 8 * 1024 * 1024;

/** A multi-row INSERT of `rows` rows into `table` (`columns` in order). */
const insertRows = (db: Database, table: string, columns: string[], rows: number) =>
  db.query<null, Column[]>(`INSERT INTO ${table} (${columns.join(", ")}) VALUES ${Array(rows).fill(`(${columns.map(() => "?").join(", ")})`).join(", ")}`);

const isUniqueViolation = (err: unknown) => (err as { code?: string })?.code === "SQLITE_CONSTRAINT_UNIQUE";
/** The import connection's page cache (KiB): the rows and the word index it fills stay in memory until the commit (the index builds run with INDEX_SORT_RUN_KIB). */
const IMPORT_CACHE_KIB = 256 * 1024;
/**
 * SQLite sorts an index build on helper threads only when its temporary files may go to disk
 * (`temp_store = FILE`: with MEMORY it sorts in one thread) and the rows are split into sorted runs, each
 * the size of the page cache: so the import's indexes are built with this cache and these threads. On
 * two cores that halved the index builds of a million-place import (4.0-4.3 s to 2.0-2.1 s, alternating
 * runs). The runs are written to unlinked temporary files (SQLITE_TMPDIR, else /var/tmp or /tmp), about
 * as large as the indexes, which the OS mostly keeps in its cache.
 */
const INDEX_SORT_RUN_KIB = 4 * 1024;
const INDEX_SORT_THREADS = Math.min(4, availableParallelism());

/**
 * `keepAddedNames`: a place updated in "add" mode keeps the names other datasets gave it (alternate
 * names), which an import's update drops; the upgrade that brings built-in places up to date uses it.
 */
export function createDatasetWriter(db: Database, dataset: { name: string; kind: DatasetKind; attribution: string }, mode: WriteMode, opts: { keepAddedNames?: boolean } = {}) {
  const findPlace = db.query<{ id: number }, [string, string]>("SELECT id FROM places WHERE dataset = ? AND ext_id = ?");
  const PLACE_ROW = ["id", "dataset", "ext_id", "layer", "name", "country_code", "admin1", "abbr", "population", "importance", "lon", "lat"];
  const insertPlace = insertRows(db, "places", PLACE_ROW, 1);
  const updatePlace = db.query<null, [string, string, string | null, string | null, string | null, number, number, number, number, number]>(
    "UPDATE places SET layer = ?, name = ?, country_code = ?, admin1 = ?, abbr = ?, population = ?, importance = ?, lon = ?, lat = ? WHERE id = ?",
  );
  const NAME_ROW = ["place_id", "dataset", "name", "folded", "lang", "preferred", "population"];
  // Rows wait here and go in ROWS_PER_INSERT at a time: one statement call per row costs more than the row.
  const names = rowBuffer(db, "names", NAME_ROW);
  const takePlace = db.query<{ id: number }, [string, string]>("DELETE FROM places WHERE dataset = ? AND ext_id = ? RETURNING id");
  /** Places this import wrote and then replaced by a later row of the same id (bulk writes only). */
  const replaced: number[] = [];
  const counts = { places: 0, names: 0 };
  const newPlaces = rowBuffer(db, "places", PLACE_ROW, (rows) => {
    // A place whose geonameid came earlier in the same import: the later row replaces it (its names
    // go at commit, in one pass), one row at a time for this batch, which SQLite rolled back whole.
    for (let at = 0; at < rows.length; at += PLACE_COLUMNS) {
      const row = rows.slice(at, at + PLACE_COLUMNS);
      const earlier = takePlace.get(dataset.name, row[2] as string);
      if (earlier) {
        replaced.push(earlier.id);
        counts.places--;
      }
      insertPlace.run(...row);
    }
  });
  // Only the place's own names ('') when others' are kept (their copy of its population follows it).
  const ofPlace = opts.keepAddedNames ? "place_id = ?1 AND dataset = ''" : "place_id = ?1";
  const unindexPlaceNames = db.query<null, [number]>(unindexNames(ofPlace));
  const dropPlaceNames = db.query<{ dataset: string }, [number]>(`DELETE FROM names WHERE ${ofPlace} RETURNING dataset`);
  const setNamesPopulation = db.query<null, [number, number]>("UPDATE names SET population = ?2 WHERE place_id = ?1");
  /** What this import changes in each dataset's count of names, written at commit. */
  const namesDelta = new Map<string, number>();
  const adjust = (name: string, by: number) => namesDelta.set(name, (namesDelta.get(name) ?? 0) + by);
  /** The `dataset` of the names this import writes: its own ('') or, for alternate names, its name. */
  const adder = dataset.kind === "alternate_names" ? dataset.name : "";
  // The (dataset, ext_id) index answers this as one lookup per GeoNames-based dataset.
  const placesByGeonameId = db.query<{ id: number; population: number }, [string]>(
    "SELECT id, population FROM places WHERE dataset IN (SELECT name FROM datasets WHERE kind IN ('builtin', 'geonames')) AND ext_id = ?",
  );
  let open = false;
  // Names with a larger id were written by this import: they join the word index in one statement at
  // commit, which is faster than a call per row.
  let lastNameBefore = 0;
  // Only a dataset that starts empty is written in bulk: its places take ids counted from here, in
  // multi-row INSERTs, without a lookup each, and the name indexes may go mid-import (updating places
  // of a dataset in add mode looks names up by place).
  let bulk = false;
  let nextPlaceId = 0;
  let indexesDropped = false;

  /** Writes one name row; `folded` is foldName(name) and not empty. */
  function addName(placeId: number, population: number, name: string, folded: string, lang: string, preferred: boolean) {
    names.add(placeId, adder, name, folded, lang, preferred ? 1 : 0, population);
    if (++counts.names === BULK_AFTER_NAMES && bulk) {
      for (const index of [...NAME_INDEX_NAMES, PLACE_POINT_INDEX_NAME]) db.exec(`DROP INDEX IF EXISTS ${index}`);
      indexesDropped = true;
    }
  }

  return {
    begin() {
      db.exec(`PRAGMA cache_size = -${IMPORT_CACHE_KIB}`);
      // Before the transaction: SQLite refuses to change it inside one that has used temporary storage.
      db.exec("PRAGMA temp_store = FILE");
      db.exec("BEGIN IMMEDIATE");
      open = true;
      db.query("INSERT INTO names_words (names_words, rank) VALUES ('hashsize', ?)").run(WORD_INDEX_BUFFER);
      if (mode === "replace") removeDatasetRows(db, dataset.name);
      // After the removal: new names may take the ids of removed ones (SQLite counts on from the largest left).
      lastNameBefore = db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM names").get()?.id ?? 0;
      bulk = dataset.kind !== "alternate_names" && !db.query("SELECT 1 FROM places WHERE dataset = ? LIMIT 1").get(dataset.name);
      nextPlaceId = (db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM places").get()?.id ?? 0) + 1;
      db.query("INSERT INTO datasets (name, kind, attribution, updated_at) VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET kind = ?2, attribution = ?3, updated_at = ?4").run(
        dataset.name,
        dataset.kind,
        dataset.attribution,
        new Date().toISOString(),
      );
    },

    addPlace(p: PlaceRecord) {
      let id: number;
      const existing = !bulk && mode === "add" ? findPlace.get(dataset.name, p.extId) : null;
      if (existing) {
        id = existing.id;
        updatePlace.run(p.layer, p.name, p.countryCode, p.admin1, p.abbr ?? null, p.population, p.importance, p.lon, p.lat, id);
        names.flush();
        unindexPlaceNames.run(id);
        // The place's names go, those other datasets gave it too (as before its update), unless kept.
        for (const gone of dropPlaceNames.all(id)) adjust(gone.dataset || dataset.name, -1);
        if (opts.keepAddedNames) setNamesPopulation.run(id, p.population);
      } else {
        id = nextPlaceId++;
        // Arguments, not an array per place: garbage the build of the built-in data peaked 30 MB higher with.
        if (bulk) newPlaces.add(id, dataset.name, p.extId, p.layer, p.name, p.countryCode, p.admin1, p.abbr ?? null, p.population, p.importance, p.lon, p.lat);
        else insertPlace.run(id, dataset.name, p.extId, p.layer, p.name, p.countryCode, p.admin1, p.abbr ?? null, p.population, p.importance, p.lon, p.lat);
        counts.places++;
      }
      const folded = p.folded ?? foldName(p.name);
      if (folded) addName(id, p.population, p.name, folded, "", true);
      for (const n of p.namesDistinct ? p.names : distinctNames(folded, p.names)) addName(id, p.population, n.name, n.folded!, n.lang, n.preferred ?? false);
    },

    /** Places and names written so far (for progress). */
    written(): { places: number; names: number } {
      return { ...counts };
    },

    /** A name for the GeoNames place `geonameId` in any GeoNames-based dataset; false when none has it. */
    addAlternateName(geonameId: string, n: NameRecord): boolean {
      const targets = placesByGeonameId.all(geonameId);
      const folded = n.folded ?? foldName(n.name);
      if (folded) for (const t of targets) addName(t.id, t.population, n.name, folded, n.lang, n.preferred ?? false);
      return targets.length > 0;
    },

    /** Commits with every dataset's counts brought up to date (a replaced dataset may take others' names with it). */
    commit(): { places: number; names: number } {
      newPlaces.flush();
      names.flush();
      if (replaced.length) counts.names -= db.query("DELETE FROM names WHERE id > ? AND place_id IN (SELECT value FROM json_each(?))").run(lastNameBefore, JSON.stringify(replaced)).changes;
      if (indexesDropped) buildIndexesOnThreads(db, NAME_INDEXES + PLACE_POINT_INDEX);
      db.query("INSERT INTO names_words (rowid, folded) SELECT id, folded FROM names WHERE id > ?").run(lastNameBefore);
      addWordKeys(db);
      adjust(dataset.name, counts.names);
      for (const [name, by] of namesDelta) adjustNames(db, name, by);
      db.exec("UPDATE datasets SET places = (SELECT COUNT(*) FROM places WHERE places.dataset = datasets.name)");
      db.exec("COMMIT");
      open = false;
      return { ...counts };
    },

    rollback() {
      newPlaces.clear();
      names.clear();
      // SQLite may have rolled back already (a full disk does): a second ROLLBACK's "no transaction is
      // active" would replace the error that says why.
      if (open && db.inTransaction) db.exec("ROLLBACK");
      open = false;
      indexesDropped = false;
    },
  };
}

export type DatasetWriter = ReturnType<typeof createDatasetWriter>;

/** Runs `sql` (index builds) with SQLite's sorter on threads (see INDEX_SORT_RUN_KIB), then gives the import its cache back. */
function buildIndexesOnThreads(db: Database, sql: string) {
  db.exec(`PRAGMA threads = ${INDEX_SORT_THREADS}`);
  db.exec(`PRAGMA cache_size = -${INDEX_SORT_RUN_KIB}`);
  try {
    db.exec(sql);
  } finally {
    db.exec(`PRAGMA cache_size = -${IMPORT_CACHE_KIB}`);
    db.exec("PRAGMA threads = 0");
  }
}

/**
 * Rows for `table` that go in ROWS_PER_INSERT at a time; `onUniqueViolation` gets a batch SQLite
 * refused whole for a duplicate key (the caller's to write otherwise), else the error is thrown.
 */
function rowBuffer(db: Database, table: string, columns: string[], onUniqueViolation?: (rows: Column[]) => void) {
  const full = ROWS_PER_INSERT * columns.length;
  const insertBatch = insertRows(db, table, columns, ROWS_PER_INSERT);
  const rows: Column[] = [];
  const buffer = {
    /** A name's 7 columns or a place's 12 (fixed arguments: a rest array per row is garbage by the million). */
    add(a: Column, b: Column, c: Column, d: Column, e: Column, f: Column, g: Column, h?: Column, i?: Column, j?: Column, k?: Column, l?: Column) {
      if (columns.length === NAME_COLUMNS) rows.push(a, b, c, d, e, f, g);
      else rows.push(a, b, c, d, e, f, g, h!, i!, j!, k!, l!);
      if (rows.length === full) buffer.flush();
    },
    flush() {
      if (!rows.length) return;
      try {
        if (rows.length === full) insertBatch.run(...rows);
        else insertRows(db, table, columns, rows.length / columns.length).run(...rows);
      } catch (err) {
        if (!onUniqueViolation || !isUniqueViolation(err)) throw err;
        onUniqueViolation([...rows]);
      }
      rows.length = 0;
    },
    clear() {
      rows.length = 0;
    },
  };
  return buffer;
}

const adjustNames = (db: Database, name: string, by: number) => db.query("UPDATE datasets SET names = names + ? WHERE name = ?").run(by, name);

/**
 * Removes a dataset's places and names, and the names other datasets gave its places, from the rows
 * and the counts (inside the caller's transaction).
 */
function removeDatasetRows(db: Database, name: string) {
  const ofDataset = "SELECT id FROM places WHERE dataset = ?1";
  // `dataset <> ''` repeated so that SQLite reads the (partial) names_by_adder index.
  const names = `(dataset = ?1 AND dataset <> '') OR place_id IN (${ofDataset})`;
  const others = db.query<{ dataset: string; n: number }, [string]>(`SELECT dataset, COUNT(*) AS n FROM names WHERE place_id IN (${ofDataset}) AND dataset <> '' GROUP BY dataset`).all(name);
  for (const o of others) adjustNames(db, o.dataset, -o.n);
  db.query("UPDATE datasets SET names = 0 WHERE name = ?").run(name);
  db.query(unindexNames(names)).run(name);
  db.query(`DELETE FROM names WHERE ${names}`).run(name);
  db.query("DELETE FROM places WHERE dataset = ?1").run(name);
}

/** Deletes a dataset whole; false when there is none of that name. */
export function deleteDataset(db: Database, name: string): boolean {
  return db.transaction(() => {
    if (!db.query("SELECT 1 FROM datasets WHERE name = ?").get(name)) return false;
    removeDatasetRows(db, name);
    db.query("DELETE FROM datasets WHERE name = ?").run(name);
    return true;
  }).immediate();
}

// Writes one dataset into the gazetteer file inside one transaction: a failed or refused import rolls
// back whole, and readers (another connection) keep seeing the previous data until the commit.
import type { Database } from "bun:sqlite";
import { foldName } from "./text";

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
  population: number;
  importance: number;
  lon: number;
  lat: number;
  /** other names than `name` (which is always indexed) */
  names: NameRecord[];
}

/** A place keeps at most this many names: some GeoNames rows list hundreds of spellings. */
const MAX_NAMES_PER_PLACE = 64;

export function createDatasetWriter(db: Database, dataset: { name: string; kind: DatasetKind; attribution: string }, mode: WriteMode) {
  const findPlace = db.query<{ id: number }, [string, string]>("SELECT id FROM places WHERE dataset = ? AND ext_id = ?");
  const insertPlace = db.query<{ id: number }, [string, string, string, string, string | null, string | null, number, number, number, number]>(
    "INSERT INTO places (dataset, ext_id, layer, name, country_code, admin1, population, importance, lon, lat) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
  );
  const updatePlace = db.query<null, [string, string, string | null, string | null, number, number, number, number, number]>(
    "UPDATE places SET layer = ?, name = ?, country_code = ?, admin1 = ?, population = ?, importance = ?, lon = ?, lat = ? WHERE id = ?",
  );
  const insertName = db.query<null, [number, string, string, string, string, number]>("INSERT INTO names (place_id, dataset, name, folded, lang, preferred) VALUES (?, ?, ?, ?, ?, ?)");
  const insertPoint = db.query<null, [number, number, number, number, number]>("INSERT INTO places_rtree (id, min_lon, max_lon, min_lat, max_lat) VALUES (?, ?, ?, ?, ?)");
  const dropPlaceNames = [
    db.query<null, [number]>("DELETE FROM names_fts WHERE rowid IN (SELECT id FROM names WHERE place_id = ?)"),
    db.query<null, [number]>("DELETE FROM names WHERE place_id = ?"),
    db.query<null, [number]>("DELETE FROM places_rtree WHERE id = ?"),
  ];
  const placesByGeonameId = db.query<{ id: number }, [string]>(
    "SELECT id FROM places WHERE ext_id = ? AND dataset IN (SELECT name FROM datasets WHERE kind IN ('builtin', 'geonames'))",
  );
  let places = 0;
  let names = 0;
  let open = false;
  // Rows with a larger id were written by this import: they join the trigram index and the R*Tree in one
  // statement each at commit, which is faster than a call per row.
  let lastNameBefore = 0;
  let lastPlaceBefore = 0;

  function addName(placeId: number, n: NameRecord, seen: Set<string>) {
    const folded = foldName(n.name);
    const key = `${n.lang}\u0000${folded}`;
    if (!folded || seen.has(key) || seen.size >= MAX_NAMES_PER_PLACE) return;
    seen.add(key);
    insertName.run(placeId, dataset.name, n.name, folded, n.lang, n.preferred ? 1 : 0);
    names++;
  }

  return {
    begin() {
      db.exec("BEGIN IMMEDIATE");
      open = true;
      lastNameBefore = db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM names").get()?.id ?? 0;
      lastPlaceBefore = db.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM places").get()?.id ?? 0;
      if (mode === "replace") {
        const ofDataset = "SELECT id FROM places WHERE dataset = ?1";
        db.query(`DELETE FROM names_fts WHERE rowid IN (SELECT id FROM names WHERE dataset = ?1 OR place_id IN (${ofDataset}))`).run(dataset.name);
        db.query(`DELETE FROM names WHERE dataset = ?1 OR place_id IN (${ofDataset})`).run(dataset.name);
        db.query(`DELETE FROM places_rtree WHERE id IN (${ofDataset})`).run(dataset.name);
        db.query("DELETE FROM places WHERE dataset = ?1").run(dataset.name);
      }
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
        updatePlace.run(p.layer, p.name, p.countryCode, p.admin1, p.population, p.importance, p.lon, p.lat, id);
        for (const q of dropPlaceNames) q.run(id);
        insertPoint.run(id, p.lon, p.lon, p.lat, p.lat);
      } else {
        id = insertPlace.get(dataset.name, p.extId, p.layer, p.name, p.countryCode, p.admin1, p.population, p.importance, p.lon, p.lat)!.id;
        places++;
      }
      const seen = new Set<string>();
      addName(id, { name: p.name, lang: "", preferred: true }, seen);
      for (const n of p.names) addName(id, n, seen);
    },

    /** A name for the GeoNames place `geonameId` in any GeoNames-based dataset; false when none has it. */
    addAlternateName(geonameId: string, n: NameRecord): boolean {
      const targets = placesByGeonameId.all(geonameId);
      for (const t of targets) addName(t.id, n, new Set());
      return targets.length > 0;
    },

    /** Commits and refreshes every dataset's counts (a replaced dataset may take others' names with it). */
    commit(): { places: number; names: number } {
      db.query("INSERT INTO names_fts (rowid, folded) SELECT id, folded FROM names WHERE id > ?").run(lastNameBefore);
      db.query("INSERT INTO places_rtree (id, min_lon, max_lon, min_lat, max_lat) SELECT id, lon, lon, lat, lat FROM places WHERE id > ?").run(lastPlaceBefore);
      db.exec(
        "UPDATE datasets SET places = (SELECT COUNT(*) FROM places WHERE places.dataset = datasets.name), names = (SELECT COUNT(*) FROM names WHERE names.dataset = datasets.name)",
      );
      db.exec("COMMIT");
      open = false;
      return { places, names };
    },

    rollback() {
      if (open) db.exec("ROLLBACK");
      open = false;
    },
  };
}

export type DatasetWriter = ReturnType<typeof createDatasetWriter>;

// The disk-backed feature store the tiler reads from: every cleaned feature of every layer goes into a
// temporary SQLite file next to the archive being written. Once zooms are settled (thinning, clustering),
// an R*Tree indexes each feature's Web Mercator extent and zoom range, built in spatial order. Tiles are
// then cut from range queries, so memory holds one tile's features at a time, never the whole input.
import { Database, type Statement } from "bun:sqlite";
import { rmSync } from "node:fs";
import type { Geometry } from "geojson";
import { COARSEST, DensityGrid, FINEST } from "./density-grid";
import { GENERALIZED_ZOOMS, MIN_TEXT, generalizedTexts } from "./generalize";

/** A bounding box in the Web Mercator unit square (x east, y south, 0..1; x may pass 1 across 180°). */
export type UnitBox = [minX: number, minY: number, maxX: number, maxY: number];

export interface StoredFeature {
  geometry: string;
  properties: string;
  /** the source's feature id (an unsigned integer, as MVT ids are), for MapLibre's feature state */
  fid: number | null;
  minzoom: number;
  /** the last zoom it shows at (a cluster shows at one zoom only); null: every zoom from minzoom */
  maxzoom: number | null;
}

/** A cluster of points made at one zoom: where it sits (unit square), how many points it stands for. */
export interface Cluster {
  x: number;
  y: number;
  count: number;
}

/** Features whose extent reaches this close to the antimeridian are indexed on the other side too. */
const WRAP_MARGIN = 1 / 32;
const BATCH = 5000;
/** Feature texts read per statement. */
const TEXT_BATCH = 1000;
/** Large features simplified per page of the generalize() pass. */
const GENERALIZE_BATCH = 64;
/** The zoom range of a feature that never shows (a point thinning left unset). */
const NEVER = 255;
/** Rows enter the index by row and column of a 1024 x 1024 grid (zoom 10 tiles). */
const ORDER_CELLS = 1024;

type Box4 = [number, number, number, number];

interface Queries {
  anyIn: Statement<{ one: number }, Box4>;
  /** per GENERALIZED_ZOOMS level, then the full text: features in a tile with the text size that level reads */
  inTile: Statement<{ id: number; bytes: number; minzoom: number; maxzoom: number | null }, [...Box4, number, number, number]>[];
  /** the same, the texts themselves */
  texts: Statement<{ id: number; geometry: string; properties: string; fid: number | null }, [string]>[];
  inBlock: Statement<StoredFeature & { id: number; importance: number }, [...Box4, number]>;
  sizeIn: Statement<{ bytes: number | null }, Box4>;
  largeSizeIn: Statement<{ bytes: number | null }, Box4>;
}

function prepareQueries(db: Database): Queries {
  const box = "max_x >= ?1 AND min_x <= ?2 AND max_y >= ?3 AND min_y <= ?4";
  // An entry's id divided by 4 is its feature (copies across the antimeridian share it); IN dedups them.
  const within = (extra = "", table = "extents") => `f.id IN (SELECT id >> 2 FROM ${table} WHERE ${box}${extra})`;
  return {
    anyIn: db.prepare(`SELECT 1 AS one FROM extents WHERE ${box} LIMIT 1`),
    inTile: [...GENERALIZED_ZOOMS.map((_, level) => `COALESCE(f.gen_bytes_${level}, f.bytes)`), "f.bytes"].map((bytes) =>
      db.prepare<{ id: number; bytes: number; minzoom: number; maxzoom: number | null }, [...Box4, number, number, number]>(
        `SELECT f.id, ${bytes} AS bytes, f.minzoom, f.maxzoom FROM features f
         WHERE ${within(" AND min_z <= ?5 AND max_z >= ?6")} AND f.layer = ?7 ORDER BY f.importance DESC, f.id`,
      ),
    ),
    // Many rows per statement, ids given as a JSON array: one statement per feature cost ten times as much.
    texts: [
      ...GENERALIZED_ZOOMS.map((_, level) =>
        db.prepare<{ id: number; geometry: string; properties: string; fid: number | null }, [string]>(`SELECT t.id, COALESCE(g.geometry, t.geometry) AS geometry, t.properties, t.fid FROM json_each(?) j JOIN texts t ON t.id = j.value LEFT JOIN generalized g ON g.id = t.id AND g.level = ${level}`),
      ),
      db.prepare<{ id: number; geometry: string; properties: string; fid: number | null }, [string]>("SELECT t.id, t.geometry, t.properties, t.fid FROM json_each(?) j JOIN texts t ON t.id = j.value"),
    ],
    inBlock: db.prepare(
      `SELECT f.id, f.importance, f.minzoom, f.maxzoom, t.geometry, t.properties, t.fid FROM features f JOIN texts t ON t.id = f.id
       WHERE ${within()} AND f.layer = ?5 ORDER BY f.id`,
    ),
    sizeIn: db.prepare(`SELECT SUM(f.bytes) AS bytes FROM features f WHERE ${within()}`),
    largeSizeIn: db.prepare(`SELECT SUM(f.bytes) AS bytes FROM features f WHERE ${within("", "large_extents")}`),
  };
}

export class FeatureStore {
  private readonly db: Database;
  private readonly insertFeature: Statement;
  private readonly insertText: Statement;
  private queries: Queries | null = null;
  private readonly density = new DensityGrid();
  private pending = 0;
  count = 0;

  constructor(readonly path: string) {
    for (const suffix of ["", "-journal"]) rmSync(path + suffix, { force: true });
    this.db = new Database(path, { create: true, readwrite: true });
    // A scratch file: losing it on a crash only means processing again.
    this.db.exec("PRAGMA journal_mode = OFF");
    this.db.exec("PRAGMA synchronous = OFF");
    this.db.exec("PRAGMA cache_size = -16384"); // 16 MiB of page cache, whatever the input size
    this.db.exec("PRAGMA temp_store = FILE");
    // Small rows apart from the feature text, so sizing, thinning and the index never read the geometries.
    this.db.exec(
      `CREATE TABLE features (id INTEGER PRIMARY KEY, layer INTEGER NOT NULL, minzoom INTEGER, maxzoom INTEGER, importance REAL NOT NULL,
       x REAL, y REAL, bytes INTEGER NOT NULL, ${GENERALIZED_ZOOMS.map((_, level) => `gen_bytes_${level} INTEGER, `).join("")}min_x REAL NOT NULL, min_y REAL NOT NULL, max_x REAL NOT NULL, max_y REAL NOT NULL)`,
    );
    this.db.exec("CREATE TABLE texts (id INTEGER PRIMARY KEY, geometry TEXT NOT NULL, properties TEXT NOT NULL, fid INTEGER)");
    // The coarser geometries of large features for the low zooms (generalize.ts), by GENERALIZED_ZOOMS level.
    this.db.exec("CREATE TABLE generalized (id INTEGER NOT NULL, level INTEGER NOT NULL, geometry TEXT NOT NULL, PRIMARY KEY (id, level)) WITHOUT ROWID");
    this.insertFeature = this.db.prepare("INSERT INTO features (layer, minzoom, maxzoom, importance, x, y, bytes, min_x, min_y, max_x, max_y) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    this.insertText = this.db.prepare("INSERT INTO texts (id, geometry, properties, fid) VALUES (?, ?, ?, ?)");
    this.db.exec("BEGIN");
  }

  /**
   * Adds one feature. `minzoom` null leaves it to point thinning (see thinPoints); `point` is the
   * position of a Point feature, used by thinning. Returns the characters of text stored for it.
   */
  add(layer: number, geometry: unknown, properties: Record<string, unknown>, box: UnitBox, minzoom: number | null, importance: number, point: [number, number] | null, fid: number | null = null): number {
    this.count++;
    return this.insert(layer, geometry, properties, box, minzoom, null, importance, point, fid);
  }

  private insert(layer: number, geometry: unknown, properties: Record<string, unknown>, box: UnitBox, minzoom: number | null, maxzoom: number | null, importance: number, point: [number, number] | null, fid: number | null = null): number {
    const g = JSON.stringify(geometry);
    const p = JSON.stringify(properties);
    const id = this.insertFeature.run(layer, minzoom, maxzoom, importance, point?.[0] ?? null, point?.[1] ?? null, g.length + p.length, ...box).lastInsertRowid;
    this.insertText.run(id, g, p, fid);
    // Large features are sized from their own index instead (see index()).
    if (DensityGrid.holds(box)) {
      this.density.add(box, g.length + p.length);
      // The same copies as the index's, so sizes near the antimeridian count them too.
      if (box[2] > 1 - WRAP_MARGIN) this.density.add([box[0] - 1, box[1], box[2] - 1, box[3]], g.length + p.length);
      if (box[0] < WRAP_MARGIN) this.density.add([box[0] + 1, box[1], box[2] + 1, box[3]], g.length + p.length);
    }
    if (++this.pending >= BATCH) {
      this.db.exec("COMMIT");
      this.db.exec("BEGIN");
      this.pending = 0;
    }
    return g.length + p.length;
  }

  /** Ends the loading phase. */
  sealed(): void {
    this.db.exec("COMMIT");
  }

  /**
   * Density thinning of one layer's points: at each zoom below `maxzoom`, a grid cell of `spacing`
   * pixels shows at most one point, the one of highest importance; a point first shown at zoom z stays
   * at every deeper zoom. Points never chosen appear at `maxzoom`. Done in SQL so memory stays flat.
   *
   * Cells nest, so a point shows from the first zoom at which it is the best of its cell, and the best of
   * a cell is also the best of its smaller cell one zoom deeper. Zooms are settled deepest first, each
   * choosing among the points the zoom below chose: only the deepest zoom sorts every point (settling each
   * zoom over all points was most of the indexing time of a large point set).
   */
  thinPoints(layer: number, minzoom: number, maxzoom: number, spacing: number, onZoom: (z: number) => void): void {
    // The points chosen at each zoom go to a scratch table of their own, in id order: updating the chosen
    // rows of `features` zoom after zoom (a lookup per row) cost three times the choosing.
    const chosen = (z: number) => `temp.thin_${z}`;
    const best = (from: string, where: string) =>
      `SELECT id, x, y, importance FROM (
         SELECT id, x, y, importance, ROW_NUMBER() OVER (PARTITION BY CAST(x * ?1 AS INTEGER) * ?2 + CAST(y * ?1 AS INTEGER) ORDER BY importance DESC, id) AS rn
         FROM ${from} WHERE ${where})
       WHERE rn = 1 ORDER BY id`;
    this.db.exec("BEGIN");
    for (let z = maxzoom - 1; z >= minzoom; z--) {
      const cells = (256 * 2 ** z) / spacing;
      this.db.exec(`DROP TABLE IF EXISTS ${chosen(z)}`);
      this.db.exec(`CREATE TABLE ${chosen(z)} (id INTEGER PRIMARY KEY, x REAL, y REAL, importance REAL)`);
      if (z === maxzoom - 1) this.db.prepare(`INSERT INTO ${chosen(z)} ${best("features", "layer = ?3 AND x IS NOT NULL")}`).run(cells, Math.ceil(cells) * 4, layer);
      else this.db.prepare(`INSERT INTO ${chosen(z)} ${best(chosen(z + 1), "1")}`).run(cells, Math.ceil(cells) * 4);
      onZoom(maxzoom - 1 - z + minzoom);
    }
    // Chosen at z means chosen at every deeper zoom too: the first zoom is found walking up from the deepest.
    let first = String(minzoom);
    for (let z = minzoom; z < maxzoom; z++) first = `CASE WHEN NOT EXISTS (SELECT 1 FROM ${chosen(z)} c WHERE c.id = features.id) THEN ${z + 1} ELSE ${first} END`;
    this.db.prepare(`UPDATE features SET minzoom = ${first} WHERE layer = ? AND x IS NOT NULL AND minzoom IS NULL`).run(layer);
    for (let z = minzoom; z < maxzoom; z++) this.db.exec(`DROP TABLE ${chosen(z)}`);
    this.db.exec("COMMIT");
  }

  /**
   * Point clustering of one layer: at each zoom from `minzoom` below `until`, the points in a grid cell of
   * `radius` pixels become one feature shown at that zoom only (made by `feature`), where the cell holds
   * more than one; a point alone in its cell shows from that zoom on (cells nest, so it stays alone).
   * Points never alone show from `until`. Cluster features are not counted as input features.
   */
  clusterPoints(layer: number, minzoom: number, until: number, radius: number, feature: (c: Cluster) => { geometry: unknown; properties: Record<string, unknown> }, onZoom: (z: number) => void): void {
    const cell = "CAST(x * ?1 AS INTEGER) * ?2 + CAST(y * ?1 AS INTEGER)";
    const alone = this.db.prepare(
      `UPDATE features SET minzoom = ?3 WHERE id IN (
         SELECT id FROM (SELECT id, minzoom, COUNT(*) OVER (PARTITION BY ${cell}) AS n FROM features WHERE layer = ?4 AND x IS NOT NULL)
         WHERE n = 1 AND minzoom IS NULL)`,
    );
    // A zoom's clusters are grouped into a scratch table first, then added page by page: memory holds
    // one page whatever the number of points, and no read is open on the table being written.
    this.db.exec("CREATE TEMP TABLE IF NOT EXISTS clusters (id INTEGER PRIMARY KEY, x REAL, y REAL, count INTEGER, importance REAL)");
    const group = this.db.prepare(
      `INSERT INTO clusters (x, y, count, importance) SELECT AVG(x), AVG(y), COUNT(*), MAX(importance) FROM features
       WHERE layer = ?3 AND x IS NOT NULL GROUP BY ${cell} HAVING COUNT(*) > 1`,
    );
    const page = this.db.prepare<Cluster & { id: number; importance: number }, [number]>(`SELECT id, x, y, count, importance FROM clusters WHERE id > ? ORDER BY id LIMIT ${BATCH}`);
    this.db.exec("BEGIN");
    for (let z = minzoom; z < until; z++) {
      const cells = (256 * 2 ** z) / radius;
      alone.run(cells, Math.ceil(cells) * 4, z, layer);
      this.db.exec("DELETE FROM clusters");
      group.run(cells, Math.ceil(cells) * 4, layer);
      for (let rows = page.all(0); rows.length; rows = page.all(rows[rows.length - 1]!.id))
        for (const c of rows) {
          const { geometry, properties } = feature(c);
          this.insert(layer, geometry, properties, [c.x, c.y, c.x, c.y], z, z, c.count + c.importance, null);
        }
      onZoom(z);
    }
    this.db.prepare("UPDATE features SET minzoom = ? WHERE layer = ? AND minzoom IS NULL").run(until, layer);
    this.db.exec("DELETE FROM clusters");
    this.db.exec("COMMIT");
    this.pending = 0;
    for (const s of [alone, group, page]) s.finalize();
  }

  /** Brings a layer's first zooms into its zoom range (points left to thinning stay unset). */
  clampZooms(layer: number, minzoom: number, maxzoom: number): void {
    this.db.prepare("UPDATE features SET minzoom = MAX(?, MIN(?, minzoom)) WHERE layer = ? AND minzoom IS NOT NULL").run(minzoom, maxzoom, layer);
  }

  /**
   * Builds the spatial index once every feature's zooms are final (after thinning and clustering). Rows go
   * in sorted by position: an R*Tree filled in spatial order stays in cache, several times faster than in
   * file order. Each entry's id is the feature's id times 4 plus which copy it is (see WRAP_MARGIN).
   */
  index(): void {
    const columns = (shift: number, copy: number) =>
      `SELECT id * 4 + ${copy}, min_x + ${shift}, max_x + ${shift}, min_y, max_y, COALESCE(minzoom, ${NEVER}), COALESCE(maxzoom, ${NEVER}) FROM features`;
    const large = `(max_x - min_x > ${1 / 2 ** COARSEST} OR max_y - min_y > ${1 / 2 ** COARSEST})`;
    this.db.exec("BEGIN");
    for (const [table, only] of [
      ["extents", "1"],
      // The features DensityGrid leaves out, sized from their own small index.
      ["large_extents", large],
    ]) {
      this.db.exec(`CREATE VIRTUAL TABLE ${table} USING rtree(id, min_x, max_x, min_y, max_y, min_z, max_z)`);
      this.db.exec(`INSERT INTO ${table} ${columns(0, 0)} WHERE ${only} ORDER BY CAST(min_y * ${ORDER_CELLS} AS INTEGER), CAST(min_x * ${ORDER_CELLS} AS INTEGER)`);
      // geojson-vt copies what crosses the antimeridian to the other side; the index must find it there too.
      this.db.exec(`INSERT INTO ${table} ${columns(-1, 1)} WHERE ${only} AND max_x > ${1 - WRAP_MARGIN}`);
      this.db.exec(`INSERT INTO ${table} ${columns(1, 2)} WHERE ${only} AND min_x < ${WRAP_MARGIN}`);
    }
    this.db.exec("COMMIT");
    this.density.seal();
    this.queries = prepareQueries(this.db);
  }

  /**
   * Coarser copies of the large lines and polygons for the low zooms (generalize.ts), made only where a
   * tile of those zooms may reach more text than it may read (`budget`): the copies cost a second pass
   * over the large features, which data a tile can read whole does not need. Runs after index().
   */
  generalize(budget: number, toleranceOf: (layer: number) => number): void {
    // The first zoom each level serves, and whether some tile there may reach more than the budget.
    const firstZooms = GENERALIZED_ZOOMS.map((_, i) => (i === 0 ? 0 : GENERALIZED_ZOOMS[i - 1]! + 1));
    const wanted = firstZooms.map((z) => this.someTileOver(z, budget));
    if (!wanted.some(Boolean)) return;
    // A few rows at a time: parsed, a feature's text takes about ten times its size.
    const page = this.db.prepare<{ id: number; layer: number; bytes: number; geometry: string }, [number, number]>(
      `SELECT f.id, f.layer, f.bytes, t.geometry FROM features f JOIN texts t ON t.id = f.id WHERE f.id > ?1 AND f.bytes >= ?2 AND f.x IS NULL ORDER BY f.id LIMIT ${GENERALIZE_BATCH}`,
    );
    const insert = this.db.prepare("INSERT INTO generalized (id, level, geometry) VALUES (?, ?, ?)");
    const sizes = this.db.prepare(`UPDATE features SET ${GENERALIZED_ZOOMS.map((_, level) => `gen_bytes_${level} = ?${level + 2}`).join(", ")} WHERE id = ?1`);
    // The garbage of simplifying is collected each time the heap has grown by a tile's budget, as the
    // tiler paces its own (tiler.ts): left to the collector, a pass over 55 MB of lines took 70 MiB more.
    const collectAt = () => process.memoryUsage().heapUsed + budget;
    let limit = collectAt();
    this.db.exec("BEGIN");
    for (let rows = page.all(0, MIN_TEXT); rows.length; rows = page.all(rows[rows.length - 1]!.id, MIN_TEXT)) {
      for (const f of rows) {
        const properties = f.bytes - f.geometry.length;
        const copies = generalizedTexts(JSON.parse(f.geometry) as Geometry, f.bytes, toleranceOf(f.layer), wanted);
        if (!copies) continue;
        copies.forEach((copy, level) => copy && insert.run(f.id, level, copy));
        sizes.run(f.id, ...copies.map((copy) => (copy ? copy.length + properties : null)));
      }
      if (process.memoryUsage().heapUsed > limit) {
        Bun.gc(true);
        limit = collectAt();
      }
    }
    this.db.exec("COMMIT");
    for (const s of [page, insert, sizes]) s.finalize();
  }

  /** Whether some tile of zoom z may reach more feature text than `budget` (a bound: never less than it has). */
  private someTileOver(z: number, budget: number): boolean {
    const n = 2 ** z;
    for (let x = 0; x < n; x++)
      for (let y = 0; y < n; y++) {
        const box: UnitBox = [x / n, y / n, (x + 1) / n, (y + 1) / n];
        if (this.hasData(box) && this.textSize(box, budget) > budget) return true;
      }
    return false;
  }

  private get indexed(): Queries {
    if (!this.queries) throw new Error("FeatureStore.index() must run before tiles are read");
    return this.queries;
  }

  /** Whether any feature (at any zoom) reaches into the box: children of empty tiles are skipped. */
  hasData(box: UnitBox): boolean {
    return this.indexed.anyIn.get(box[0], box[2], box[1], box[3]) !== null;
  }

  /**
   * The features of a layer shown at zoom z within the box, most important first, up to `budget`
   * characters of text (the first feature past it still comes); the rest are only counted. The order is
   * settled on the small rows, so the text of features left out is never read.
   */
  tileFeatures(layer: number, z: number, box: UnitBox, budget: number): { features: StoredFeature[]; skipped: number } {
    const q = this.indexed;
    // The coarser copies at low zooms (generalize.ts): a zoom-0 tile of the world reads and pays for those.
    const found = GENERALIZED_ZOOMS.findIndex((deepest) => z <= deepest);
    const level = found < 0 ? GENERALIZED_ZOOMS.length : found;
    const chosen: { id: number; minzoom: number; maxzoom: number | null }[] = [];
    let read = 0;
    let skipped = 0;
    for (const f of q.inTile[level]!.iterate(box[0], box[2], box[1], box[3], z, z, layer)) {
      if (read > budget) {
        skipped++;
        continue;
      }
      read += f.bytes;
      chosen.push(f);
    }
    // The text is read in file order (far fewer pages read than in order of importance), then put back in order.
    const texts = new Map<number, { geometry: string; properties: string; fid: number | null }>();
    const ids = chosen.map((f) => f.id).sort((a, b) => a - b);
    for (let i = 0; i < ids.length; i += TEXT_BATCH)
      for (const t of q.texts[level]!.iterate(JSON.stringify(ids.slice(i, i + TEXT_BATCH)))) texts.set(t.id, { geometry: t.geometry, properties: t.properties, fid: t.fid });
    return { features: chosen.map((f) => ({ ...texts.get(f.id)!, minzoom: f.minzoom, maxzoom: f.maxzoom })), skipped };
  }

  /** Every feature of a layer within the box, whatever its first zoom, most important first. */
  blockFeatures(layer: number, box: UnitBox): StoredFeature[] {
    // Read in file order and sorted here: SQLite sorting rows that carry their text is several times slower.
    const rows = this.indexed.inBlock.all(box[0], box[2], box[1], box[3], layer);
    return rows.sort((a, b) => b.importance - a.importance || a.id - b.id);
  }

  /**
   * Characters of feature text within the box, or a bound above it: decides whether a block of tiles fits
   * in memory. Small features are counted by the DensityGrid, large ones from their index; a box finer
   * than the grid whose bound is over `enough` is counted exactly.
   */
  textSize(box: UnitBox, enough: number): number {
    const q = this.indexed;
    const bound = this.density.charsIn(box) + (q.largeSizeIn.get(box[0], box[2], box[1], box[3])?.bytes ?? 0);
    if (bound <= enough || box[2] - box[0] >= 1 / 2 ** FINEST) return bound;
    return q.sizeIn.get(box[0], box[2], box[1], box[3])?.bytes ?? 0;
  }

  /** Closes and deletes the file. */
  remove(): void {
    try {
      this.db.close(false);
    } catch {
      /* already closed */
    }
    for (const suffix of ["", "-journal"]) rmSync(this.path + suffix, { force: true });
  }
}

// The disk-backed feature store the tiler reads from: every cleaned feature of every layer goes into a
// temporary SQLite file next to the archive being written, with its Web Mercator extent in an R*Tree and
// the zoom it first shows at. Tiles are then cut zoom by zoom from range queries, so memory holds one
// tile's features at a time, never the whole input.
import { Database, type Statement } from "bun:sqlite";
import { rmSync } from "node:fs";

/** A bounding box in the Web Mercator unit square (x east, y south, 0..1; x may pass 1 across 180°). */
export type UnitBox = [minX: number, minY: number, maxX: number, maxY: number];

export interface StoredFeature {
  geometry: string;
  properties: string;
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

export class FeatureStore {
  private readonly db: Database;
  private readonly insertFeature: Statement;
  private readonly insertText: Statement;
  private readonly insertExtent: Statement;
  private readonly anyIn: Statement<{ one: number }, [number, number, number, number]>;
  private readonly inTile: Statement<StoredFeature, [number, number, number, number, number, number, number]>;
  private readonly inBlock: Statement<StoredFeature, [number, number, number, number, number]>;
  private readonly sizeIn: Statement<{ bytes: number | null }, [number, number, number, number]>;
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
    // Small rows apart from the feature text, so sizing and thinning never read the geometries.
    this.db.exec("CREATE TABLE features (id INTEGER PRIMARY KEY, layer INTEGER NOT NULL, minzoom INTEGER, maxzoom INTEGER, importance REAL NOT NULL, x REAL, y REAL, bytes INTEGER NOT NULL)");
    this.db.exec("CREATE TABLE texts (id INTEGER PRIMARY KEY, geometry TEXT NOT NULL, properties TEXT NOT NULL)");
    this.db.exec("CREATE VIRTUAL TABLE extents USING rtree(id, min_x, max_x, min_y, max_y, +feature INTEGER)");
    this.insertFeature = this.db.prepare("INSERT INTO features (layer, minzoom, maxzoom, importance, x, y, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.insertText = this.db.prepare("INSERT INTO texts (id, geometry, properties) VALUES (?, ?, ?)");
    this.insertExtent = this.db.prepare("INSERT INTO extents (min_x, max_x, min_y, max_y, feature) VALUES (?, ?, ?, ?, ?)");
    this.anyIn = this.db.prepare("SELECT 1 AS one FROM extents WHERE max_x >= ? AND min_x <= ? AND max_y >= ? AND min_y <= ? LIMIT 1");
    const within = "f.id IN (SELECT feature FROM extents WHERE max_x >= ? AND min_x <= ? AND max_y >= ? AND min_y <= ?)";
    this.inTile = this.db.prepare(
      `SELECT t.geometry, t.properties, f.minzoom, f.maxzoom FROM features f JOIN texts t ON t.id = f.id
       WHERE f.layer = ? AND f.minzoom <= ? AND (f.maxzoom IS NULL OR f.maxzoom >= ?) AND ${within} ORDER BY f.importance DESC, f.id`,
    );
    this.inBlock = this.db.prepare(
      `SELECT t.geometry, t.properties, f.minzoom, f.maxzoom FROM features f JOIN texts t ON t.id = f.id
       WHERE f.layer = ? AND ${within} ORDER BY f.importance DESC, f.id`,
    );
    this.sizeIn = this.db.prepare(`SELECT SUM(f.bytes) AS bytes FROM features f WHERE ${within}`);
    this.db.exec("BEGIN");
  }

  /**
   * Adds one feature. `minzoom` null leaves it to point thinning (see thinPoints); `point` is the
   * position of a Point feature, used by thinning.
   */
  add(layer: number, geometry: unknown, properties: Record<string, unknown>, box: UnitBox, minzoom: number | null, importance: number, point: [number, number] | null): void {
    this.insert(layer, geometry, properties, box, minzoom, null, importance, point);
    this.count++;
  }

  private insert(layer: number, geometry: unknown, properties: Record<string, unknown>, box: UnitBox, minzoom: number | null, maxzoom: number | null, importance: number, point: [number, number] | null): void {
    const g = JSON.stringify(geometry);
    const p = JSON.stringify(properties);
    const id = this.insertFeature.run(layer, minzoom, maxzoom, importance, point?.[0] ?? null, point?.[1] ?? null, g.length + p.length).lastInsertRowid;
    this.insertText.run(id, g, p);
    const [x0, y0, x1, y1] = box;
    this.insertExtent.run(x0, x1, y0, y1, id);
    // geojson-vt copies what crosses the antimeridian to the other side; the index must find it there too.
    if (x1 > 1 - WRAP_MARGIN) this.insertExtent.run(x0 - 1, x1 - 1, y0, y1, id);
    if (x0 < WRAP_MARGIN) this.insertExtent.run(x0 + 1, x1 + 1, y0, y1, id);
    if (++this.pending >= BATCH) {
      this.db.exec("COMMIT");
      this.db.exec("BEGIN");
      this.pending = 0;
    }
  }

  /** Ends the loading phase. */
  sealed(): void {
    this.db.exec("COMMIT");
  }

  /**
   * Density thinning of one layer's points: at each zoom below `maxzoom`, a grid cell of `spacing`
   * pixels shows at most one point, the one of highest importance; a point first shown at zoom z stays
   * at every deeper zoom. Points never chosen appear at `maxzoom`. Done in SQL so memory stays flat.
   */
  thinPoints(layer: number, minzoom: number, maxzoom: number, spacing: number, onZoom: (z: number) => void): void {
    const update = this.db.prepare(
      `UPDATE features SET minzoom = ?1 WHERE id IN (
         SELECT id FROM (
           SELECT id, ROW_NUMBER() OVER (PARTITION BY cell ORDER BY minzoom IS NULL, importance DESC, id) AS rn,
                  MIN(minzoom) OVER (PARTITION BY cell) AS shown
           FROM (SELECT id, minzoom, importance, CAST(x * ?2 AS INTEGER) * ?3 + CAST(y * ?2 AS INTEGER) AS cell
                 FROM features WHERE layer = ?4 AND x IS NOT NULL))
         WHERE rn = 1 AND shown IS NULL)`,
    );
    for (let z = minzoom; z < maxzoom; z++) {
      const cells = (256 * 2 ** z) / spacing;
      update.run(z, cells, Math.ceil(cells) * 4, layer);
      onZoom(z);
    }
    this.db.prepare("UPDATE features SET minzoom = ? WHERE layer = ? AND minzoom IS NULL").run(maxzoom, layer);
    update.finalize();
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

  /** Whether any feature (at any zoom) reaches into the box: children of empty tiles are skipped. */
  hasData(box: UnitBox): boolean {
    return this.anyIn.get(box[0], box[2], box[1], box[3]) !== null;
  }

  /** The features of a layer shown at zoom z within the box, most important first. */
  *features(layer: number, z: number, box: UnitBox): Generator<StoredFeature> {
    yield* this.inTile.iterate(layer, z, z, box[0], box[2], box[1], box[3]);
  }

  /** Every feature of a layer within the box, whatever its first zoom, most important first. */
  blockFeatures(layer: number, box: UnitBox): StoredFeature[] {
    return this.inBlock.all(layer, box[0], box[2], box[1], box[3]);
  }

  /** Characters of feature text within the box: decides whether a block of tiles fits in memory. */
  textSize(box: UnitBox): number {
    return this.sizeIn.get(box[0], box[2], box[1], box[3])?.bytes ?? 0;
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

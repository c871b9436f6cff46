// GeoPackage (OGC 12-128r18): a SQLite file whose gpkg_contents lists feature tables; each one is a
// layer. The file is opened read-only and immutable (no locks, no -wal/-shm files, none of GDAL's
// R-tree triggers or extension functions needed) and read row by row, so memory holds one row at a
// time. Geometry blobs are a small 'GP' header then WKB (wkb.ts). WGS84 (EPSG:4326) and Web Mercator
// (EPSG:3857, unprojected here) are accepted; any other system is refused by name.
import { LONLAT_AS_WGS84 } from "./lonlat-datums";
import { Database } from "bun:sqlite";
import { InvalidSource } from "../errors";
import { unproject } from "./mercator";
import type { RawFeature, ReadProgress } from "./types";
import { decodeWkb, WkbError, type PointTransform, type WkbGeometry } from "./wkb";

const SQLITE_OPEN_READONLY = 0x01;
const SQLITE_OPEN_URI = 0x40;

/** Opens a SQLite file read-only and immutable: it is an upload on disk that nothing else writes. */
function openImmutable(path: string): Database {
  const uri = `file:${path.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}?immutable=1`;
  return new Database(uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Whether a SQLite file without a GeoPackage application_id (older tools leave it out) is a GeoPackage all
 * the same: it has a gpkg_contents table, and no MBTiles 'tiles' table unless gpkg_contents lists features.
 */
export function looksLikeGeopackage(path: string): boolean {
  let db: Database | null = null;
  try {
    db = openImmutable(path);
    const names = new Set(db.query<{ name: string }, []>("SELECT lower(name) AS name FROM sqlite_master WHERE type IN ('table','view')").all().map((r) => r.name));
    if (!names.has("gpkg_contents")) return false;
    return !names.has("tiles") || db.query("SELECT 1 FROM gpkg_contents WHERE lower(data_type) = 'features' LIMIT 1").get() !== null;
  } catch {
    return false;
  } finally {
    db?.close();
  }
}

type Projection = "wgs84" | "mercator";

/** One feature table of a GeoPackage: a layer. */
export interface GeopackageTable {
  table: string;
  /** the geometry column, from gpkg_geometry_columns */
  geometry: string;
  /** the integer primary key (fid): the tile feature's id, not an attribute; null for a view without one */
  fid: string | null;
  /** attribute columns and their declared types, upper case (BLOB columns left out) */
  columns: { name: string; type: string }[];
  projection: Projection;
  /** rows, or an estimate from the fid range: weighs the table's share of the progress bar */
  rows: number;
  /** notes about the table as a whole (an undefined SRS taken as WGS84) */
  notes: string[];
}

const MERCATOR_CODES = new Set([3857, 900913]);
const REPROJECT = "only WGS84 (EPSG:4326) and Web Mercator (EPSG:3857) are accepted. Reproject first, e.g. ogr2ogr -t_srs EPSG:4326 out.gpkg in.gpkg";

interface SrsRow {
  srs_name: string | null;
  organization: string | null;
  organization_coordsys_id: number | null;
}

function projectionOf(db: Database, srsId: number, where: string, notes: string[]): Projection {
  const srs = db.query<SrsRow, [number]>("SELECT srs_name, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?").get(srsId);
  if (!srs) throw new InvalidSource(`${where}: its srs_id ${srsId} is not in gpkg_spatial_ref_sys; the file is incomplete. Write it again, e.g. ogr2ogr -f GPKG -t_srs EPSG:4326 out.gpkg in.gpkg`);
  const org = (srs.organization ?? "").toUpperCase();
  const code = Number(srs.organization_coordsys_id);
  if (org === "EPSG" && LONLAT_AS_WGS84.has(code)) return "wgs84";
  if (org === "EPSG" && MERCATOR_CODES.has(code)) return "mercator";
  if (srsId === 0) {
    notes.push(`${where}: the coordinate system is the GeoPackage's 'undefined geographic' one; coordinates were taken as WGS84 longitude/latitude`);
    return "wgs84";
  }
  const name = srs.srs_name?.trim() ? ` (${srs.srs_name.trim()})` : "";
  if (srsId === -1) throw new InvalidSource(`${where}: the coordinates are in an undefined Cartesian system${name}; ${REPROJECT}`);
  throw new InvalidSource(`${where}: coordinates use ${srs.organization ?? "an unnamed authority"}:${srs.organization_coordsys_id ?? srsId}${name}; ${REPROJECT}`);
}

/** Runs `fn` on the open file, turning SQLite's errors into a message about the upload. */
function withFile<T>(path: string, label: string, fn: (db: Database) => T): T {
  let db: Database;
  try {
    db = openImmutable(path);
  } catch (err) {
    throw new InvalidSource(`${label}: not a readable GeoPackage (SQLite) file: ${(err as Error).message}`);
  }
  try {
    return fn(db);
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: the GeoPackage is damaged or not what its tables declare (${(err as Error).message}); write it again, e.g. with ogr2ogr -f GPKG`);
  } finally {
    db.close();
  }
}

/**
 * The feature tables of a GeoPackage, checked: each has its geometry column and an accepted coordinate
 * system. Throws InvalidSource when the file has none (only raster tiles, say), naming what it holds.
 */
export function geopackageTables(path: string, label: string): GeopackageTable[] {
  return withFile(path, label, (db) => {
    const objects = new Map(db.query<{ name: string; type: string }, []>("SELECT name, type FROM sqlite_master WHERE type IN ('table','view')").all().map((r) => [r.name.toLowerCase(), r]));
    if (!objects.has("gpkg_contents")) throw new InvalidSource(`${label}: a SQLite file without a gpkg_contents table is not a GeoPackage`);
    const contents = db.query<{ table_name: string; data_type: string | null }, []>("SELECT table_name, data_type FROM gpkg_contents ORDER BY rowid").all();
    const features = contents.filter((c) => (c.data_type ?? "").toLowerCase() === "features");
    if (!features.length) {
      const tiles = contents.filter((c) => /tiles|coverage/i.test(c.data_type ?? "")).map((c) => c.table_name);
      if (tiles.length)
        throw new InvalidSource(
          `${label}: the GeoPackage holds only tiles (${tiles.slice(0, 5).join(", ")}${tiles.length > 5 ? ", ..." : ""}), no feature tables; this importer reads vector features. Convert the tiles to MBTiles (gdal_translate -of MBTiles ${label} out.mbtiles) and upload that`,
        );
      throw new InvalidSource(`${label}: the GeoPackage holds no feature tables (gpkg_contents lists ${contents.length ? contents.map((c) => `${c.table_name} (${c.data_type})`).slice(0, 5).join(", ") : "nothing"})`);
    }
    if (!objects.has("gpkg_geometry_columns")) throw new InvalidSource(`${label}: the GeoPackage has no gpkg_geometry_columns table, so its geometry columns are unknown`);
    if (!objects.has("gpkg_spatial_ref_sys")) throw new InvalidSource(`${label}: the GeoPackage has no gpkg_spatial_ref_sys table, so its coordinate systems are unknown`);
    const geometryColumn = db.query<{ column_name: string; srs_id: number }, [string]>("SELECT column_name, srs_id FROM gpkg_geometry_columns WHERE table_name = ? COLLATE NOCASE");
    return features.map(({ table_name: table }) => {
      const where = `${label} (table ${table})`;
      if (!objects.has(table.toLowerCase())) throw new InvalidSource(`${where}: gpkg_contents lists the table but the file does not have it`);
      const gc = geometryColumn.get(table);
      if (!gc) throw new InvalidSource(`${where}: the table has no row in gpkg_geometry_columns, so its geometry column is unknown`);
      const info = db.query<{ name: string; type: string; pk: number }, []>(`PRAGMA table_info(${quoted(table)})`).all();
      if (!info.some((c) => c.name.toLowerCase() === gc.column_name.toLowerCase())) throw new InvalidSource(`${where}: its geometry column '${gc.column_name}' does not exist`);
      const pks = info.filter((c) => c.pk > 0);
      const fid = pks.length === 1 && /INT/i.test(pks[0]!.type) ? pks[0]!.name : null;
      const columns = info
        .filter((c) => c.name.toLowerCase() !== gc.column_name.toLowerCase() && c.name !== fid && !/^BLOB/i.test(c.type.trim()))
        .map((c) => ({ name: c.name, type: c.type.trim().toUpperCase() }));
      const notes: string[] = [];
      const projection = projectionOf(db, Number(gc.srs_id), where, notes);
      // Two queries: SQLite answers a lone MIN or MAX of the rowid from one end of the b-tree, both at once by a full scan.
      const end = (fn: "MIN" | "MAX") => db.query<{ v: number | null }, []>(`SELECT ${fn}(${quoted(fid!)}) AS v FROM ${quoted(table)}`).get()!.v;
      const lo = fid ? end("MIN") : null;
      const rows = fid ? (lo === null ? 0 : Number(end("MAX")) - Number(lo) + 1) : db.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${quoted(table)}`).get()!.n;
      return { table, geometry: gc.column_name, fid, columns, projection, rows, notes };
    });
  });
}

const ENVELOPE_BYTES = [0, 32, 48, 48, 64];

/**
 * A GeoPackage geometry blob (the 'GP' header: version, flags, srs_id, envelope; then WKB) as GeoJSON;
 * null when the blob says the geometry is empty. Throws WkbError when it is not such a blob.
 */
export function decodeGpkgGeometry(blob: Uint8Array, point?: PointTransform): WkbGeometry | null {
  if (blob.length < 8) throw new WkbError(`the geometry blob is ${blob.length} bytes, too short for a GeoPackage geometry header`);
  if (blob[0] !== 0x47 || blob[1] !== 0x50) throw new WkbError(`the geometry is not a GeoPackage geometry blob (it starts 0x${Buffer.from(blob.subarray(0, 2)).toString("hex")}, not 'GP')`);
  const flags = blob[3]!;
  const envelope = ENVELOPE_BYTES[(flags >> 1) & 0x07];
  if (envelope === undefined) throw new WkbError(`the geometry header has an invalid envelope code ${(flags >> 1) & 0x07}`);
  if (flags & 0x20) return { type: "extended GeoPackage geometry" };
  if (flags & 0x10) return null;
  const start = 8 + envelope;
  if (start >= blob.length) throw new WkbError(`the geometry blob ends after its header (${blob.length} bytes)`);
  const geometry = decodeWkb(blob, start, point);
  return geometry.type === "GeometryCollection" && !(geometry as { geometries: unknown[] }).geometries.length ? null : geometry;
}

const EMPTY = { type: "GeometryCollection", geometries: [] };

/** A property value as the column declares it: booleans as booleans, blobs left out. */
function value(v: unknown, type: string): unknown {
  if (v === null || v instanceof Uint8Array) return undefined;
  if (type === "BOOLEAN" && (typeof v === "number" || typeof v === "bigint")) return Number(v) !== 0;
  if (typeof v === "bigint") return Number(v);
  return v;
}

/** One feature table, row by row from disk. `label` names the table too: "data.gpkg (table roads)". */
export function* readGeopackageTable(table: GeopackageTable, path: string, label: string, progress: ReadProgress): Generator<RawFeature> {
  progress.warnings?.push(...table.notes);
  const point = table.projection === "mercator" ? unproject : undefined;
  let db: Database;
  try {
    db = openImmutable(path);
  } catch (err) {
    throw new InvalidSource(`${label}: not a readable GeoPackage (SQLite) file: ${(err as Error).message}`);
  }
  // Positional aliases: attribute names may be anything, including the names used here.
  const fid = table.fid ? quoted(table.fid) : "NULL";
  const sql = `SELECT ${[fid, quoted(table.geometry), ...table.columns.map((c) => quoted(c.name))].map((c, i) => `${c} AS c${i}`).join(", ")} FROM ${quoted(table.table)}`;
  const share = progress.total / Math.max(1, table.rows);
  let n = 0;
  let at = "";
  let stmt: ReturnType<Database["prepare"]> | null = null;
  try {
    stmt = db.prepare<Record<string, unknown>, []>(sql);
    for (const row of stmt.iterate() as IterableIterator<Record<string, unknown>>) {
      n++;
      at = row.c0 === null || row.c0 === undefined ? `row ${n}` : `fid ${row.c0}`;
      const blob = row.c1;
      let geometry: unknown;
      if (blob === null || blob === undefined) geometry = null;
      else if (!(blob instanceof Uint8Array)) throw new InvalidSource(`${label}: ${at}: the geometry column '${table.geometry}' holds ${typeof blob} data, not a GeoPackage geometry blob`);
      else
        try {
          geometry = decodeGpkgGeometry(blob, point) ?? EMPTY;
        } catch (err) {
          if (err instanceof WkbError) throw new InvalidSource(`${label}: ${at}: ${err.message}`);
          throw err;
        }
      const properties: Record<string, unknown> = {};
      table.columns.forEach((c, i) => {
        const v = value(row[`c${i + 2}`], c.type);
        if (v !== undefined) properties[c.name] = v;
      });
      progress.bytes = Math.min(progress.total, n * share);
      yield { geometry, properties, where: at, id: row.c0 ?? undefined };
    }
    progress.bytes = progress.total;
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: the GeoPackage is damaged${at ? ` after ${at}` : ""} (${(err as Error).message}); write it again, e.g. with ogr2ogr -f GPKG`);
  } finally {
    stmt?.finalize();
    db.close();
  }
}

// GeoPackages written here with bun:sqlite after the OGC GeoPackage 1.3 encoding standard: the
// gpkg_spatial_ref_sys, gpkg_contents and gpkg_geometry_columns tables, the application_id and
// user_version pragmas, feature tables with an integer fid and geometry blobs ('GP' header, optional
// envelope, then ISO WKB in either byte order), and tile tables for a raster-only file.
import { Database } from "bun:sqlite";
import { readFileSync, rmSync } from "node:fs";
import type { Geometry, Position } from "geojson";

const TYPE_CODES: Record<string, number> = { Point: 1, LineString: 2, Polygon: 3, MultiPoint: 4, MultiLineString: 5, MultiPolygon: 6, GeometryCollection: 7 };

export interface WkbOptions {
  bigEndian?: boolean;
  /** writes a Z ordinate (ISO code + 1000) of 100 on every position */
  z?: boolean;
}

/** ISO WKB of a GeoJSON geometry. */
export function wkb(g: Geometry, opts: WkbOptions = {}): Uint8Array {
  const little = !opts.bigEndian;
  const out: number[] = [];
  const u32 = (n: number) => {
    const b = new DataView(new ArrayBuffer(4));
    b.setUint32(0, n, little);
    out.push(...new Uint8Array(b.buffer));
  };
  const f64 = (n: number) => {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, n, little);
    out.push(...new Uint8Array(b.buffer));
  };
  const pos = (p: Position) => {
    f64(p[0]!);
    f64(p[1]!);
    if (opts.z) f64(100);
  };
  const header = (type: string) => {
    out.push(little ? 1 : 0);
    u32(TYPE_CODES[type]! + (opts.z ? 1000 : 0));
  };
  const write = (g: Geometry) => {
    header(g.type);
    switch (g.type) {
      case "Point":
        return pos(g.coordinates);
      case "LineString":
        u32(g.coordinates.length);
        return g.coordinates.forEach(pos);
      case "Polygon":
        u32(g.coordinates.length);
        for (const r of g.coordinates) {
          u32(r.length);
          r.forEach(pos);
        }
        return;
      case "MultiPoint":
        u32(g.coordinates.length);
        return g.coordinates.forEach((c) => write({ type: "Point", coordinates: c }));
      case "MultiLineString":
        u32(g.coordinates.length);
        return g.coordinates.forEach((c) => write({ type: "LineString", coordinates: c }));
      case "MultiPolygon":
        u32(g.coordinates.length);
        return g.coordinates.forEach((c) => write({ type: "Polygon", coordinates: c }));
      case "GeometryCollection":
        u32(g.geometries.length);
        return g.geometries.forEach(write);
    }
  };
  write(g);
  return Uint8Array.from(out);
}

function bbox(g: Geometry): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (typeof (c as number[])[0] === "number") {
      const [x, y] = c as number[];
      b[0] = Math.min(b[0], x!);
      b[1] = Math.min(b[1], y!);
      b[2] = Math.max(b[2], x!);
      b[3] = Math.max(b[3], y!);
    } else for (const x of c as unknown[]) visit(x);
  };
  const geometry = (g: Geometry): void => (g.type === "GeometryCollection" ? g.geometries.forEach(geometry) : visit(g.coordinates));
  geometry(g);
  return b;
}

export interface BlobOptions extends WkbOptions {
  srsId?: number;
  /** a [minx, maxx, miny, maxy] envelope (flags code 1) */
  envelope?: boolean;
  /** header values (srs_id, envelope) big-endian */
  bigEndianHeader?: boolean;
}

/** A GeoPackage geometry blob; `null` writes the empty flag over an empty GeometryCollection. */
export function gpkgBlob(g: Geometry | null, opts: BlobOptions = {}): Uint8Array {
  const littleHeader = !opts.bigEndianHeader;
  const envelope = g && opts.envelope ? bbox(g) : null;
  const body = g ? wkb(g, opts) : wkb({ type: "GeometryCollection", geometries: [] });
  const head = new DataView(new ArrayBuffer(8 + (envelope ? 32 : 0)));
  head.setUint8(0, 0x47);
  head.setUint8(1, 0x50);
  head.setUint8(2, 0);
  head.setUint8(3, (littleHeader ? 1 : 0) | (envelope ? 1 << 1 : 0) | (g ? 0 : 1 << 4));
  head.setInt32(4, opts.srsId ?? 4326, littleHeader);
  if (envelope) [envelope[0], envelope[2], envelope[1], envelope[3]].forEach((v, i) => head.setFloat64(8 + 8 * i, v, littleHeader));
  const out = new Uint8Array(head.byteLength + body.length);
  out.set(new Uint8Array(head.buffer));
  out.set(body, head.byteLength);
  return out;
}

export interface FeatureTable {
  name: string;
  srsId?: number;
  geometryType?: string;
  /** attribute columns: [name, declared SQL type] */
  columns?: [string, string][];
  /** the geometry blob (or null) and the attribute values, in `columns` order */
  rows: [Uint8Array | null, ...unknown[]][];
}

export interface SrsRow {
  name: string;
  id: number;
  organization: string;
  code: number;
}

export const EPSG_3857: SrsRow = { name: "WGS 84 / Pseudo-Mercator", id: 3857, organization: "EPSG", code: 3857 };
export const EPSG_2056: SrsRow = { name: "CH1903+ / LV95", id: 2056, organization: "EPSG", code: 2056 };

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Writes a GeoPackage at `path`: feature tables, tile tables (names only, one tiny tile each), attribute tables. */
export function writeGeopackage(
  path: string,
  opts: { features?: FeatureTable[]; srs?: SrsRow[]; tiles?: string[]; attributes?: string[]; applicationId?: boolean },
): Uint8Array<ArrayBuffer> {
  rmSync(path, { force: true });
  const db = new Database(path, { create: true });
  if (opts.applicationId !== false) db.exec("PRAGMA application_id = 1196444487; PRAGMA user_version = 10300");
  db.exec(`
    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
      organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
      description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER REFERENCES gpkg_spatial_ref_sys(srs_id));
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
      srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL, CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
      CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
      CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
    INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system');
    INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
    INSERT INTO gpkg_spatial_ref_sys VALUES ('WGS 84 geodetic', 4326, 'EPSG', 4326, 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]', 'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
  `);
  for (const s of opts.srs ?? []) db.run("INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, 'PROJCS[...]', NULL)", [s.name, s.id, s.organization, s.code]);
  for (const t of opts.features ?? []) {
    const cols = t.columns ?? [];
    db.exec(`CREATE TABLE ${q(t.name)} (fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, geom ${t.geometryType ?? "GEOMETRY"}${cols.map(([n, type]) => `, ${q(n)} ${type}`).join("")})`);
    db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)", [t.name, t.name, t.srsId ?? 4326]);
    db.run("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, 0, 0)", [t.name, t.geometryType ?? "GEOMETRY", t.srsId ?? 4326]);
    const insert = db.prepare(`INSERT INTO ${q(t.name)} (geom${cols.map(([n]) => `, ${q(n)}`).join("")}) VALUES (?${", ?".repeat(cols.length)})`);
    for (const row of t.rows) insert.run(...(row as unknown as never[]));
    insert.finalize();
  }
  if (opts.tiles?.length) {
    db.exec(`
      CREATE TABLE gpkg_tile_matrix_set (table_name TEXT NOT NULL PRIMARY KEY, srs_id INTEGER NOT NULL, min_x DOUBLE NOT NULL, min_y DOUBLE NOT NULL, max_x DOUBLE NOT NULL, max_y DOUBLE NOT NULL);
      CREATE TABLE gpkg_tile_matrix (table_name TEXT NOT NULL, zoom_level INTEGER NOT NULL, matrix_width INTEGER NOT NULL, matrix_height INTEGER NOT NULL,
        tile_width INTEGER NOT NULL, tile_height INTEGER NOT NULL, pixel_x_size DOUBLE NOT NULL, pixel_y_size DOUBLE NOT NULL, CONSTRAINT pk_ttm PRIMARY KEY (table_name, zoom_level));
    `);
    for (const name of opts.tiles) {
      db.exec(`CREATE TABLE ${q(name)} (id INTEGER PRIMARY KEY AUTOINCREMENT, zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL, UNIQUE (zoom_level, tile_column, tile_row))`);
      db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'tiles', ?, 4326)", [name, name]);
      db.run("INSERT INTO gpkg_tile_matrix_set VALUES (?, 4326, -180, -90, 180, 90)", [name]);
      db.run("INSERT INTO gpkg_tile_matrix VALUES (?, 0, 2, 1, 256, 256, 0.703125, 0.703125)", [name]);
      db.run(`INSERT INTO ${q(name)} (zoom_level, tile_column, tile_row, tile_data) VALUES (0, 0, 0, ?)`, [new Uint8Array([0x89, 0x50, 0x4e, 0x47])]);
    }
  }
  for (const name of opts.attributes ?? []) {
    db.exec(`CREATE TABLE ${q(name)} (id INTEGER PRIMARY KEY AUTOINCREMENT, note TEXT)`);
    db.run("INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES (?, 'attributes', ?)", [name, name]);
  }
  db.close();
  return new Uint8Array(readFileSync(path));
}

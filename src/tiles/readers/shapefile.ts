// Shapefile: the .shp geometry, .dbf attributes, .prj projection and .cpg encoding are read here
// directly (the formats are small and fixed), from the files extracted out of the upload's zip
// (zip-extract.ts), record by record, so memory holds one record at a time whatever the file size.
import { LONLAT_AS_WGS84 } from "./lonlat-datums";
import { readFileSync } from "node:fs";
import { InvalidSource } from "../errors";
import { FileWindow } from "./file-window";
import { unproject } from "./mercator";
import type { RawFeature, ReadProgress } from "./types";

type Projection = "wgs84" | "mercator";

export function projectionOf(prj: string | undefined, label: string): Projection {
  if (prj === undefined) return "wgs84";
  const wkt = prj.toUpperCase();
  if (!wkt.trim()) return "wgs84";
  if (wkt.startsWith("PROJCS") || wkt.startsWith("PROJCRS")) {
    if (/MERCATOR_AUXILIARY_SPHERE|PSEUDO[ _-]?MERCATOR|WEB_MERCATOR|POPULAR VISUALISATION|"3857"|"900913"|"102100"/.test(wkt)) return "mercator";
    const name = /^PROJ(?:CS|CRS)\["([^"]*)"/i.exec(prj.trim())?.[1] ?? "a projected system";
    throw new InvalidSource(`${label}: the .prj says the coordinates are in ${name}; only WGS84 (EPSG:4326) and Web Mercator (EPSG:3857) are accepted. Reproject first, e.g. ogr2ogr -t_srs EPSG:4326 out.shp in.shp`);
  }
  if (wkt.startsWith("GEOGCS") || wkt.startsWith("GEOGCRS") || wkt.startsWith("GEODCRS")) {
    const epsg = /AUTHORITY\["EPSG",\s*"(\d+)"\]\s*\]\s*$|ID\["EPSG",\s*(\d+)\]\s*\]\s*$/.exec(wkt);
    if (epsg && LONLAT_AS_WGS84.has(Number(epsg[1] ?? epsg[2]))) return "wgs84";
    // Without a code (ESRI's .prj has none): the datums of that list by name, and GRS 1980 ones.
    if (/WGS[ _]?(19)?84|"4326"|NAD[ _]?(19)?83|ETRS[ _]?(19)?89|GRS[ _]?(19)?80|GDA|SIRGAS|JGD|NZGD|SWEREF|CGCS/.test(wkt)) return "wgs84";
    const name = /^GEO[GD]C(?:S|RS)\["([^"]*)"/i.exec(prj.trim())?.[1] ?? "an unknown datum";
    throw new InvalidSource(`${label}: the .prj names the datum ${name}; only WGS84 (EPSG:4326) and Web Mercator (EPSG:3857) are accepted`);
  }
  throw new InvalidSource(`${label}: the .prj file is not WKT this importer understands; use WGS84 (EPSG:4326) or Web Mercator (EPSG:3857)`);
}

/**
 * The code pages a dBASE header names in its language driver id (byte 29), numbered as GDAL reads them,
 * that a TextDecoder can read (not the DOS ones, 437 and 850: their files fall back as if unnamed).
 * ogr2ogr writes 87 (ANSI, read as Latin-1) and no .cpg unless told an encoding.
 */
const LDID_ENCODINGS: Record<number, string> = {
  3: "windows-1252",
  19: "shift_jis",
  38: "ibm866",
  77: "gbk",
  78: "euc-kr",
  79: "big5",
  80: "windows-874",
  87: "windows-1252",
  88: "windows-1252",
  89: "windows-1252",
  101: "ibm866",
  120: "big5",
  121: "euc-kr",
  122: "gbk",
  123: "shift_jis",
  124: "windows-874",
  150: "x-mac-cyrillic",
  200: "windows-1250",
  201: "windows-1251",
  202: "windows-1254",
  203: "windows-1253",
  204: "windows-1257",
};

/** Windows code page numbers as .cpg files write them ("1251", "ANSI 1251", "CP936", "65001"). */
const CODE_PAGES: Record<number, string> = { 866: "ibm866", 874: "windows-874", 932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5", 65001: "utf-8" };

/** The encoding a .cpg names, as a TextDecoder label; null when none this importer can read. */
function cpgEncoding(cpg: string): string | null {
  const s = cpg.trim().toLowerCase().replace(/^ansi[ _]*/, "");
  const page = /^(?:cp|windows-?)?(\d{3,5})$/.exec(s);
  if (page) {
    const n = Number(page[1]);
    return CODE_PAGES[n] ?? (n >= 1250 && n <= 1258 ? `windows-${n}` : null);
  }
  const iso = /^(?:iso[-_ ]?)?8859[-_ ]?(\d{1,2})$/.exec(s);
  try {
    return new TextDecoder(iso ? `iso-8859-${iso[1]}` : s).encoding;
  } catch {
    return null;
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });
const WINDOWS_1252 = new TextDecoder("windows-1252");

/**
 * How the .dbf's text is decoded: in the code page its .cpg names, else the one its header names, else
 * as UTF-8 where it is valid and Windows-1252 where not, with a warning (as CSV lines are read).
 */
function dbfDecoder(cpg: string | undefined, ldid: number, name: string, warnings: string[]): (bytes: Uint8Array, record: number) => string {
  if (cpg !== undefined && cpg.trim()) {
    const named = cpgEncoding(cpg);
    if (named) {
      const decoder = new TextDecoder(named);
      return (bytes) => decoder.decode(bytes);
    }
    warnings.push(`${name}: the .cpg names the code page '${cpg.trim().slice(0, 40)}', which cannot be read here; text was read ${LDID_ENCODINGS[ldid] ? `as the .dbf header's ${LDID_ENCODINGS[ldid]}` : "as UTF-8 where valid, else Windows-1252"}`);
  }
  const fromHeader = LDID_ENCODINGS[ldid];
  if (fromHeader) {
    const decoder = new TextDecoder(fromHeader);
    return (bytes) => decoder.decode(bytes);
  }
  let warned = false;
  return (bytes, record) => {
    try {
      return UTF8.decode(bytes);
    } catch {
      if (!warned) {
        warned = true;
        warnings.push(`${name}: ${record ? `record ${record}` : "a field name"} holds the first text that is not UTF-8, and neither a .cpg file nor the .dbf header names their code page: read as Windows-1252 (Latin-1); if letters look wrong, add a .cpg file naming the code page (e.g. 1251) and upload again`);
      }
      return WINDOWS_1252.decode(bytes);
    }
  };
}

interface DbfField {
  name: string;
  type: string;
  length: number;
  offset: number;
}

function* dbfRecords(dbf: FileWindow, name: string, cpg: string | undefined, warnings: string[]): Generator<Record<string, unknown> | null> {
  const head = dbf.bytes(0, 32);
  if (head.length < 32) throw new InvalidSource(`${name}: the .dbf file is truncated (no header)`);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const count = view.getUint32(4, true);
  const headerLength = view.getUint16(8, true);
  const recordLength = view.getUint16(10, true);
  const decode = dbfDecoder(cpg, head[29]!, name, warnings);
  const header = dbf.bytes(0, headerLength);
  const fields: DbfField[] = [];
  let offset = 1;
  for (let p = 32; p + 32 <= header.length && header[p] !== 0x0d; p += 32) {
    const raw = header.subarray(p, p + 11);
    const end = raw.indexOf(0);
    // Field names are in the file's code page too (GDAL writes them so); record 0 stands for them.
    const fieldName = decode(end < 0 ? raw : raw.subarray(0, end), 0).trim();
    const f = { name: fieldName, type: String.fromCharCode(header[p + 11]!), length: header[p + 16]!, offset };
    offset += f.length;
    fields.push(f);
  }
  for (let i = 0; i < count; i++) {
    const record = dbf.bytes(headerLength + i * recordLength, recordLength);
    if (record.length < recordLength) throw new InvalidSource(`${name}: the .dbf file is truncated at record ${i + 1} of ${count}; upload it again`);
    const props: Record<string, unknown> = {};
    for (const f of fields) {
      const text = decode(record.subarray(f.offset, f.offset + f.length), i + 1).replace(/\0+$/, "").trim();
      if (text === "") continue;
      if (f.type === "N" || f.type === "F") {
        const n = Number(text);
        if (Number.isFinite(n)) props[f.name] = n;
      } else if (f.type === "L") {
        if (/^[TtYy]$/.test(text)) props[f.name] = true;
        else if (/^[FfNn]$/.test(text)) props[f.name] = false;
      } else if (f.type === "D" && /^\d{8}$/.test(text)) {
        // GDAL and ArcGIS write an empty date as zeros: no date, as a blank one.
        if (text !== "00000000") props[f.name] = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
      } else props[f.name] = text;
    }
    yield record[0] === 0x2a ? null : props;
  }
}

function ringArea(ring: number[][]): number {
  let a = 0;
  // Shoelace over each edge from ring[j] to the next point ring[i]: (x_i - x_j)(y_i + y_j) sums positive
  // for a clockwise ring in a y-up system.
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[i]![0]! - ring[j]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return a / 2; // positive = clockwise in a y-up system
}

function inside(p: number[], ring: number[][]): boolean {
  let c = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i]!;
    const b = ring[j]!;
    if (a[1]! > p[1]! !== b[1]! > p[1]! && p[0]! < ((b[0]! - a[0]!) * (p[1]! - a[1]!)) / (b[1]! - a[1]!) + a[0]!) c = !c;
  }
  return c;
}

/** Shapefile polygons list rings flat: clockwise ones are outers, the others holes of the outer holding them. */
function polygonsOf(rings: number[][][]): number[][][][] {
  const polys: number[][][][] = [];
  const holes: number[][][] = [];
  for (const r of rings) (ringArea(r) >= 0 ? polys.push([r]) : holes.push(r));
  for (const h of holes) {
    const owner = polys.find((p) => h[0] && inside(h[0], p[0]!));
    if (owner) owner.push(h);
    else polys.push([h.slice().reverse()]);
  }
  return polys;
}

function* shpGeometries(shp: FileWindow, name: string, project: (x: number, y: number) => number[]): Generator<{ geometry: unknown; record: number; end: number }> {
  const head = shp.bytes(0, 100);
  const headView = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (head.length < 100 || headView.getInt32(0, false) !== 9994) throw new InvalidSource(`${name}: not a Shapefile .shp (bad header)`);
  const declared = headView.getInt32(24, false) * 2;
  if (declared > shp.size) throw new InvalidSource(`${name}: the .shp header declares ${declared} bytes but the file has ${shp.size}: it is truncated; upload it again`);
  let next = 100;
  let record = 0;
  while (next + 8 <= declared) {
    record++;
    const recordHead = shp.bytes(next, 8);
    const length = new DataView(recordHead.buffer, recordHead.byteOffset, 8).getInt32(4, false) * 2;
    if (length < 4) throw new InvalidSource(`${name}: record ${record} is malformed (length ${length})`);
    if (next + 8 + length > shp.size) throw new InvalidSource(`${name}: record ${record} runs past the end of the file: it is truncated; upload it again`);
    const content = shp.bytes(next + 8, length);
    next += 8 + length;
    let geometry: unknown;
    try {
      geometry = shapeOf(new DataView(content.buffer, content.byteOffset, content.byteLength), record, name, project);
    } catch (err) {
      if (err instanceof RangeError) throw new InvalidSource(`${name}: record ${record} is malformed (shorter than its shape needs)`);
      throw err;
    }
    yield { geometry, record, end: next };
  }
}

/** One record's shape as GeoJSON; `view` holds the record's content only. */
function shapeOf(view: DataView, record: number, name: string, project: (x: number, y: number) => number[]): unknown {
  const end = view.byteLength;
  const type = view.getInt32(0, true);
  const point = (o: number) => project(view.getFloat64(o, true), view.getFloat64(o + 8, true));
  const base = type % 10; // Z (1x) and M (2x) variants share the 2D layout first
  if (type === 0) return null;
  if (base === 1 && type !== 31) return { type: "Point", coordinates: point(4) };
  if (base === 8) {
    const n = view.getInt32(36, true);
    if (n < 0 || 40 + n * 16 > end) throw new InvalidSource(`${name}: record ${record} declares more points than it holds`);
    return { type: "MultiPoint", coordinates: Array.from({ length: n }, (_, i) => point(40 + i * 16)) };
  }
  if (base === 3 || base === 5) {
    const parts = view.getInt32(36, true);
    const n = view.getInt32(40, true);
    const ptsAt = 44 + parts * 4;
    if (parts < 0 || n < 0 || ptsAt + n * 16 > end) throw new InvalidSource(`${name}: record ${record} declares more points than it holds`);
    const lines: number[][][] = [];
    for (let i = 0; i < parts; i++) {
      const from = view.getInt32(44 + i * 4, true);
      const to = i + 1 < parts ? view.getInt32(44 + (i + 1) * 4, true) : n;
      const line: number[][] = [];
      for (let k = Math.max(0, from); k < to && k < n; k++) line.push(point(ptsAt + k * 16));
      lines.push(line);
    }
    if (base === 3) return lines.length === 1 ? { type: "LineString", coordinates: lines[0] } : { type: "MultiLineString", coordinates: lines };
    const polys = polygonsOf(lines);
    return polys.length === 1 ? { type: "Polygon", coordinates: polys[0] } : { type: "MultiPolygon", coordinates: polys };
  }
  return { type: `shape type ${type}` };
}

/** The files of one Shapefile layer, extracted from its zip to scratch files. */
export interface ShapefileParts {
  /** the .shp entry's name in the zip: messages name it */
  name: string;
  shp: string;
  dbf?: string;
  prj?: string;
  cpg?: string;
}

/** One Shapefile layer, its .shp and .dbf read record by record from disk. */
export async function* readShapefile(parts: ShapefileParts, label: string, progress: ReadProgress): AsyncGenerator<RawFeature> {
  const text = (path: string | undefined) => (path === undefined ? undefined : readFileSync(path, "utf8"));
  const prjName = parts.name.replace(/\.shp$/i, ".prj");
  const projection = projectionOf(text(parts.prj), `${label} (${parts.prj ? prjName : parts.name})`);
  const project = projection === "mercator" ? unproject : (x: number, y: number) => [x, y];
  if (!parts.prj) progress.warnings?.push(`${label}: no .prj file; coordinates were taken as WGS84 longitude/latitude`);
  // The shapes read fine without their table, so the loss would go unnoticed until someone styles by an attribute.
  if (!parts.dbf) progress.warnings?.push(`${label}: ${parts.name.replace(/\.shp$/i, ".dbf")} is missing, so the features of ${parts.name} have no attributes; zip the .dbf with the .shp`);
  const shp = new FileWindow(parts.shp);
  const dbf = parts.dbf ? new FileWindow(parts.dbf) : null;
  try {
    const records = dbf ? dbfRecords(dbf, `${label} (${parts.name.replace(/\.shp$/i, ".dbf")})`, text(parts.cpg), (progress.warnings ??= [])) : null;
    const share = progress.total / Math.max(1, shp.size);
    for (const { geometry, record, end } of shpGeometries(shp, `${label} (${parts.name})`, project)) {
      const props = records ? records.next().value : {};
      progress.bytes = end * share;
      if (props === null) continue; // deleted in the .dbf
      yield { geometry, properties: props ?? {}, where: `record ${record} of ${parts.name}` };
    }
    progress.bytes = progress.total;
  } finally {
    shp.close();
    dbf?.close();
  }
}

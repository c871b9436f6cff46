// Zipped Shapefile: the .shp geometry, .dbf attributes, .prj projection and .cpg encoding are read
// here directly (the formats are small and fixed). The zip is checked before anything is inflated:
// entries escaping the archive and zip bombs (declared sizes or ratios too large) are refused.
import { unzipSync } from "fflate";
import { InvalidSource } from "../errors";
import { unproject } from "./mercator";
import type { RawFeature, ReadProgress } from "./types";

/** Largest total of inflated .shp/.dbf/.prj/.cpg bytes accepted from one archive. */
export const MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024;
/** Largest compression ratio accepted for an entry over 1 MiB (real shapefiles compress ~3-10x). */
export const MAX_RATIO = 200;

const WANTED = /\.(shp|dbf|prj|cpg)$/i;

function unsafeName(name: string): boolean {
  const n = name.replaceAll("\\", "/");
  return n.startsWith("/") || /^[a-zA-Z]:/.test(n) || n.split("/").some((seg) => seg === "..");
}

const junk = (name: string) => name.split("/").some((s) => s.startsWith("__MACOSX") || s.startsWith("._"));

/** Inflates the entries `wanted` picks, refusing traversal and bombs before inflating anything. */
export function unzipChecked(zip: Uint8Array, label: string, wanted: (name: string) => boolean = (n) => WANTED.test(n)): Record<string, Uint8Array> {
  let total = 0;
  try {
    return unzipSync(zip, {
      filter(file) {
        if (unsafeName(file.name)) throw new InvalidSource(`${label}: archive entry '${file.name}' points outside the archive; refused`);
        if (!wanted(file.name) || junk(file.name)) return false;
        total += file.originalSize;
        if (total > MAX_UNZIPPED_BYTES)
          throw new InvalidSource(`${label}: the archive would inflate to more than ${MAX_UNZIPPED_BYTES / 1024 / 1024} MiB; refused (split the data or upload FlatGeobuf)`);
        if (file.originalSize > 1024 * 1024 && file.originalSize / Math.max(1, file.size) > MAX_RATIO)
          throw new InvalidSource(`${label}: entry '${file.name}' claims a ${Math.round(file.originalSize / Math.max(1, file.size))}:1 compression ratio; refused as a possible zip bomb`);
        return true;
      },
    });
  } catch (err) {
    if (err instanceof InvalidSource) throw err;
    throw new InvalidSource(`${label}: the zip archive is damaged or truncated (${(err as Error).message}); upload it again`);
  }
}

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
    if (/WGS[ _]?(19)?84|"4326"|NAD[ _]?(19)?83|ETRS[ _]?(19)?89|GRS[ _]?(19)?80/.test(wkt)) return "wgs84";
    const name = /^GEO[GD]C(?:S|RS)\["([^"]*)"/i.exec(prj.trim())?.[1] ?? "an unknown datum";
    throw new InvalidSource(`${label}: the .prj names the datum ${name}; only WGS84 (EPSG:4326) and Web Mercator (EPSG:3857) are accepted`);
  }
  throw new InvalidSource(`${label}: the .prj file is not WKT this importer understands; use WGS84 (EPSG:4326) or Web Mercator (EPSG:3857)`);
}

interface DbfField {
  name: string;
  type: string;
  length: number;
  offset: number;
}

function* dbfRecords(dbf: Uint8Array, name: string, decoder: TextDecoder): Generator<Record<string, unknown> | null> {
  const view = new DataView(dbf.buffer, dbf.byteOffset, dbf.byteLength);
  if (dbf.length < 32) throw new InvalidSource(`${name}: the .dbf file is truncated (no header)`);
  const count = view.getUint32(4, true);
  const headerLength = view.getUint16(8, true);
  const recordLength = view.getUint16(10, true);
  const fields: DbfField[] = [];
  let offset = 1;
  for (let p = 32; p + 32 <= headerLength && dbf[p] !== 0x0d; p += 32) {
    const raw = dbf.subarray(p, p + 11);
    const end = raw.indexOf(0);
    const fieldName = new TextDecoder("latin1").decode(end < 0 ? raw : raw.subarray(0, end)).trim();
    const f = { name: fieldName, type: String.fromCharCode(dbf[p + 11]!), length: dbf[p + 16]!, offset };
    offset += f.length;
    fields.push(f);
  }
  for (let i = 0; i < count; i++) {
    const start = headerLength + i * recordLength;
    if (start + recordLength > dbf.length) throw new InvalidSource(`${name}: the .dbf file is truncated at record ${i + 1} of ${count}; upload it again`);
    const props: Record<string, unknown> = {};
    for (const f of fields) {
      const text = decoder.decode(dbf.subarray(start + f.offset, start + f.offset + f.length)).replace(/\0+$/, "").trim();
      if (text === "") continue;
      if (f.type === "N" || f.type === "F") {
        const n = Number(text);
        if (Number.isFinite(n)) props[f.name] = n;
      } else if (f.type === "L") {
        if (/^[TtYy]$/.test(text)) props[f.name] = true;
        else if (/^[FfNn]$/.test(text)) props[f.name] = false;
      } else if (f.type === "D" && /^\d{8}$/.test(text)) props[f.name] = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
      else props[f.name] = text;
    }
    yield dbf[start] === 0x2a ? null : props;
  }
}

function ringArea(ring: number[][]): number {
  let a = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) a += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
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

function* shpGeometries(shp: Uint8Array, name: string, project: (x: number, y: number) => number[]): Generator<{ geometry: unknown; record: number }> {
  const view = new DataView(shp.buffer, shp.byteOffset, shp.byteLength);
  if (shp.length < 100 || view.getInt32(0, false) !== 9994) throw new InvalidSource(`${name}: not a Shapefile .shp (bad header)`);
  const declared = view.getInt32(24, false) * 2;
  if (declared > shp.length) throw new InvalidSource(`${name}: the .shp header declares ${declared} bytes but the file has ${shp.length}: it is truncated; upload it again`);
  let p = 100;
  let record = 0;
  while (p + 8 <= declared) {
    record++;
    const length = view.getInt32(p + 4, false) * 2;
    const start = p + 8;
    p = start + length;
    if (p > shp.length) throw new InvalidSource(`${name}: record ${record} runs past the end of the file: it is truncated; upload it again`);
    if (length < 4) throw new InvalidSource(`${name}: record ${record} is malformed (length ${length})`);
    const type = view.getInt32(start, true);
    const point = (o: number) => project(view.getFloat64(o, true), view.getFloat64(o + 8, true));
    const base = type % 10; // Z (1x) and M (2x) variants share the 2D layout first
    if (type === 0) {
      yield { geometry: null, record };
    } else if (base === 1 && type !== 31) {
      yield { geometry: { type: "Point", coordinates: point(start + 4) }, record };
    } else if (base === 8) {
      const n = view.getInt32(start + 36, true);
      if (start + 40 + n * 16 > p) throw new InvalidSource(`${name}: record ${record} declares more points than it holds`);
      const pts = Array.from({ length: n }, (_, i) => point(start + 40 + i * 16));
      yield { geometry: { type: "MultiPoint", coordinates: pts }, record };
    } else if (base === 3 || base === 5) {
      const parts = view.getInt32(start + 36, true);
      const n = view.getInt32(start + 40, true);
      const ptsAt = start + 44 + parts * 4;
      if (parts < 0 || n < 0 || ptsAt + n * 16 > p) throw new InvalidSource(`${name}: record ${record} declares more points than it holds`);
      const lines: number[][][] = [];
      for (let i = 0; i < parts; i++) {
        const from = view.getInt32(start + 44 + i * 4, true);
        const to = i + 1 < parts ? view.getInt32(start + 44 + (i + 1) * 4, true) : n;
        const line: number[][] = [];
        for (let k = from; k < to && k < n; k++) line.push(point(ptsAt + k * 16));
        lines.push(line);
      }
      if (base === 3) yield { geometry: lines.length === 1 ? { type: "LineString", coordinates: lines[0] } : { type: "MultiLineString", coordinates: lines }, record };
      else {
        const polys = polygonsOf(lines);
        yield { geometry: polys.length === 1 ? { type: "Polygon", coordinates: polys[0] } : { type: "MultiPolygon", coordinates: polys }, record };
      }
    } else {
      yield { geometry: { type: `shape type ${type}` }, record };
    }
  }
}

/** Names of a zip's entries (directories and macOS metadata left out), without inflating anything. */
export function zipEntries(zip: Uint8Array, label: string): string[] {
  const names: string[] = [];
  unzipChecked(zip, label, (name) => {
    if (!name.endsWith("/") && !junk(name)) names.push(name);
    return false;
  });
  return names;
}

/** One layer of a zipped Shapefile: the .shp named `shp`, or the first one in the zip. */
export async function* readShapefile(path: string, label: string, progress: ReadProgress, shp?: string): AsyncGenerator<RawFeature> {
  const stemOf = (n: string) => n.replace(/\.[^./]*$/, "").toLowerCase();
  const files = unzipChecked(await Bun.file(path).bytes(), label, (n) => WANTED.test(n) && (shp === undefined || stemOf(n) === stemOf(shp)));
  progress.bytes = progress.total;
  const shps = Object.keys(files).filter((n) => /\.shp$/i.test(n)).sort();
  if (!shps.length) throw new InvalidSource(`${label}: the zip holds no .shp file; zip the .shp, .shx, .dbf and .prj of one layer together`);
  const shpName = shps[0]!;
  const stem = shpName.slice(0, -4);
  const sibling = (ext: string) => Object.keys(files).find((n) => n.toLowerCase() === `${stem}.${ext}`.toLowerCase());
  const prjName = sibling("prj");
  const projection = projectionOf(prjName ? new TextDecoder().decode(files[prjName]) : undefined, `${label} (${prjName ?? shpName})`);
  const cpg = sibling("cpg") ? new TextDecoder().decode(files[sibling("cpg")!]).trim().toLowerCase() : "utf-8";
  const decoder = new TextDecoder(/1252|8859|latin/.test(cpg) ? "latin1" : "utf-8");
  const dbfName = sibling("dbf");
  const records = dbfName ? dbfRecords(files[dbfName]!, `${label} (${dbfName})`, decoder) : null;
  const project = projection === "mercator" ? unproject : (x: number, y: number) => [x, y];
  if (!prjName) progress.warnings?.push(`${label}: no .prj file; coordinates were taken as WGS84 longitude/latitude`);
  for (const { geometry, record } of shpGeometries(files[shpName]!, `${label} (${shpName})`, project)) {
    const props = records ? records.next().value : {};
    if (props === null) continue; // deleted in the .dbf
    yield { geometry, properties: props ?? {}, where: `record ${record} of ${shpName}` };
  }
}

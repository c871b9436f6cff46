// `mapstead gazetteer import --tileset owner/slug --name-field NAME`: the named point features of a
// published vector tileset become places of a gazetteer dataset. Points are read from the tiles of the
// archive's highest zoom (where they keep their full precision); a point is taken from the tile that
// contains it, not from the buffers of its neighbours, so each is read once.
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { openMbtiles } from "../../../tiles/mbtiles";
import { openPmtiles } from "../../../tiles/pmtiles";
import { isGzip, tileRange, type TileFacts } from "../../../tiles/source";
import { isSlug } from "../../../domain/orgs/slug";
import type { Gazetteer } from "./gazetteer";
import { checkDatasetName, InvalidGazetteerData, type ImportProgress, type ImportResult } from "./import-file";
import { createDatasetWriter, type WriteMode } from "./writer";
import { importInThread } from "./import-in-thread";

/** Tiles read at most (a world archive at zoom 12); beyond that the tileset should be imported from its source file. */
const MAX_TILES = 4 ** 12;

interface TilesetRow {
  archive_path: string | null;
  archive_format: string | null;
  metadata: string | null;
  attribution: string | null;
  name: string;
}

function tileToLonLat(z: number, x: number, y: number): [number, number] {
  const n = 2 ** z;
  return [(x / n) * 360 - 180, (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / n))) * 180) / Math.PI];
}

/**
 * The published point tileset `owner/slug` with the field `nameField`, ready to read, and the dataset
 * its places go to; InvalidGazetteerData says what is wrong (checked before an import is queued).
 */
export function findPointTileset(main: { sqlite: Database }, tileset: string, nameField: string, datasetName?: string) {
  const [owner, slug, ...extra] = tileset.split("/");
  // Checked before the dataset name made from them, whose own message would blame `name`.
  if (!owner || !slug || extra.length || !isSlug(owner) || !isSlug(slug))
    throw new InvalidGazetteerData(`tileset ${JSON.stringify(tileset.slice(0, 100))} must be owner/slug, such as acme/places (its published version is read; no @version)`);
  const dataset = checkDatasetName(datasetName ?? `tileset-${owner}-${slug}`.toLowerCase());
  const row = main.sqlite
    .query<TilesetRow, [string, string]>(
      `SELECT v.archive_path, v.archive_format, v.metadata, t.attribution, t.name FROM tilesets t JOIN orgs o ON o.id = t.org_id
       JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = t.published_version WHERE o.slug = ? AND t.slug = ? AND v.state = 'ready'`,
    )
    .get(owner, slug);
  if (!row?.archive_path || !row.metadata) throw new InvalidGazetteerData(`tileset ${owner}/${slug} does not exist or has no published version`);
  const facts = JSON.parse(row.metadata) as TileFacts;
  if (facts.format !== "pbf") throw new InvalidGazetteerData(`tileset ${owner}/${slug} holds ${facts.format} images, not vector features`);
  const fields = [...new Set(facts.vector_layers.flatMap((l) => Object.keys(l.fields ?? {})))];
  if (!fields.includes(nameField))
    throw new InvalidGazetteerData(`tileset ${owner}/${slug} has no field ${JSON.stringify(nameField)}; its fields are ${fields.join(", ") || "none"}`);
  const z = facts.maxzoom;
  const range = tileRange(facts.bounds, z);
  const tiles = (range.maxX - range.minX + 1) * (range.maxY - range.minY + 1);
  if (tiles > MAX_TILES) throw new InvalidGazetteerData(`tileset ${owner}/${slug} spans ${tiles} tiles at zoom ${z}; import the points from their source file instead`);
  return { owner, slug, dataset, row: { ...row, archive_path: row.archive_path }, facts, z, range, tiles };
}

/** What the import's thread needs to read a point tileset (findPointTileset's answer, without the main database). */
export interface TilesetPointsJob {
  kind: "tileset";
  /** the archive's absolute path */
  archivePath: string;
  archiveFormat: "mbtiles" | "pmtiles";
  facts: TileFacts;
  z: number;
  range: ReturnType<typeof tileRange>;
  tiles: number;
  nameField: string;
  dataset: string;
  attribution: string;
}

/**
 * Imports the named points of the published tileset `opts.tileset` into a dataset (default
 * tileset-OWNER-SLUG), on the import's own thread (import-in-thread.ts), as GeoNames files are.
 */
export async function importTilesetPoints(
  gazetteer: Gazetteer,
  main: { sqlite: Database; dataDir: string },
  opts: { tileset: string; nameField: string; dataset?: string; mode: WriteMode; onProgress?: (p: ImportProgress) => void; signal?: AbortSignal },
): Promise<ImportResult> {
  const { owner, slug, dataset, row, facts, z, range, tiles } = findPointTileset(main, opts.tileset, opts.nameField, opts.dataset);
  const job: TilesetPointsJob = {
    kind: "tileset",
    archivePath: join(main.dataDir, row.archive_path),
    archiveFormat: row.archive_format === "pmtiles" ? "pmtiles" : "mbtiles",
    facts,
    z,
    range,
    tiles,
    nameField: opts.nameField,
    dataset,
    attribution: row.attribution || `${row.name} (${owner}/${slug})`,
  };
  return gazetteer.withWriteLock(() => importInThread(gazetteer.path, job, opts));
}

/** Progress at most this often: a tile is read in well under a millisecond. */
const PROGRESS_EVERY_MS = 250;

/** The import itself, on the writing connection `db` (of the import's thread). */
export async function writeTilesetPoints(db: Database, job: TilesetPointsJob, opts: { mode: WriteMode; onProgress?: (p: ImportProgress) => void; signal?: AbortSignal }): Promise<ImportResult> {
  const started = performance.now();
  const { z, range, tiles, dataset } = job;
  const source = job.archiveFormat === "pmtiles" ? await openPmtiles(job.archivePath, job.facts) : openMbtiles(job.archivePath, job.facts);
  const writer = createDatasetWriter(db, { name: dataset, kind: "tileset", attribution: job.attribution }, opts.mode);
  const progress: ImportProgress = { bytesRead: 0, totalBytes: tiles, lines: 0, places: 0, names: 0, stage: "reading" };
  let reported = -Infinity;
  const report = (stage: ImportProgress["stage"], force = false) => {
    const now = performance.now();
    if (!force && now - reported < PROGRESS_EVERY_MS) return;
    reported = now;
    progress.names = writer.written().names;
    opts.onProgress?.({ ...progress, stage });
  };
  try {
    writer.begin();
    const seen = new Set<string>();
    for (let x = range.minX; x <= range.maxX; x++) {
      for (let y = range.minY; y <= range.maxY; y++) {
        const tile = await source.getTile(z, x, y);
        progress.bytesRead++;
        if (!tile) continue;
        const data = isGzip(tile.data) ? Bun.gunzipSync(tile.data as Uint8Array<ArrayBuffer>) : tile.data;
        const vt = new VectorTile(new PbfReader(data));
        for (const [layerName, layer] of Object.entries(vt.layers)) {
          for (let i = 0; i < layer.length; i++) {
            const f = layer.feature(i);
            const name = f.properties[job.nameField];
            if (f.type !== 1 || typeof name !== "string" || !name.trim()) continue;
            for (const ring of f.loadGeometry())
              for (const p of ring) {
                if (p.x < 0 || p.y < 0 || p.x >= layer.extent || p.y >= layer.extent) continue;
                const [lon, lat] = tileToLonLat(z, x + p.x / layer.extent, y + p.y / layer.extent);
                const extId = f.id !== undefined ? `${layerName}:${f.id}:${ring.indexOf(p)}` : `${layerName}:${lon.toFixed(6)},${lat.toFixed(6)}:${name}`;
                if (seen.has(extId)) continue;
                seen.add(extId);
                const population = Number(f.properties.population);
                writer.addPlace({
                  extId,
                  layer: "venue",
                  name: name.trim(),
                  countryCode: null,
                  admin1: null,
                  population: Number.isSafeInteger(population) && population > 0 ? population : 0,
                  importance: 0,
                  lon,
                  lat,
                  names: [],
                });
                progress.places++;
                progress.lines++;
              }
          }
        }
      }
      report("reading");
      // A turn of the thread's event loop, so that an abort (server shutdown) is heard.
      await Bun.sleep(0);
      if (opts.signal?.aborted) throw new Error("the import was stopped (server shutdown)");
    }
    report("indexing", true);
    const counts = writer.commit();
    report("done", true);
    return { dataset, kind: "tileset", mode: opts.mode, lines: progress.lines, places: counts.places, names: counts.names, skipped: 0, ms: Math.round(performance.now() - started) };
  } catch (err) {
    writer.rollback();
    throw err;
  } finally {
    source.close();
  }
}

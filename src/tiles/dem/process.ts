// The raster-DEM side of processing an upload (runs in the worker thread like the rest of process.ts):
// .hgt / zipped .hgt / GeoTIFF files are built into a Terrarium or Terrain-RGB MBTiles, and imported
// MBTiles/PMTiles marked as DEM (recipe `encoding`, or `encoding` in their metadata) are checked to hold
// PNG or lossless WebP tiles this server can decode for elevation lookups.
import { InvalidSource } from "../errors";
import type { ProcessInput, ProcessResult, Progress, SourceFile } from "../process";
import type { TileFacts } from "../source";
import { buildDemTiles } from "./build";
import { readGeotiff } from "./geotiff";
import type { ElevationGrid } from "./grid";
import { readHgt, readHgtZip } from "./hgt";
import { Database } from "bun:sqlite";
import { openPmtiles } from "../pmtiles";
import { decodeDemTile, type DemEncoding } from "./encoding";
import { tileCoordinates } from "./sample";

async function readGrids(source: SourceFile): Promise<ElevationGrid[]> {
  if (source.format === "geotiff") return [await readGeotiff(source.path, source.label)];
  const bytes = await Bun.file(source.path).bytes();
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return readHgtZip(bytes, source.label);
  return [readHgt(bytes, source.label)];
}

/** Elevation rasters (GeoTIFF, .hgt; one or several files) built into one raster-DEM archive at outPath. */
export async function processElevation(input: ProcessInput, report: (p: Progress) => void): Promise<ProcessResult> {
  const started = performance.now();
  report({ progress: 0, phase: "reading", features: 0, tiles: 0 });
  const grids: ElevationGrid[] = [];
  for (const source of input.sources) grids.push(...(await readGrids(source)));
  const label = input.sources.length === 1 ? input.sources[0]!.label : `${input.sources.length} files`;
  const samples = grids.reduce((n, g) => n + g.values.length, 0);
  const voids = grids.reduce((n, g) => n + g.values.filter(Number.isNaN).length, 0);
  report({ progress: 0.1, phase: "tiling", features: 0, tiles: 0 });
  const built = buildDemTiles(
    grids,
    { encoding: input.recipe.encoding ?? "terrarium", minzoom: input.recipe.minzoom, maxzoom: input.recipe.maxzoom, outPath: input.outPath, name: input.name, description: input.description, attribution: input.attribution, label },
    (progress, tiles) => report({ progress: 0.1 + 0.9 * progress, phase: "tiling", features: 0, tiles }),
  );
  // Both kinds of missing data are drawn as 0 m for maps and answered as no data by the elevation API.
  const consequence = "maps show 0 m there and the elevation API answers 404 NO_ELEVATION_DATA";
  const warnings: string[] = [];
  if (voids) warnings.push(`${label}: ${voids} of ${samples} samples are voids (no data); ${consequence}`);
  if (built.pixelsUncovered) {
    const share = built.pixelsUncovered / built.pixelsInBounds;
    const percent = share < 0.01 ? "under 1" : String(Math.round(share * 100));
    warnings.push(`${label}: the files leave gaps in their bounding box ${built.facts.bounds.join(",")} (${percent}% of it has no file); ${consequence}`);
  }
  return {
    archiveFormat: "mbtiles",
    archivePath: input.outPath,
    facts: built.facts,
    warnings,
    stats: { features: 0, features_skipped: 0, features_repaired: 0, features_filtered: 0, dropped_by_size: {}, features_by_layer: {}, tiles: built.tiles, bytes: built.bytes, seconds: Math.round((performance.now() - started) / 10) / 100 },
  };
}

/** One tile of an archive (the first MBTiles row; the PMTiles tile under the centre), or null. */
export async function sampleTile(path: string, format: "mbtiles" | "pmtiles", facts: TileFacts): Promise<Uint8Array | null> {
  if (format === "mbtiles") {
    const db = new Database(path, { readonly: true });
    try {
      return db.query<{ tile_data: Uint8Array }, []>("SELECT tile_data FROM tiles WHERE length(tile_data) > 0 LIMIT 1").get()?.tile_data ?? null;
    } finally {
      db.close();
    }
  }
  const source = await openPmtiles(path, facts);
  try {
    for (const z of [facts.maxzoom, facts.minzoom]) {
      const { fx, fy } = tileCoordinates(facts.center[0], facts.center[1], z);
      const tile = await source.getTile(z, Math.floor(fx), Math.floor(fy));
      if (tile) return tile.encoding === "gzip" ? Bun.gunzipSync(tile.data as Uint8Array<ArrayBuffer>) : tile.data;
    }
    return null;
  } finally {
    source.close();
  }
}

/**
 * An imported archive's facts as a DEM: PNG or lossless WebP tiles only, one of them decoded to prove it
 * (a lossy WebP is refused there) and to learn the tile size, with the chosen encoding.
 */
export async function asDemFacts(path: string, format: "mbtiles" | "pmtiles", facts: TileFacts, encoding: DemEncoding, label: string): Promise<TileFacts> {
  if (facts.format !== "png" && facts.format !== "webp") throw new InvalidSource(`${label}: a raster-DEM archive must hold PNG or lossless WebP tiles (it holds ${facts.format})`);
  const sample = await sampleTile(path, format, facts);
  const size = sample ? (await decodeDemTile(sample, encoding, `${label}: a tile`)).size : undefined;
  return { ...facts, encoding, vector_layers: [], ...(size ? { tile_size: size } : {}) };
}

// Cuts the tile pyramid from a FeatureStore: each tile reads only the features that reach into it
// (most important first), clips and simplifies them with geojson-vt, encodes the layers (mvt-encode.ts)
// and gzips. A tile over the byte limit sheds its least important features until it fits, and the drops are
// counted per zoom.
import { GeoJSONVT, geoJSONToTile, type GeoJSONVTTile } from "@maplibre/geojson-vt";
import type { FeatureStore, StoredFeature, UnitBox } from "./feature-store";
import { encodeTile } from "./mvt-encode";

export const EXTENT = 4096;
/**
 * Parsed and indexed in geojson-vt, feature text takes about ten times its size in memory (a block of
 * lines crossing many tiles, with the tiles being cut below, up to twenty-five): a tile reads at most this
 * share of the memory budget in text (the rest is counted as dropped) ...
 */
const READ_SHARE = 1 / 16;
/** ... and a tile whose whole subtree holds less than this share is cut from one in-memory index. */
const BLOCK_SHARE = 1 / 32;
/** The JavaScript heap is collected each time it, or the process, has grown by this share of the budget (see pace()). */
const HEAP_SHARE = 1 / 4;

/**
 * The most text one feature may have: every tile it reaches parses and clips all of it, so a bigger one
 * cannot be cut within the budget (a 37 MiB polygon took 656 MiB at 256).
 */
export const featureTextLimit = (memoryMb: number) => memoryMb * 1024 * 1024 * READ_SHARE;

export interface TilerLayer {
  id: number;
  name: string;
  minzoom: number;
  maxzoom: number;
  /** simplification tolerance in tile pixels */
  tolerance: number;
}

export interface TilerOptions {
  minzoom: number;
  maxzoom: number;
  /** tile buffer in pixels of a 256-pixel tile */
  buffer: number;
  /** largest gzipped tile in bytes */
  tileBytes: number;
  /** the memory budget in MiB (TILING_MEMORY_MB) */
  memoryMb: number;
}

export interface TileSink {
  put(z: number, x: number, y: number, data: Uint8Array): void;
}

export interface TilerStats {
  tiles: number;
  bytes: number;
  /** features left out of tiles to honour the byte limit or the memory budget, by zoom */
  dropped_by_size: Record<string, number>;
  /** of those, the ones left out because a tile's features had more text than its share of TILING_MEMORY_MB */
  droppedForMemory: number;
}

/** A tile's box in the unit square, grown by the buffer. */
function tileBox(z: number, x: number, y: number, bufferPx: number): UnitBox {
  const size = 1 / 2 ** z;
  const pad = (bufferPx / 256) * size;
  return [x * size - pad, y * size - pad, (x + 1) * size + pad, (y + 1) * size + pad];
}

function encode(tiles: Record<string, GeoJSONVTTile>): Uint8Array {
  return Bun.gzipSync(encodeTile(tiles, EXTENT) as Uint8Array<ArrayBuffer>);
}

/** Hidden attributes carrying a feature's zoom range through a block's GeoJSONVT index (never encoded: NUL-prefixed). */
const MINZOOM_TAG = "\u0000minzoom";
const MAXZOOM_TAG = "\u0000maxzoom";

function toFeature(f: StoredFeature, tagZoom: boolean): GeoJSON.Feature {
  const properties = JSON.parse(f.properties) as Record<string, unknown>;
  if (tagZoom) {
    properties[MINZOOM_TAG] = f.minzoom;
    properties[MAXZOOM_TAG] = f.maxzoom ?? Infinity;
  }
  const feature: GeoJSON.Feature = { type: "Feature", geometry: JSON.parse(f.geometry), properties };
  if (f.fid !== null) feature.id = f.fid;
  return feature;
}

/** geojson-vt's cache of the tiles an index has cut, by tileId. */
type TileCache = Record<string, unknown>;

/** geojson-vt's key of a tile in its cache. */
const tileId = (z: number, x: number, y: number) => ((1 << z) * y + x) * 32 + z;

/**
 * The tile cache inside a GeoJSONVT index (not part of its typed API, checked here so that a geojson-vt
 * release that moves it fails every import at once instead of tiling with unbounded memory).
 */
function tileCache(index: GeoJSONVT): TileCache {
  const tiles = (index as unknown as { tileIndex?: { tiles?: TileCache } }).tileIndex?.tiles;
  if (typeof tiles !== "object" || tiles === null) throw new Error("the tiler cannot reach geojson-vt's tile cache (tileIndex.tiles): check the @maplibre/geojson-vt version");
  return tiles;
}

/** Whether a feature of a block's index shows at zoom z. */
const showsAt = (tags: Record<string, unknown>, z: number) => (tags[MINZOOM_TAG] as number) <= z && z <= (tags[MAXZOOM_TAG] as number);

/**
 * Walks the pyramid depth first. Where the features reaching into a tile fit BLOCK_BUDGET, one geojson-vt
 * index serves the tile and all its descendants (each feature converted once); above that, the tile is
 * cut on its own from its most important features, and its four children are visited.
 */
export function tileAll(store: FeatureStore, layers: TilerLayer[], opts: TilerOptions, sink: TileSink, onProgress: (done: number, tiles: number) => void): TilerStats {
  const stats: TilerStats = { tiles: 0, bytes: 0, dropped_by_size: {}, droppedForMemory: 0 };
  const READ_BUDGET = featureTextLimit(opts.memoryMb);
  const BLOCK_BUDGET = opts.memoryMb * 1024 * 1024 * BLOCK_SHARE;
  const bufferUnits = (opts.buffer / 256) * EXTENT;
  const dropped = (z: number, n: number) => n && (stats.dropped_by_size[z] = (stats.dropped_by_size[z] ?? 0) + n);
  let done = 0;
  let lastReport = 0;

  // Cutting tiles makes garbage fast (clipped copies of features, tile geometry, encoder buffers), and
  // JavaScriptCore let it pile up to four times the live heap before collecting: 260 MiB of heap for 65 MiB
  // live. Nor does the heap's size tell all (memory the collector frees is not all handed back): on lines
  // cut tile by tile, 130 MiB of garbage per tile from 16 MiB of text, collections paced by the heap alone
  // let the process reach 380-450 MiB, paced by the heap or the process's resident memory 315 MiB.
  // Collecting each time either has grown by a share of the budget bounds the peak near what is live plus
  // that share, at the cost of a collection per that much work. The heap is read from process.memoryUsage(),
  // a few microseconds, not bun:jsc's heapSize(), which walks the heap: a third of a millisecond with 130 MiB
  // live; asked before every tile, it made cutting countries-10m to zoom 8 take 7-9 s of CPU instead of 4.7.
  const growth = opts.memoryMb * 1024 * 1024 * HEAP_SHARE;
  const limits = () => {
    const { heapUsed, rss } = process.memoryUsage();
    return { heap: heapUsed + growth, rss: rss + growth };
  };
  let at = limits();
  const pace = () => {
    const { heapUsed, rss } = process.memoryUsage();
    if (heapUsed < at.heap && rss < at.rss) return;
    Bun.gc(true);
    at = limits();
  };

  /** Encodes one tile's layers, shedding the least important features until it fits; writes it. */
  function emit(z: number, x: number, y: number, tiles: Record<string, GeoJSONVTTile>) {
    if (!Object.keys(tiles).length) return;
    let data = encode(tiles);
    // Over the limit: keep the same share of every layer's most important features, shrinking until it fits.
    while (data.length > opts.tileBytes) {
      const share = Math.min(0.9, (opts.tileBytes / data.length) * 0.9);
      for (const name of Object.keys(tiles)) {
        const t = tiles[name]!;
        const keep = Math.floor(t.features.length * share);
        dropped(z, t.features.length - keep);
        t.features = t.features.slice(0, keep) as typeof t.features;
        if (!keep) delete tiles[name];
      }
      if (!Object.keys(tiles).length) return;
      data = encode(tiles);
    }
    sink.put(z, x, y, data);
    stats.tiles++;
    stats.bytes += data.length;
    if (stats.tiles - lastReport >= 256) {
      lastReport = stats.tiles;
      onProgress(done, stats.tiles);
    }
  }

  const options = (layer: TilerLayer) => ({ maxZoom: layer.maxzoom, tolerance: layer.tolerance, extent: EXTENT, buffer: bufferUnits });

  /** One tile from the store alone (too much data below it for a block). */
  function single(z: number, x: number, y: number, box: UnitBox) {
    const tiles: Record<string, GeoJSONVTTile> = {};
    for (const layer of layers) {
      if (z < layer.minzoom || z > layer.maxzoom) continue;
      const { features, skipped } = store.tileFeatures(layer.id, z, box, READ_BUDGET);
      dropped(z, skipped);
      stats.droppedForMemory += skipped;
      if (!features.length) continue;
      const collection: GeoJSON.FeatureCollection = { type: "FeatureCollection", features: features.map((f) => toFeature(f, false)) };
      const tile = geoJSONToTile(collection, z, x, y, { ...options(layer), clip: true, wrap: true });
      if (tile?.features.length) tiles[layer.name] = tile;
    }
    emit(z, x, y, tiles);
  }

  /** A tile and all its descendants from one geojson-vt index per layer. */
  function block(z0: number, x0: number, y0: number, box: UnitBox) {
    const indexes = new Map<TilerLayer, { index: GeoJSONVT; cache: TileCache }>();
    for (const layer of layers) {
      if (layer.maxzoom < z0) continue;
      const features = store.blockFeatures(layer.id, box).map((f) => toFeature(f, true));
      // indexMaxZoom 0: the index starts as one world tile and is cut only toward the tiles asked for. Cut
      // ahead to z0, it made every tile of the world the features reach down to z0 (for lines spanning the
      // world, the whole pyramid at once).
      if (!features.length) continue;
      const index = new GeoJSONVT({ type: "FeatureCollection", features }, { ...options(layer), indexMaxZoom: 0 });
      indexes.set(layer, { index, cache: tileCache(index) });
    }
    const walk = (z: number, x: number, y: number) => {
      const tiles: Record<string, GeoJSONVTTile> = {};
      let any = false;
      for (const [layer, { index, cache }] of indexes) {
        if (z > layer.maxzoom) continue;
        const tile = index.getTile(z, x, y);
        // Cutting down to the block's tile made the tiles on the way and their siblings outside the block.
        if (z === z0) for (const id of Object.keys(cache)) if (id !== String(tileId(z, x, y))) delete cache[id];
        if (!tile) continue;
        // Data reaches this tile even when all of it is too small to draw here: its children may draw it.
        any = true;
        if (!tile.features.length || z < layer.minzoom) continue;
        const shown = tile.features.filter((f) => showsAt(f.tags ?? {}, z));
        if (shown.length) tiles[layer.name] = { ...tile, features: shown as typeof tile.features };
      }
      if (any) {
        pace();
        if (z >= opts.minzoom) emit(z, x, y, tiles);
        if (z < opts.maxzoom) for (let i = 0; i < 4; i++) walk(z + 1, 2 * x + (i & 1), 2 * y + (i >> 1));
      }
      // geojson-vt keeps every tile it cuts, with the clipped features its children are cut from: once a
      // tile and its subtree are written it goes, so the index holds the path being walked and the siblings
      // waiting on it, not the whole subtree (for long lines, many times the block's text at every zoom).
      for (const { cache } of indexes.values()) delete cache[tileId(z, x, y)];
    };
    walk(z0, x0, y0);
    indexes.clear();
  }

  const visit = (z: number, x: number, y: number) => {
    const box = tileBox(z, x, y, opts.buffer);
    if (store.hasData(box)) {
      const size = store.textSize(box, BLOCK_BUDGET);
      // What the last block or tile left behind goes before the next is read.
      pace();
      if (size <= BLOCK_BUDGET) block(z, x, y, box);
      else {
        if (z >= opts.minzoom) single(z, x, y, box);
        if (z < opts.maxzoom) {
          for (let i = 0; i < 4; i++) visit(z + 1, 2 * x + (i & 1), 2 * y + (i >> 1));
          return;
        }
      }
    }
    done += 1 / 4 ** z;
    onProgress(done, stats.tiles);
  };
  visit(0, 0, 0);
  return stats;
}

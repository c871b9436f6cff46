// Raster-DEM tiles of the view, decoded to heights, and each tile's heights with a border taken from its
// loaded neighbours (MapLibre backfills the same border, so slopes run across tile seams without a line).
import { Lru } from "../lru";
import { decodeDemTile, type DemEncoding, type DemTile } from "../tiles/dem/encoding";
import type { RenderResources } from "./types";
import { coveringTiles, type Camera, type TileId } from "./view";
import { contentHash } from "./content-hash";

export interface LoadedDemTile {
  id: TileId;
  dem: DemTile;
  /** how the tile packed its heights (color-relief packs its stops the same way) */
  encoding: DemEncoding;
  /** what identifies the tile's heights across renders (its bytes' length and hash, and the encoding) */
  key: string;
}

/**
 * Decoded heights kept across renders, keyed by the tile's bytes (a republished tileset can never be
 * served stale): decoding a 256-px tile costs about 7 ms, and a worker draws view after view over the
 * same few tiles (neighbouring raster tiles share their DEM tiles). Heights take 4 bytes a pixel.
 */
const decodedHeights = new Lru<DemTile>({ maxBytes: 32 * 1024 * 1024 });

/** The view's tiles of a raster-dem source (as raster tiles are chosen), decoded; unreadable ones are left out. */
export async function loadDemTiles(
  cam: Camera,
  sourceId: string,
  res: RenderResources,
  info: { tileSize: number; minzoom: number; maxzoom: number; encoding?: DemEncoding },
): Promise<LoadedDemTile[]> {
  const encoding = info.encoding ?? "mapbox";
  const ids = coveringTiles(cam, info, true);
  const tiles = await Promise.all(
    ids.map(async (id) => {
      const bytes = await res.tile(sourceId, id.z, id.x, id.y);
      if (!bytes || bytes.length === 0) return null;
      const key = `${bytes.length}:${contentHash(bytes)}:${encoding}`;
      try {
        let dem = decodedHeights.get(key);
        if (dem === undefined) {
          dem = await decodeDemTile(bytes, encoding, `tile ${id.z}/${id.x}/${id.y}`);
          decodedHeights.set(key, dem, dem.heights.byteLength);
        }
        return { id, encoding, key, dem };
      } catch {
        // MapLibre skips a tile it cannot decode; so does the picture
        return null;
      }
    }),
  );
  return withinBudget(tiles.filter((t): t is LoadedDemTile => t !== null));
}

/**
 * Heights shaded or coloured in one render: at most this many pixels (16 Mi, a few hundred MB through
 * shading). A tileset of big tiles (up to 4096 px are accepted) under a big view would need gigabytes, so
 * its tiles are halved first, which a view showing each DEM pixel smaller than a screen pixel does not miss.
 */
const MAX_DEM_PIXELS = 16 * 1024 * 1024;

function withinBudget(tiles: LoadedDemTile[]): LoadedDemTile[] {
  let out = tiles;
  while (out.length && out.reduce((sum, t) => sum + t.dem.size * t.dem.size, 0) > MAX_DEM_PIXELS) out = out.map(halveHeights);
  return out;
}

/** The tile at half the size, each height the mean of four (no data only where all four are). */
function halveHeights(tile: LoadedDemTile): LoadedDemTile {
  const { size: full, heights } = tile.dem;
  const size = full >> 1;
  const half = new Float32Array(size * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      let sum = 0;
      let n = 0;
      for (const o of [(y * 2) * full + x * 2, (y * 2) * full + x * 2 + 1, (y * 2 + 1) * full + x * 2, (y * 2 + 1) * full + x * 2 + 1]) {
        const h = heights[o]!;
        if (!Number.isNaN(h)) {
          sum += h;
          n++;
        }
      }
      half[y * size + x] = n ? sum / n : NaN;
    }
  return { ...tile, key: `${tile.key}/2`, dem: { size, heights: half } };
}

/**
 * The tile's heights with a 1-px border, (size+2)^2 row by row: from the neighbouring tile where it is
 * loaded (same zoom and size), else the tile's own edge repeated. No-data (NaN) heights count as 0 m, as
 * the tile's PNG draws them in MapLibre.
 */
export function paddedHeights(tile: LoadedDemTile, all: LoadedDemTile[]): Float32Array {
  const size = tile.dem.size;
  const stride = size + 2;
  const out = new Float32Array(stride * stride);
  const byPosition = new Map(all.filter((t) => t.id.z === tile.id.z && t.dem.size === size).map((t) => [`${t.id.wrappedX}/${t.id.y}`, t.dem.heights]));
  const heightAt = (x: number, y: number): number => {
    let dx = 0;
    let dy = 0;
    if (x < 0) dx = -1;
    else if (x >= size) dx = 1;
    if (y < 0) dy = -1;
    else if (y >= size) dy = 1;
    const neighbour = dx || dy ? byPosition.get(`${tile.id.wrappedX + dx}/${tile.id.y + dy}`) : tile.dem.heights;
    const h = neighbour ? neighbour[(y - dy * size) * size + (x - dx * size)]! : tile.dem.heights[clamp(y, size) * size + clamp(x, size)]!;
    return Number.isNaN(h) ? 0 : h;
  };
  for (let y = -1; y <= size; y++) for (let x = -1; x <= size; x++) out[(y + 1) * stride + x + 1] = heightAt(x, y);
  return out;
}

const clamp = (v: number, size: number) => Math.max(0, Math.min(size - 1, v));

/** What identifies the tile's padded heights: its own key and those of the neighbours that give its border. */
export function paddedKey(tile: LoadedDemTile, all: LoadedDemTile[]): string {
  const size = tile.dem.size;
  const byPosition = new Map(all.filter((t) => t.id.z === tile.id.z && t.dem.size === size).map((t) => [`${t.id.wrappedX}/${t.id.y}`, t.key]));
  const keys: string[] = [];
  for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) keys.push(byPosition.get(`${tile.id.wrappedX + dx}/${tile.id.y + dy}`) ?? "-");
  return keys.join(",");
}

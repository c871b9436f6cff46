// The tiles of a PMTiles archive that are checked against its header's tile type (tile-check.ts), as an
// MBTiles archive's are against its metadata: per zoom level, the first tile at or after each quarter of
// the level's tile-id range. Ids run along a Hilbert curve, so the samples spread over the map; each is
// found by a seek through the root and at most a few leaf directories, never a walk of the whole index.
import { tileIdToZxy, zxyToTileId, type Entry } from "pmtiles";
import { SAMPLE_POINTS, type SampledTile } from "./tile-check";

/** The directory at (offset, length): leaf offsets are relative to the leaf section, as the header has it. */
export type ReadDirectory = (offset: number, length: number) => Promise<Entry[]>;

/** pmtiles reads ids from z0 to z26 as exact numbers (4^27 is past 2^53). */
const MAX_ID_ZOOM = 26;
/** Root, then leaves: the spec nests at most this deep, and a loop in a damaged archive must end. */
const MAX_DEPTH = 3;

interface Found {
  id: number;
  entry: Entry;
}

/** Index of the last entry whose tileId is at most `id`; -1 when the first one is past it. */
function lastAtOrBefore(entries: Entry[], id: number): number {
  let lo = 0;
  let hi = entries.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (entries[mid]!.tileId <= id) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at;
}

/** The first tile with an id at or after `target` under one directory, or null. */
async function seek(read: ReadDirectory, leafOffset: number, offset: number, length: number, target: number, depth: number): Promise<Found | null> {
  const entries = await read(offset, length);
  for (let i = Math.max(0, lastAtOrBefore(entries, target)); i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.runLength > 0) {
      if (entry.tileId + entry.runLength - 1 >= target) return { id: Math.max(entry.tileId, target), entry };
    } else if (depth < MAX_DEPTH) {
      const found = await seek(read, leafOffset, leafOffset + entry.offset, entry.length, target, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/** A handful of tiles of every zoom level from `minzoom` to `maxzoom`, with their stored bytes. */
export async function samplePmtiles(
  read: ReadDirectory,
  layout: { rootOffset: number; rootLength: number; leafOffset: number; minzoom: number; maxzoom: number },
  bytes: (entry: Entry) => Promise<Uint8Array>,
): Promise<SampledTile[]> {
  const samples: SampledTile[] = [];
  for (let z = layout.minzoom; z <= Math.min(layout.maxzoom, MAX_ID_ZOOM); z++) {
    const first = zxyToTileId(z, 0, 0);
    const count = 4 ** z;
    const seen = new Set<number>();
    for (const p of SAMPLE_POINTS) {
      const found = await seek(read, layout.leafOffset, layout.rootOffset, layout.rootLength, first + Math.round(p * (count - 1)), 0);
      if (!found || found.id >= first + count || seen.has(found.id)) continue;
      seen.add(found.id);
      const [, x, y] = tileIdToZxy(found.id);
      samples.push({ z, x, y, data: await bytes(found.entry) });
    }
  }
  return samples;
}

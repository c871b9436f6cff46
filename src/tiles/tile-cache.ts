// A byte-bounded LRU of tiles by archive and address. Archives are immutable (a version's file never
// changes), so entries never go stale; they only age out. Low zooms and popular areas are read from
// SQLite or the PMTiles file once instead of on every request.
import type { Tile } from "./source";

export class TileCache {
  private readonly entries = new Map<string, Tile | null>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Tile | null | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    // Refresh recency: Map keeps insertion order, the first entry is the least recently used.
    this.entries.delete(key);
    this.entries.set(key, hit);
    return hit;
  }

  set(key: string, tile: Tile | null): void {
    const size = (tile?.data.length ?? 0) + key.length + 64;
    if (size > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= (old?.data.length ?? 0) + key.length + 64;
      this.entries.delete(key);
    }
    this.entries.set(key, tile);
    this.bytes += size;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= (v?.data.length ?? 0) + k.length + 64;
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

// The one least-recently-used map of the house: bounded by entries and/or bytes, with an optional time
// to live. Every in-memory cache uses it (tiles, published content, glyphs, sprites, rendered images,
// geocoder and elevation answers), so eviction is written and tested once.
//
// A Map keeps insertion order, so its first key is the least recently used. A hit moves its entry to the
// recent end only when the entry sits in the older half of the map: hot entries (every tile request hits
// one) cost a lookup and no Map re-insert, while an entry that is about to age out is still saved.

export interface LruOptions<V> {
  /** at most this many entries (default: unbounded) */
  maxEntries?: number;
  /** at most this many bytes, summed over the sizes given to `set` (default: unbounded) */
  maxBytes?: number;
  /** entries larger than this are not kept (default: maxBytes) */
  maxEntryBytes?: number;
  /** entries expire this long after they were set (default: never) */
  ttlMs?: number;
  now?: () => number;
  /** told about every entry that leaves other than through `clear()` or being replaced by `set` */
  onEvict?: (key: string, value: V) => void;
}

interface Entry<V> {
  value: V;
  bytes: number;
  expiresAt: number;
  /** insertion order stamp: how recently the entry moved to the recent end */
  stamp: number;
}

export class Lru<V> {
  private readonly map = new Map<string, Entry<V>>();
  private total = 0;
  private stamps = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: LruOptions<V> = {}) {
    this.maxEntries = opts.maxEntries ?? Infinity;
    this.maxBytes = opts.maxBytes ?? Infinity;
    this.maxEntryBytes = Math.min(opts.maxEntryBytes ?? Infinity, this.maxBytes);
    this.ttlMs = opts.ttlMs ?? Infinity;
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.map.size;
  }

  get bytes(): number {
    return this.total;
  }

  get(key: string): V | undefined {
    return this.entry(key)?.value;
  }

  /** The value with its expiry time (Infinity without a time to live), for caches layered on this one. */
  entry(key: string): { value: V; expiresAt: number } | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt !== Infinity && e.expiresAt <= this.now()) {
      this.remove(key, e);
      return undefined;
    }
    if (this.stamps - e.stamp > this.map.size >> 1) {
      this.map.delete(key);
      e.stamp = ++this.stamps;
      this.map.set(key, e);
    }
    return e;
  }

  /**
   * Keeps `value` under `key`, counting `bytes` against maxBytes; it expires after ttlMs, or at `expiresAt`
   * when that is earlier. Values larger than maxEntryBytes are not kept (an older value under the key goes).
   */
  set(key: string, value: V, bytes = 0, expiresAt = Infinity): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.total -= old.bytes;
    }
    if (bytes > this.maxEntryBytes) return;
    const latest = this.ttlMs === Infinity ? Infinity : this.now() + this.ttlMs;
    this.map.set(key, { value, bytes, expiresAt: Math.min(expiresAt, latest), stamp: ++this.stamps });
    this.total += bytes;
    if (this.map.size > this.maxEntries || this.total > this.maxBytes) this.shrink();
  }

  delete(key: string): void {
    const e = this.map.get(key);
    if (e !== undefined) this.remove(key, e);
  }

  /** Removes every entry that passes `test` (a walk over all entries: for rare events such as a publish). */
  deleteWhere(test: (key: string, value: V) => boolean): void {
    for (const [key, e] of this.map) if (test(key, e.value)) this.remove(key, e);
  }

  clear(): void {
    this.map.clear();
    this.total = 0;
  }

  private shrink(): void {
    for (const [key, e] of this.map) {
      if (this.map.size <= this.maxEntries && this.total <= this.maxBytes) break;
      this.remove(key, e);
    }
  }

  private remove(key: string, e: Entry<V>): void {
    this.map.delete(key);
    this.total -= e.bytes;
    this.opts.onEvict?.(key, e.value);
  }
}

// A least-recently-used cache with a time to live and a memory budget (entry count and an estimate of
// bytes). Used in front of the geocoder and elevation backends: a hit never calls the backend.

export interface TtlCacheOptions<V> {
  ttlMs: number;
  maxEntries: number;
  /** budget for the sum of sizeOf(value) */
  maxBytes: number;
  sizeOf: (value: V, key: string) => number;
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
  size: number;
  /** when the entry last moved to the most-recently-used end */
  touchedAt: number;
}

/** Hits re-mark an entry as recently used at most this often: exact LRU order is not worth a Map re-insert per hit. */
const TOUCH_INTERVAL_MS = 1000;

export class TtlCache<V> {
  private readonly map = new Map<string, Entry<V>>();
  private bytes = 0;
  private readonly now: () => number;

  constructor(private readonly opts: TtlCacheOptions<V>) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): V | undefined {
    return this.entry(key)?.value;
  }

  /** The value with its expiry time, for caches layered on this one. */
  entry(key: string): { value: V; expiresAt: number } | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (e.expiresAt <= now) {
      this.remove(key, e);
      return undefined;
    }
    if (now - e.touchedAt >= TOUCH_INTERVAL_MS) {
      // Map iteration order is insertion order: re-inserting marks the entry most recently used.
      e.touchedAt = now;
      this.map.delete(key);
      this.map.set(key, e);
    }
    return e;
  }

  /** Stores `value` until now + ttlMs, or until `expiresAt` when given (never later than now + ttlMs). */
  set(key: string, value: V, expiresAt?: number): void {
    const size = this.opts.sizeOf(value, key);
    if (size > this.opts.maxBytes) return;
    const old = this.map.get(key);
    if (old) this.remove(key, old);
    const now = this.now();
    const latest = now + this.opts.ttlMs;
    this.map.set(key, { value, expiresAt: expiresAt === undefined ? latest : Math.min(expiresAt, latest), size, touchedAt: now });
    this.bytes += size;
    while (this.map.size > this.opts.maxEntries || this.bytes > this.opts.maxBytes) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      this.remove(oldest.value, this.map.get(oldest.value)!);
    }
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  private remove(key: string, e: Entry<V>) {
    this.map.delete(key);
    this.bytes -= e.size;
  }
}

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
}

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
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.remove(key, e);
      return undefined;
    }
    // Map iteration order is insertion order: re-inserting marks the entry most recently used.
    this.map.delete(key);
    this.map.set(key, e);
    return e.value;
  }

  set(key: string, value: V): void {
    const size = this.opts.sizeOf(value, key);
    if (size > this.opts.maxBytes) return;
    const old = this.map.get(key);
    if (old) this.remove(key, old);
    this.map.set(key, { value, expiresAt: this.now() + this.opts.ttlMs, size });
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

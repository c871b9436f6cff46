// Billable calls per key, service group and UTC day, and each key's last-used time. Both sit on the
// hot path, so requests only touch memory: counters are written in one transaction every few seconds
// (and on shutdown), last_used_at at most once a minute per key. The monthly total that quotas are
// checked against is loaded once per key and month and then kept current in memory.
import type { Database } from "bun:sqlite";
import type { Logger } from "../../log";

export const FLUSH_INTERVAL_MS = 10_000;
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);
export const monthOf = (t: number) => new Date(t).toISOString().slice(0, 7);

/** Unix epoch seconds of the first instant of the next UTC month. */
export function nextMonthStartS(t: number): number {
  const d = new Date(t);
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000);
}

export interface Calendar {
  day: string;
  month: string;
  /** Unix epoch seconds when the next UTC month starts (the quota reset) */
  nextMonthS: number;
  from: number;
  to: number;
}

let cached: Calendar = { day: "", month: "", nextMonthS: 0, from: 0, to: -1 };

/** Day, month and quota reset for `now`, computed once per UTC day (formatting dates is slow on the hot path). */
export function calendarOf(now: number): Calendar {
  if (now >= cached.from && now < cached.to) return cached;
  const d = new Date(now);
  const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  cached = { day: dayOf(now), month: monthOf(now), nextMonthS: nextMonthStartS(now), from, to: from + 86_400_000 };
  return cached;
}

/** Calls of one key, UTC day and service group not yet written; requests hold it as their reservation. */
export interface Reservation {
  keyId: number;
  day: string;
  service: string;
  pending: number;
  month: MonthEntry;
}

interface MonthEntry {
  month: string;
  used: number;
  /** service -> today's counter */
  counters: Map<string, Reservation>;
}

export interface QuotaState {
  allowed: boolean;
  used: number;
  limit: number | null;
}

/** Where a worker of a cluster sends its counts instead of the database (the supervisor writes them). */
export type UsageSink = (counts: [keyId: number, day: string, service: string, n: number][], times: [keyId: number, at: number][]) => void;

export function createUsageService(sqlite: Database, log: Logger, opts: { sink?: UsageSink } = {}) {
  /** counters with calls not yet written */
  const dirty = new Set<Reservation>();
  const monthly = new Map<number, MonthEntry>();
  const lastUsed = new Map<number, number>();
  const lastWritten = new Map<number, number>();

  const monthTotal = sqlite.query<{ n: number | null }, [number, string, string]>(
    "SELECT SUM(count) AS n FROM key_usage WHERE key_id = ? AND day >= ? AND day <= ?",
  );
  const upsert = sqlite.query(
    `INSERT INTO key_usage (key_id, day, service, count) SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)
     ON CONFLICT (key_id, day, service) DO UPDATE SET count = max(0, count + excluded.count)`,
  );
  const writeLastUsed = sqlite.query("UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?");

  function monthEntry(keyId: number, month: string): MonthEntry {
    let m = monthly.get(keyId);
    if (!m || m.month !== month) {
      const persisted = monthTotal.get(keyId, `${month}-01`, `${month}-31`)?.n ?? 0;
      let unflushed = 0;
      for (const c of dirty) if (c.keyId === keyId && c.day.startsWith(month)) unflushed += c.pending;
      m = { month, used: persisted + unflushed, counters: new Map() };
      monthly.set(keyId, m);
    }
    return m;
  }

  /**
   * Counts one call now (refund it if the call fails); refused when a monthly quota is used up.
   * Hot path: two Map lookups and an increment, no strings built.
   */
  function reserve(keyId: number, service: string, quota: number | null, now = Date.now()): { state: QuotaState; reservation: Reservation | null } {
    const { day, month } = calendarOf(now);
    const m = monthEntry(keyId, month);
    if (quota !== null && m.used >= quota) return { state: { allowed: false, used: m.used, limit: quota }, reservation: null };
    m.used += 1;
    let c = m.counters.get(service);
    if (!c || c.day !== day) {
      c = { keyId, day, service, pending: 0, month: m };
      m.counters.set(service, c);
    }
    c.pending += 1;
    dirty.add(c);
    return { state: { allowed: true, used: m.used, limit: quota }, reservation: c };
  }

  function refund(r: Reservation): void {
    r.month.used = Math.max(0, r.month.used - 1);
    r.pending -= 1;
    dirty.add(r);
  }

  function touch(keyId: number, now = Date.now()): void {
    lastUsed.set(keyId, now);
  }

  /** Writes pending counters, and last-used times not written in the last minute (all when `force`). */
  function flush(force = false): void {
    const now = Date.now();
    const counts = [...dirty].filter((c) => c.pending !== 0).map((c) => [c, c.pending] as const);
    const times = [...lastUsed].filter(([id]) => force || now - (lastWritten.get(id) ?? 0) >= LAST_USED_WRITE_INTERVAL_MS);
    if (!counts.length && !times.length) {
      dirty.clear();
      return;
    }
    try {
      if (opts.sink)
        opts.sink(
          counts.map(([c, n]) => [c.keyId, c.day, c.service, n]),
          times.map(([id, t]) => [id, t]),
        );
      else
        sqlite.transaction(() => {
          for (const [c, n] of counts) upsert.run(c.keyId, c.day, c.service, n);
          for (const [id, t] of times) writeLastUsed.run(t, id);
        })();
    } catch (err) {
      log.error("usage flush failed; will retry", { error: String(err) });
      return;
    }
    for (const [c, n] of counts) c.pending -= n;
    dirty.clear();
    for (const [id, t] of times) {
      lastWritten.set(id, now);
      if (lastUsed.get(id) === t) lastUsed.delete(id);
    }
  }

  /** Counts `n` calls a worker already admitted (the supervisor of a cluster); written with the next flush. */
  function record(keyId: number, day: string, service: string, n: number): void {
    const m = monthEntry(keyId, day.slice(0, 7));
    m.used = Math.max(0, m.used + n);
    let c = m.counters.get(service);
    if (!c || c.day !== day) {
      c = { keyId, day, service, pending: 0, month: m };
      m.counters.set(service, c);
    }
    c.pending += n;
    dirty.add(c);
  }

  /**
   * Sets a key's monthly total to what the supervisor counted (`counted`, all workers' reported calls)
   * plus this process's calls not yet in it: `unreported` sent but not yet acknowledged, and those
   * still pending here.
   */
  function adoptMonth(keyId: number, month: string, counted: number, unreported: number): void {
    let pending = 0;
    for (const c of dirty) if (c.keyId === keyId && c.day.startsWith(month)) pending += c.pending;
    const m = monthly.get(keyId);
    if (m && m.month === month) m.used = counted + unreported + pending;
    else monthly.set(keyId, { month, used: counted + unreported + pending, counters: new Map() });
  }

  /** Calls this month so far, including those not yet written. */
  function usedThisMonth(keyId: number, now = Date.now()): number {
    return monthEntry(keyId, calendarOf(now).month).used;
  }

  /** The freshest last-used time known to this process (memory beats the database between writes). */
  function lastUsedAt(keyId: number, persisted: number | null): number | null {
    const mem = lastUsed.get(keyId);
    return mem !== undefined && (persisted === null || mem > persisted) ? mem : persisted;
  }

  /** Forget a key's cached monthly total (its quota changed, or it was revoked). */
  function forget(keyId: number): void {
    monthly.delete(keyId);
  }

  return { reserve, refund, touch, flush, record, adoptMonth, usedThisMonth, lastUsedAt, forget };
}

export type UsageService = ReturnType<typeof createUsageService>;

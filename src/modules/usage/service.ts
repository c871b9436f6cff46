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

export interface Reservation {
  keyId: number;
  day: string;
  month: string;
  service: string;
}

export interface QuotaState {
  allowed: boolean;
  used: number;
  limit: number | null;
}

export function createUsageService(sqlite: Database, log: Logger) {
  /** "keyId\tday\tservice" -> calls not yet written */
  const pending = new Map<string, number>();
  const monthly = new Map<number, { month: string; used: number }>();
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

  function monthEntry(keyId: number, month: string) {
    let m = monthly.get(keyId);
    if (!m || m.month !== month) {
      const persisted = monthTotal.get(keyId, `${month}-01`, `${month}-31`)?.n ?? 0;
      let unflushed = 0;
      for (const [k, n] of pending) {
        const [id, day] = k.split("\t");
        if (Number(id) === keyId && day!.startsWith(month)) unflushed += n;
      }
      m = { month, used: persisted + unflushed };
      monthly.set(keyId, m);
    }
    return m;
  }

  const addPending = (r: Reservation, delta: number) => {
    const k = `${r.keyId}\t${r.day}\t${r.service}`;
    pending.set(k, (pending.get(k) ?? 0) + delta);
  };

  /** Counts one call now (refund it if the call fails); refused when a monthly quota is used up. */
  function reserve(keyId: number, service: string, quota: number | null, now = Date.now()): { state: QuotaState; reservation: Reservation | null } {
    const { day, month } = calendarOf(now);
    const m = monthEntry(keyId, month);
    if (quota !== null && m.used >= quota) return { state: { allowed: false, used: m.used, limit: quota }, reservation: null };
    m.used += 1;
    const reservation = { keyId, day, month, service };
    addPending(reservation, 1);
    return { state: { allowed: true, used: m.used, limit: quota }, reservation };
  }

  function refund(r: Reservation): void {
    const m = monthly.get(r.keyId);
    if (m && m.month === r.month) m.used = Math.max(0, m.used - 1);
    addPending(r, -1);
  }

  function touch(keyId: number, now = Date.now()): void {
    lastUsed.set(keyId, now);
  }

  /** Writes pending counters, and last-used times not written in the last minute (all when `force`). */
  function flush(force = false): void {
    const now = Date.now();
    const counts = [...pending].filter(([, n]) => n !== 0);
    const times = [...lastUsed].filter(([id]) => force || now - (lastWritten.get(id) ?? 0) >= LAST_USED_WRITE_INTERVAL_MS);
    if (!counts.length && !times.length) {
      pending.clear();
      return;
    }
    try {
      sqlite.transaction(() => {
        for (const [k, n] of counts) {
          const [id, day, service] = k.split("\t");
          upsert.run(Number(id), day!, service!, n);
        }
        for (const [id, t] of times) writeLastUsed.run(t, id);
      })();
    } catch (err) {
      log.error("usage flush failed; will retry", { error: String(err) });
      return;
    }
    for (const [k, n] of counts) {
      const left = (pending.get(k) ?? 0) - n;
      if (left === 0) pending.delete(k);
      else pending.set(k, left);
    }
    for (const [id, t] of times) {
      lastWritten.set(id, now);
      if (lastUsed.get(id) === t) lastUsed.delete(id);
    }
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

  return { reserve, refund, touch, flush, usedThisMonth, lastUsedAt, forget };
}

export type UsageService = ReturnType<typeof createUsageService>;

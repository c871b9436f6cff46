// Idempotency-Key records (CONTRACT.md): per caller and key, the hash of the request payload and, once
// finished, the stored response. Kept seven days in SQLite, so replays survive restarts.
//   same key + same payload, finished   -> replay the stored response
//   same key + different payload        -> 409 IDEMPOTENCY_CONFLICT
//   same key while the first still runs -> 409 IDEMPOTENCY_IN_PROGRESS (Retry-After: 1)
import { createHash } from "node:crypto";
import type { Database } from "bun:sqlite";
import { BadRequest, Conflict } from "../../errors";
import type { Logger } from "../../log";

export const RETENTION_MS = 7 * 24 * 3600 * 1000;
const CLEANUP_INTERVAL_MS = 3600 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type Begin = { kind: "new" } | { kind: "replay"; status: number; body: string };

/** The header value, checked: 1 to 255 visible ASCII characters. Absent header -> null. */
export function parseIdempotencyKey(raw: string | null): string | null {
  if (raw === null) return null;
  if (!KEY_PATTERN.test(raw)) throw new BadRequest("Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID works well)", { parameter: "Idempotency-Key" });
  return raw;
}

/** Stable hash of a payload: object keys sorted, so formatting and key order do not matter. */
export function payloadHash(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === "object")
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return createHash("sha256").update(JSON.stringify(canonical(value))).digest("hex");
}

/** `housekeeping: false` (a cluster's HTTP workers): no orphan purge at start and no hourly clean-up; the supervisor does both. */
export function createIdempotencyStore(sqlite: Database, log: Logger, opts: { retentionMs?: number; now?: () => number; housekeeping?: boolean } = {}) {
  const retentionMs = opts.retentionMs ?? RETENTION_MS;
  const now = opts.now ?? Date.now;
  const find = sqlite.query<{ request_hash: string; state: string; status: number | null; response_body: string | null; expires_at: number }, [string, string]>(
    "SELECT request_hash, state, status, response_body, expires_at FROM idempotency_records WHERE caller = ? AND key = ?",
  );
  const claim = sqlite.query<unknown, [string, string, string, number, number, number]>(
    `INSERT INTO idempotency_records (caller, key, request_hash, state, created_at, expires_at, owner) VALUES (?, ?, ?, 'in_progress', ?, ?, ?)
     ON CONFLICT (caller, key) DO UPDATE SET request_hash = excluded.request_hash, state = 'in_progress', status = NULL, response_body = NULL,
       created_at = excluded.created_at, expires_at = excluded.expires_at, owner = excluded.owner
     WHERE idempotency_records.expires_at <= excluded.created_at`,
  );
  const finish = sqlite.query<unknown, [number, string, number, string, string]>(
    "UPDATE idempotency_records SET state = 'done', status = ?, response_body = ?, expires_at = ?, owner = NULL WHERE caller = ? AND key = ? AND state = 'in_progress'",
  );
  const release = sqlite.query<unknown, [string, string]>("DELETE FROM idempotency_records WHERE caller = ? AND key = ? AND state = 'in_progress'");
  const purgeExpired = sqlite.query<unknown, [number]>("DELETE FROM idempotency_records WHERE expires_at <= ?");
  // A record still "in progress" when this process starts belongs to a process that died mid-request;
  // it will never finish, so it must not block its key for seven days.
  const purgeOrphans = sqlite.query("DELETE FROM idempotency_records WHERE state = 'in_progress'");

  /** Claims the key for this request, or says why not (replay or 409). Synchronous, hence atomic. */
  function begin(caller: string, key: string, hash: string): Begin {
    const t = now();
    const inserted = claim.run(caller, key, hash, t, t + retentionMs, process.pid);
    if (inserted.changes === 1) return { kind: "new" };
    const row = find.get(caller, key);
    if (!row) throw new Conflict("A request with this Idempotency-Key is still being processed; retry shortly", "IDEMPOTENCY_IN_PROGRESS", { "retry-after": "1" });
    if (row.request_hash !== hash)
      throw new Conflict("This Idempotency-Key was already used with a different payload; use a new key for a new request", "IDEMPOTENCY_CONFLICT");
    if (row.state === "in_progress")
      throw new Conflict("A request with this Idempotency-Key is still being processed; retry shortly", "IDEMPOTENCY_IN_PROGRESS", { "retry-after": "1" });
    return { kind: "replay", status: row.status ?? 200, body: row.response_body ?? "" };
  }

  function complete(caller: string, key: string, status: number, body: string): void {
    finish.run(status, body, now() + retentionMs, caller, key);
  }

  /** Forgets an unfinished claim so the same key can be retried (the request failed before finishing). */
  function abandon(caller: string, key: string): void {
    release.run(caller, key);
  }

  function cleanup(): number {
    return purgeExpired.run(now()).changes;
  }

  if (opts.housekeeping === false) return { begin, complete, abandon, cleanup, stop: () => {} };
  purgeOrphans.run();
  cleanup();
  const timer = setInterval(() => {
    try {
      const n = cleanup();
      if (n) log.debug("idempotency records expired", { removed: n });
    } catch (err) {
      log.warn("idempotency cleanup failed", { error: String(err) });
    }
  }, CLEANUP_INTERVAL_MS);
  timer.unref?.();

  return { begin, complete, abandon, cleanup, stop: () => clearInterval(timer) };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;

/**
 * Frees the claims a process left unfinished when it died (a cluster's supervisor calls this when a
 * worker exits), so their keys can be retried at once instead of answering 409 IN_PROGRESS for a week.
 */
export function releaseClaimsOf(sqlite: Database, pid: number): number {
  return sqlite.query("DELETE FROM idempotency_records WHERE state = 'in_progress' AND owner = ?").run(pid).changes;
}

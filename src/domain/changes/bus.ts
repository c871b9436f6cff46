// The one change bus. A write publishes its change here: the row goes to change_log in the write's own
// SQLite transaction (`commit`, or `publish` inside the caller's transaction), so a crash can leave
// neither a write without its change nor a change without its write; this process's listeners hear it
// at once. Writes by other processes (the CLI, other workers) reach the listeners through one watcher:
// SQLite's data_version moves only when another connection commits, so a tick costs one pragma unless
// something changed, and then the new change_log rows are read and replayed (rows this process wrote are
// skipped).
import type { Database } from "bun:sqlite";
import type { Logger } from "../../log";
import type { Change, ChangeListener } from "./types";

export const WATCH_INTERVAL_MS = 300;
/** change_log rows older than this are pruned; a watcher reads new rows within a tick or two. */
export const CHANGE_LOG_RETENTION_MS = 60 * 60 * 1000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;

export interface ChangeBusOptions {
  intervalMs?: number;
  pruneEveryMs?: number;
}

export function createChangeBus(sqlite: Database, log: Logger, opts: ChangeBusOptions = {}) {
  const origin = `${process.pid}:${crypto.randomUUID()}`;
  const insert = sqlite.query<unknown, [string, string, number]>("INSERT INTO change_log (origin, change, created_at) VALUES (?, ?, ?)");
  const after = sqlite.query<{ id: number; origin: string; change: string }, [number]>("SELECT id, origin, change FROM change_log WHERE id > ? ORDER BY id");
  const lastId = sqlite.query<{ id: number | null }, []>("SELECT MAX(id) AS id FROM change_log");
  const dataVersion = sqlite.query<{ data_version: number }, []>("PRAGMA data_version");
  const prune = sqlite.query<unknown, [number]>("DELETE FROM change_log WHERE created_at < ?");

  const listeners = new Set<ChangeListener>();
  let seenId = lastId.get()?.id ?? 0;
  let seenVersion = dataVersion.get()!.data_version;
  let timer: ReturnType<typeof setInterval> | null = null;
  let prunedAt = Date.now();

  function emit(change: Change): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (err) {
        log.error("change listener failed", { kind: change.kind, error: String(err) });
      }
    }
  }

  /** Reads and replays other processes' changes when the database moved; safe to call any time. */
  function poll(): void {
    const version = dataVersion.get()!.data_version;
    if (version !== seenVersion) {
      seenVersion = version;
      for (const row of after.all(seenId)) {
        seenId = row.id;
        if (row.origin !== origin) emit(JSON.parse(row.change) as Change);
      }
    }
    const now = Date.now();
    if (now - prunedAt >= (opts.pruneEveryMs ?? PRUNE_EVERY_MS)) {
      prunedAt = now;
      prune.run(now - CHANGE_LOG_RETENTION_MS);
    }
  }

  function tick(): void {
    try {
      poll();
    } catch (err) {
      // A busy or closing database: the next tick tries again.
      log.warn("change watcher tick failed", { error: String(err) });
    }
  }

  return {
    /**
     * Runs `write` and records `change` in one SQLite transaction (joining an outer one as a savepoint);
     * this process's listeners hear the change once it is written. `write` must be synchronous.
     */
    commit<T>(change: Change, write: () => T): T {
      const result = sqlite.transaction(() => {
        const value = write();
        insert.run(origin, JSON.stringify(change), Date.now());
        return value;
      })();
      emit(change);
      return result;
    },

    /** Records a change (call it inside the write's transaction) and tells this process's listeners. */
    publish(change: Change): void {
      insert.run(origin, JSON.stringify(change), Date.now());
      emit(change);
    },

    /** Listens to every change, this process's and (through the watcher, started here) others'. */
    on(listener: ChangeListener): () => void {
      listeners.add(listener);
      if (!timer) {
        timer = setInterval(tick, opts.intervalMs ?? WATCH_INTERVAL_MS);
        timer.unref?.();
      }
      return () => void listeners.delete(listener);
    },

    poll,

    close(): void {
      if (timer) clearInterval(timer);
      timer = null;
      listeners.clear();
    },
  };
}

export type ChangeBus = ReturnType<typeof createChangeBus>;

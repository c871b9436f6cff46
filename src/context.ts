// What every module gets: the frozen config, the database, the logger and a place to register work
// that must finish before shutdown (flushing batched counters and the like). Built once in main.ts
// (or by a test helper) and passed to createApp.
import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import { closeDatabase, type Db } from "./db/client";
import type { Logger } from "./log";
import { VERSION } from "./build-info";

export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  sqlite: Database;
  log: Logger;
  startedAt: number;
  version: string;
  /** run in order on shutdown, after the server stopped accepting requests and before the DB closes */
  onShutdown(hook: () => void | Promise<void>): void;
  shutdown(): Promise<void>;
  /**
   * Aborted when a stopping server's requests have run out of time to finish (cluster/drain.ts): long
   * requests still in flight (an upload streaming in) answer 503 with Retry-After then, rather than have
   * their connection cut.
   */
  overdue: AbortSignal;
  /** Aborts `overdue`. */
  endRequests(): void;
}

export function createContext(config: Readonly<Config>, handle: { db: Db; sqlite: Database }, log: Logger): AppContext {
  const hooks: (() => void | Promise<void>)[] = [];
  let closed = false;
  const overdue = new AbortController();
  return {
    overdue: overdue.signal,
    endRequests: () => overdue.abort(),
    config,
    db: handle.db,
    sqlite: handle.sqlite,
    log,
    startedAt: Date.now(),
    version: VERSION,
    onShutdown: (hook) => void hooks.push(hook),
    async shutdown() {
      if (closed) return;
      closed = true;
      for (const hook of hooks) {
        try {
          await hook();
        } catch (err) {
          log.error("shutdown hook failed", { error: String(err) });
        }
      }
      closeDatabase(handle.sqlite);
      log.flush();
    },
  };
}

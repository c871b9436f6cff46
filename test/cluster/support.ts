// Talking to a multi-worker binary. SO_REUSEPORT spreads connections, not requests, so every call
// here opens a fresh connection; WORKER_HEADER=true makes each answer name the worker that served it.
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { createContext, type AppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { silentLogger } from "../../src/log";

export interface Answer {
  worker: number;
  status: number;
  headers: Headers;
  body: string;
}

/** One request on its own connection. */
export async function onFreshConnection(baseUrl: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const headers = new Headers(init.headers);
  headers.set("connection", "close");
  const res = await fetch(baseUrl + path, { ...init, headers, keepalive: false });
  const body = await res.text();
  return { worker: Number(res.headers.get("x-mapstead-worker")), status: res.status, headers: res.headers, body };
}

/**
 * Asks until every one of `workers` workers gave an answer that `ok` accepts, or `withinMs` passed.
 * Returns, per worker, the milliseconds it took until its first accepted answer (missing = never).
 */
export async function untilEveryWorker(
  baseUrl: string,
  workers: number,
  path: string,
  init: RequestInit,
  ok: (a: Answer) => boolean,
  withinMs: number,
): Promise<Map<number, number>> {
  const started = Date.now();
  const done = new Map<number, number>();
  while (done.size < workers && Date.now() - started < withinMs) {
    const a = await onFreshConnection(baseUrl, path, init);
    if (ok(a) && !done.has(a.worker)) done.set(a.worker, Date.now() - started);
  }
  return done;
}

/** The binary's database, opened from the test like another process (the CLI) would. */
export function openDataDir(dataDir: string): AppContext {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "error", WORKERS: "1" });
  const handle = openDatabase(config.dataDir);
  migrate(handle.sqlite);
  return createContext(config, handle, silentLogger);
}

/** Billable calls written for one key (all days and services). */
export function writtenUsage(dataDir: string, keyId: number): number {
  const db = new Database(join(dataDir, "mapstead.db"), { readonly: true });
  try {
    return (db.query("SELECT coalesce(SUM(count), 0) AS n FROM key_usage WHERE key_id = ?").get(keyId) as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Process ids of the direct children of `pid` (Linux /proc): a supervisor's workers. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

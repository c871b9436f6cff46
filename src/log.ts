// JSON lines on stdout. Never log secrets: callers pass paths without query strings and no headers.
// Lines are batched into one write per tick (or per 64 KiB): a write per request would cost a
// sizeable share of a small request's time. Warnings and errors are written at once, and
// `flush()` runs on shutdown and exit so nothing buffered is lost.
import { writeSync } from "node:fs";
import type { LogLevel } from "./config";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** true when lines of this level are written */
  enabled(level: LogLevel): boolean;
  /**
   * What closes a line the caller serializes itself: `}`, or the base fields and `}`. Hot paths (the
   * access log) end their JSON with it, so the line is built once instead of spliced.
   */
  readonly lineEnd: string;
  /** writes a line the caller already serialized, closed with `lineEnd` (hot paths: the access log) */
  writeLine(level: LogLevel, json: string): void;
  /** writes out anything buffered */
  flush(): void;
}

let lastMs = 0;
let lastIso = "";

/** The current time as ISO 8601; formatted once per millisecond however many lines share it. */
export function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

const FLUSH_BYTES = 64 * 1024;
const FLUSH_AFTER_MS = 20;

/** Batches lines for a file descriptor; synchronous writes keep ordering simple and survive exit. */
export function batchedWriter(fd: number): { write(line: string, urgent: boolean): void; flush(): void } {
  let pending: string[] = [];
  let pendingBytes = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const chunk = pending.join("");
    pending = [];
    pendingBytes = 0;
    try {
      writeSync(fd, chunk);
    } catch {
      // stdout closed (e.g. the reading end went away): logging must never take the server down.
    }
  };
  process.once("exit", flush);
  return {
    write(line, urgent) {
      pending.push(line, "\n");
      pendingBytes += line.length + 1;
      if (urgent || pendingBytes >= FLUSH_BYTES) flush();
      else timer ??= setTimeout(flush, FLUSH_AFTER_MS);
    },
    flush,
  };
}

let stdoutWriter: ReturnType<typeof batchedWriter> | null = null;

/**
 * `base` fields go on every line (a cluster's HTTP workers add `worker`, so each access-log line says
 * which worker answered).
 */
export function createLogger(level: LogLevel, write?: (line: string) => void, base?: Record<string, string | number>): Logger {
  const min = ORDER[level];
  const out = write ? { write: (l: string) => write(l), flush: () => {} } : (stdoutWriter ??= batchedWriter(1));
  // Lines written pre-serialized end with the base fields in place of their closing brace.
  const lineEnd = base && Object.keys(base).length ? `,${JSON.stringify(base).slice(1)}` : "}";
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    out.write(JSON.stringify({ time: isoNow(), level: lvl, msg, ...base, ...fields }), ORDER[lvl] >= ORDER.warn);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    enabled: (lvl) => ORDER[lvl] >= min,
    lineEnd,
    writeLine: (lvl, json) => {
      if (ORDER[lvl] >= min) out.write(json, ORDER[lvl] >= ORDER.warn);
    },
    flush: () => out.flush(),
  };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = createLogger("error", () => {});

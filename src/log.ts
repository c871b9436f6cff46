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
  /** writes out anything buffered */
  flush(): void;
}

const FLUSH_BYTES = 64 * 1024;
const FLUSH_AFTER_MS = 20;

/** Batches lines for a file descriptor; synchronous writes keep ordering simple and survive exit. */
export function batchedWriter(fd: number): { write(line: string, urgent: boolean): void; flush(): void } {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending) return;
    const chunk = pending;
    pending = "";
    try {
      writeSync(fd, chunk);
    } catch {
      // stdout closed (e.g. the reading end went away): logging must never take the server down.
    }
  };
  process.once("exit", flush);
  return {
    write(line, urgent) {
      pending += line + "\n";
      if (urgent || pending.length >= FLUSH_BYTES) flush();
      else timer ??= setTimeout(flush, FLUSH_AFTER_MS);
    },
    flush,
  };
}

let stdoutWriter: ReturnType<typeof batchedWriter> | null = null;

export function createLogger(level: LogLevel, write?: (line: string) => void): Logger {
  const min = ORDER[level];
  const out = write ? { write: (l: string) => write(l), flush: () => {} } : (stdoutWriter ??= batchedWriter(1));
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    out.write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }), ORDER[lvl] >= ORDER.warn);
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
    flush: () => out.flush(),
  };
}

/** A logger that drops everything, for tests that do not look at logs. */
export const silentLogger: Logger = createLogger("error", () => {});

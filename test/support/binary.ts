// The compiled `mapstead` executable for smoke tests: built once per source change into
// .tmp/bin/mapstead (a lock file keeps parallel test processes from building it twice at once), then
// started from a temp cwd with a temp DATA_DIR, the way an operator runs it.
import { closeSync, mkdirSync, openSync, readdirSync, rmSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { compile } from "../../scripts/build";
import { tempDir } from "./app";

const ROOT = resolve(import.meta.dir, "..", "..");
const BIN_DIR = join(ROOT, ".tmp", "bin");
export const BINARY = join(BIN_DIR, "mapstead");
const LOCK = join(BIN_DIR, "build.lock");
const SOURCES = ["src", "drizzle", "package.json", "bun.lock", "scripts/build.ts"];
const STALE_LOCK_MS = 180_000;

function newestMtime(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function isFresh(): boolean {
  const bin = statSync(BINARY, { throwIfNoEntry: false });
  if (!bin) return false;
  return SOURCES.every((s) => newestMtime(join(ROOT, s)) <= bin.mtimeMs);
}

function tryLock(): boolean {
  try {
    const fd = openSync(LOCK, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch {
    const s = statSync(LOCK, { throwIfNoEntry: false });
    if (s && Date.now() - s.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { force: true });
    return false;
  }
}

let ensured: Promise<string> | null = null;

/** Path of an up-to-date host binary, compiling it when a source is newer than the last build. */
export function ensureBinary(): Promise<string> {
  ensured ??= (async () => {
    mkdirSync(BIN_DIR, { recursive: true });
    for (;;) {
      if (isFresh()) return BINARY;
      if (tryLock()) break;
      await Bun.sleep(200);
    }
    try {
      if (isFresh()) return BINARY;
      const r = compile({ outfile: BINARY });
      if (!r.ok) throw new Error(`compiling the binary failed:\n${r.output}`);
      return BINARY;
    } finally {
      try {
        unlinkSync(LOCK);
      } catch {}
    }
  })();
  return ensured;
}

/** The environment an operator would give it: nothing inherited but PATH, no colour. */
export function binaryEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tempDir("mapstead-home-"), NO_COLOR: "1", ...extra };
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a CLI command to completion from a temp cwd. */
export async function runBinary(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const bin = await ensureBinary();
  const proc = Bun.spawn([bin, ...args], { cwd: opts.cwd ?? tempDir("mapstead-cwd-"), env: binaryEnv(opts.env), stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.timeoutMs ?? 30_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { exitCode, stdout, stderr };
}

export interface RunningBinary {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  pid: number;
  port: number;
  baseUrl: string;
  dataDir: string;
  cwd: string;
  /** every stdout line so far */
  lines: string[];
  stderr(): string;
  /** JSON log lines so far, parsed */
  logs(): Record<string, unknown>[];
  waitForLog(pred: (entry: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** sends the signal and waits for the exit code */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/**
 * Starts `mapstead serve` on a free loopback port (PORT=0, read back from the "listening" log line)
 * from a temp cwd, and resolves once it is listening. Rejects with its output if it exits first.
 */
export async function startBinary(opts: { env?: Record<string, string>; dataDir?: string; args?: string[]; timeoutMs?: number } = {}): Promise<RunningBinary> {
  const bin = await ensureBinary();
  const dataDir = opts.dataDir ?? join(tempDir("mapstead-bin-"), "data");
  const cwd = tempDir("mapstead-cwd-");
  const proc = Bun.spawn([bin, "serve", ...(opts.args ?? [])], {
    cwd,
    env: binaryEnv({ HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir, ...opts.env }),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const lines: string[] = [];
  let stderrText = "";
  const waiters: (() => void)[] = [];
  const notify = () => waiters.splice(0).forEach((w) => w());
  void (async () => {
    const decoder = new TextDecoder();
    let buf = "";
    const reader = proc.stdout.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        lines.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
      }
      notify();
    }
    if (buf) lines.push(buf);
    notify();
  })();
  void (async () => {
    stderrText = await new Response(proc.stderr).text();
  })();
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
    notify();
  });

  const logs = () =>
    lines.flatMap((l) => {
      if (!l.startsWith("{")) return [];
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  const waitForLog = async (pred: (e: Record<string, unknown>) => boolean, timeoutMs = opts.timeoutMs ?? 20_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = logs().find(pred);
      if (hit) return hit;
      if (exited) {
        await Bun.sleep(50);
        const late = logs().find(pred);
        if (late) return late;
        throw new Error(`mapstead exited (${proc.exitCode}) before the expected log line.\nstdout:\n${lines.join("\n")}\nstderr:\n${stderrText}`);
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for a log line.\nstdout:\n${lines.join("\n")}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), Bun.sleep(100)]);
    }
  };

  let listening: Record<string, unknown>;
  try {
    listening = await waitForLog((e) => e.msg === "listening");
  } catch (err) {
    proc.kill("SIGKILL");
    throw err;
  }
  const port = Number(listening.port);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    proc,
    pid: proc.pid,
    port,
    baseUrl,
    dataDir,
    cwd,
    lines,
    stderr: () => stderrText,
    logs,
    waitForLog,
    fetch: (path, init) => fetch(baseUrl + path, init),
    async stop(signal = "SIGTERM") {
      if (!exited) proc.kill(signal);
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}


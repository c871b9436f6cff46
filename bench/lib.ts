// Shared bench tools. Every target is a ratio against a baseline measured in the same run on the same
// machine, so the figures mean something on a busy 2-core box; nothing here asserts, it prints.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tempDir } from "../test/support/temp";
import { join } from "node:path";
import type { Page } from "playwright-core";

export interface WrkResult {
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  /** CPU time (user + system) the server's process spent per request during the run, in microseconds */
  cpuUsPerRequest: number;
  /**
   * The share of this machine's CPU time the hypervisor gave to other guests during the run (steal, in
   * percent): a shared VM's rounds can differ by a third in speed with nothing changed here, and a
   * round with high steal says why its figures are off.
   */
  stealPct: number;
}

export interface WrkOptions {
  connections?: number;
  threads?: number;
  durationS?: number;
  headers?: Record<string, string>;
  /** paths (with leading /) to pick from at random on every request */
  paths?: string[];
  /** CPU list for taskset (e.g. "2-7"): keeps wrk off the cores of the server it measures */
  pin?: string | null;
  /** the pid of the server's process when it is not this one (its CPU time is read from /proc) */
  serverPid?: number;
  /**
   * A fixed offered rate in requests per second (what wrk2's -R does): requests go out on a schedule,
   * whatever the server answers, so servers of different speeds are timed under the very same load.
   * (Waiting a fixed time after each answer, wrk's plain `delay()`, offers more to the faster server.)
   * The rate is per wrk thread's share of it; a server that falls behind gets no burst to catch up.
   */
  ratePerS?: number;
}

/**
 * CPU time (user + system) of this process, or of another one by pid with every process it started
 * (`mapstead serve` runs its HTTP workers as child processes), in microseconds.
 */
export function cpuMicros(pid?: number): number {
  if (pid === undefined) {
    const c = process.cpuUsage();
    return c.user + c.system;
  }
  let micros = 0;
  try {
    // /proc/PID/stat: utime and stime are fields 14 and 15, in clock ticks (100 per second on Linux),
    // counted after the command name (which may hold spaces, hence the split at its closing parenthesis).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    micros += (Number(fields[11]) + Number(fields[12])) * 10_000;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean)) micros += cpuMicros(Number(child));
  } catch {
    // The process (or one of its children) has just exited.
  }
  return micros;
}

/** The machine's CPU time counters (/proc/stat's first line, in ticks): [steal, total]. */
function cpuTicks(): [number, number] {
  try {
    const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return [fields[7] ?? 0, fields.reduce((a, b) => a + b, 0)];
  } catch {
    return [0, 0]; // not Linux: no steal figure
  }
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "ms" ? n : m[2] === "s" ? n * 1000 : n * 60_000;
}

/**
 * wrk's `delay()` for a fixed rate: each request takes the next slot of a schedule `1000 / rate` ms
 * apart (the clock read through LuaJIT's FFI, which wrk ships). wrk waits whole milliseconds, so the
 * slots within one millisecond go out together at its start: the same bursts for every server timed.
 */
function scheduleLua(ratePerS: number): string {
  return `local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } mapstead_timespec;
int clock_gettime(int clock, mapstead_timespec *tp);
]]
local ts = ffi.new("mapstead_timespec")
local function nowMs()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end
local interval = ${1000 / ratePerS}
local nextAt = 0
delay = function()
  local now = nowMs()
  if nextAt < now then nextAt = now end
  local wait = nextAt - now
  nextAt = nextAt + interval
  return wait
end
`;
}

/** Runs wrk against a URL (or random paths under its origin) and parses its --latency report. */
export async function wrk(url: string, opts: WrkOptions = {}): Promise<WrkResult> {
  if (!Bun.which("wrk")) throw new Error("wrk is not installed: apt-get install -y wrk");
  const args = [...(opts.pin ? ["taskset", "-c", opts.pin] : []), "wrk", "--latency", `-t${opts.threads ?? 1}`, `-c${opts.connections ?? 32}`, `-d${opts.durationS ?? 5}s`];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  let lua = "";
  if (opts.paths?.length) {
    const list = opts.paths.map((p) => JSON.stringify(p)).join(",\n");
    lua += `local paths = {\n${list}\n}\nmath.randomseed(42)\nrequest = function()\n  return wrk.format(nil, paths[math.random(#paths)])\nend\n`;
  }
  if (opts.ratePerS) lua += scheduleLua(opts.ratePerS / (opts.threads ?? 1));
  if (lua) {
    const script = join(tempDir("mapstead-wrk-"), "script.lua");
    writeFileSync(script, lua);
    args.push("-s", script);
  }
  args.push(url);
  // Every run starts from a collected heap. The servers a bench compares mostly share its process, and
  // without this the garbage one run leaves (the bare tile server copies every tile out of SQLite) was
  // collected during the next server's run: full collections fell into the app's tile runs 13 times
  // against 8 in the bare server's, in three runs of 3-4 rounds each (BUN_JSC_logGC=1), and their pauses
  // into the app's p99. With it, 1 against 2.
  Bun.gc(true);
  const cpuBefore = cpuMicros(opts.serverPid);
  const [stealBefore, totalBefore] = cpuTicks();
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const cpuUs = cpuMicros(opts.serverPid) - cpuBefore;
  const [stealAfter, totalAfter] = cpuTicks();
  const stealPct = totalAfter > totalBefore ? (100 * (stealAfter - stealBefore)) / (totalAfter - totalBefore) : 0;
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const pct = (p: string) => toMs(new RegExp(`\\s${p}%\\s+(\\S+)`).exec(out)?.[1] ?? "");
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const se = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = se ? se.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, p50Ms: pct("50"), p90Ms: pct("90"), p99Ms: pct("99"), requests, non2xx, socketErrors, cpuUsPerRequest: requests ? cpuUs / requests : NaN, stealPct };
}

/** A bare Bun.serve answering one constant response: the "nothing but HTTP" baseline. */
/**
 * A bare server answering `body` with `headers`; with `readsRequestId` it also reads the request's
 * X-Request-Id first, the least a server that echoes request ids does: Bun builds a request's headers
 * only when they are read (1.2-1.5 us of a ~11 us answer on the development machine), and a bare
 * constant server never reads them.
 */
export function bareConstantServer(body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string> = { "content-type": "application/json" }, opts: { readsRequestId?: boolean } = {}) {
  const fetch = opts.readsRequestId
    ? (req: Request) => new Response(body, { headers: { ...headers, "x-request-id": req.headers.get("x-request-id") ?? "bare" } })
    : () => new Response(body, { headers });
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

/**
 * The same bare constant response served as `mapstead serve` serves with WORKERS above 1: `processes`
 * Bun processes sharing one port (SO_REUSEPORT), started under one shell so that `cpuMicros(pid)`
 * counts them all. The like-for-like baseline for the binary, whose HTTP workers are processes too.
 */
export async function bareConstantProcesses(body: string, headers: Record<string, string>, processes: number) {
  // A free port, as test/support/app's freePort() finds one (not imported: it would load the whole app
  // into every bench's process).
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  const script = join(tempDir("mapstead-bare-"), "bare.ts");
  writeFileSync(
    script,
    `Bun.serve({ hostname: "127.0.0.1", port: ${port}, reusePort: true, fetch: () => new Response(${JSON.stringify(body)}, { headers: ${JSON.stringify(headers)} }) });\nconsole.log("ready");\n`,
  );
  const bun = JSON.stringify(process.execPath);
  const shell = Bun.spawn(["sh", "-c", `${Array(processes).fill(`${bun} ${JSON.stringify(script)} &`).join(" ")} wait`], { stdout: "pipe", stderr: "inherit" });
  // Every process says when it listens: connections are spread only over those that do.
  const reader = shell.stdout.getReader();
  let said = "";
  while ((said.match(/ready/g) ?? []).length < processes) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the bare server processes exited before listening");
    said += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    url: `http://127.0.0.1:${port}`,
    pid: shell.pid,
    async stop() {
      // The shell's children first (the shell waits for them), then the shell.
      Bun.spawnSync(["pkill", "-P", String(shell.pid)]);
      shell.kill();
      await shell.exited;
    },
  };
}

/**
 * The headers of a real answer (request id, CORS, security headers included; Date and Content-Length
 * are Bun's own), for a bare server that sends the very same answer: the ratio against it is the cost
 * of our code alone, apart from the bytes the conventions add to every answer.
 */
export function headersOf(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "date" && name !== "content-length") headers[name] = value;
  });
  return headers;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** e.g. ">= 0.7" or "< 300" */
  target?: string;
}

const figures: Figure[] = [];

function meets(value: number, target?: string): string {
  if (!target) return "";
  const m = /^(>=|<=|<|>)\s*([\d.]+)/.exec(target);
  if (!m) return "";
  const t = Number(m[2]);
  const ok = m[1] === ">=" ? value >= t : m[1] === "<=" ? value <= t : m[1] === "<" ? value < t : value > t;
  return ok ? "meets" : "MISSES";
}

/** Prints one figure as a line `bench: name = value unit (target ..., meets|MISSES)`. */
export function report(name: string, value: number, unit: string, target?: string): void {
  figures.push({ name, value, unit, target });
  const shown = Number.isFinite(value) ? (Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(value < 1 ? 3 : 2)) : String(value);
  console.log(`bench: ${name} = ${shown} ${unit}${target ? `  (target ${target}: ${meets(value, target)})` : ""}`);
}

export function wrkLine(label: string, r: WrkResult): void {
  console.log(`  ${label}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms, server CPU ${r.cpuUsPerRequest.toFixed(1)} us/request${r.stealPct >= 0.5 ? `, ${r.stealPct.toFixed(1)}% stolen by other guests` : ""}${r.non2xx ? `, ${r.non2xx} non-2xx` : ""}${r.socketErrors ? `, ${r.socketErrors} socket errors` : ""}`);
}

/** The load average (1, 5, 15 min) for the record: wall-clock figures on a busy 2-core machine mean little without it. */
export function loadLine(when: string): void {
  const avg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`  load average ${when}: ${avg} (${navigator.hardwareConcurrency} cores)`);
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** Short benches for CI smoke runs: BENCH_QUICK=1 shortens every wrk run. */
export const QUICK = process.env.BENCH_QUICK === "1";
export const DURATION_S = QUICK ? 2 : 5;

export type Capture = "screenshot" | "dataUrl";

/**
 * MapLibre in a warm page (test/support/browser.ts openMap): jumpTo the view, wait for idle, PNG bytes
 * into this process by element screenshot or canvas.toDataURL; the milliseconds it took.
 */
export async function chromiumImage(page: Page, v: { lon: number; lat: number; zoom: number }, capture: Capture): Promise<number> {
  const started = performance.now();
  await page.evaluate(
    (view) =>
      new Promise<void>((resolve) => {
        const m = (window as any).map;
        m.once("idle", () => resolve());
        m.jumpTo({ center: [view.lon, view.lat], zoom: view.zoom });
      }),
    v,
  );
  const png =
    capture === "screenshot"
      ? await page.locator("#map").screenshot({ type: "png" })
      : Buffer.from((await page.evaluate(() => (window as any).map.getCanvas().toDataURL("image/png") as string)).split(",")[1]!, "base64");
  if (png.length < 1000) throw new Error("chromium: empty image");
  return performance.now() - started;
}

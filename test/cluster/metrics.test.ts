// /metrics of the compiled binary with WORKERS=2: one scrape, whichever worker answers it, gives the
// whole server's request counts (summed by the supervisor, so they never go back, not even when a
// worker is replaced) and the memory of every process, each labelled.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureBinary, startBinary, type RunningBinary } from "../support/binary";
import { childrenOf, onFreshConnection, type Answer } from "./support";

const WORKERS = 2;
let bin: RunningBinary;

beforeAll(async () => {
  await ensureBinary();
  bin = await startBinary({ env: { WORKERS: String(WORKERS), WORKER_HEADER: "true" } });
}, 180_000);
afterAll(async () => {
  await bin?.stop("SIGKILL");
});

const workersOf = (answers: Answer[]) => new Set(answers.map((a) => a.worker));
const scrape = () => onFreshConnection(bin.baseUrl, "/metrics");

/** The sum of a metric's samples whose labels contain `labels` (`group="tiles"`). */
function total(body: string, name: string, labels: string): number {
  let n = 0;
  for (const line of body.split("\n")) if (line.startsWith(`${name}{`) && line.includes(labels)) n += Number(line.slice(line.lastIndexOf(" ") + 1));
  return n;
}

const tileRequests = (body: string) => total(body, "mapstead_http_requests_total", 'group="tiles"');

/** process label -> resident bytes */
function memory(body: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of body.matchAll(/^mapstead_process_resident_bytes\{process="([^"]+)"\} (\d+)$/gm)) out.set(m[1]!, Number(m[2]));
  return out;
}

/** Scrapes until the tile requests reach `want` (each worker reports its counts every 0.1 s). */
async function scrapeUntilTiles(want: number): Promise<string> {
  let body = "";
  for (let i = 0; i < 100 && tileRequests(body) < want; i++) {
    if (i) await Bun.sleep(50);
    body = (await scrape()).body;
  }
  return body;
}

/** Scrapes until both workers answered and at least `min` scrapes were made. */
async function scrapesFromEveryWorker(min: number): Promise<Answer[]> {
  const out: Answer[] = [];
  while ((out.length < min || workersOf(out).size < WORKERS) && out.length < 100) out.push(await scrape());
  return out;
}

test("every scrape, from either worker, counts the requests of both", async () => {
  const calls: Answer[] = [];
  for (let i = 0; i < 30; i++) calls.push(await onFreshConnection(bin.baseUrl, "/tiles/v1/acme/nothing.json"));
  expect(calls.every((a) => a.status === 404)).toBe(true);
  expect(workersOf(calls).size).toBe(WORKERS);

  expect(tileRequests(await scrapeUntilTiles(30))).toBe(30);
  const scrapes = await scrapesFromEveryWorker(6);
  expect(workersOf(scrapes).size).toBe(WORKERS);
  for (const s of scrapes) {
    expect(s.status).toBe(200);
    expect(tileRequests(s.body)).toBe(30);
    expect(s.body).toContain('mapstead_http_requests_total{group="tiles",method="GET",status="4xx"} 30');
    expect(s.body).toContain('mapstead_http_request_duration_seconds_count{group="tiles"} 30');
    // One memory sample per process, each labelled: the supervisor (which runs the processing jobs) too.
    const mem = memory(s.body);
    expect([...mem.keys()]).toEqual(["supervisor", "worker-1", "worker-2"]);
    for (const bytes of mem.values()) expect(bytes).toBeGreaterThan(1_000_000);
    expect(s.body).toContain("mapstead_jobs_queued 0");
  }
}, 60_000);

test("a worker killed and replaced takes none of the server's counts with it", async () => {
  const before = tileRequests(await scrapeUntilTiles(30));
  expect(before).toBe(30);
  const [victim] = childrenOf(bin.pid);
  process.kill(victim!, "SIGKILL");
  await bin.waitForLog((e) => e.msg === "worker exited; restarting" && e.code === 137, 10_000);
  // Until the replacement listens, the survivor answers; then both do again.
  let answers: Answer[] = [];
  // (A connection the kernel queued on the killed worker's socket is reset: not a request.)
  for (let i = 0; i < 300 && workersOf(answers).size < WORKERS; i++) {
    const a = await onFreshConnection(bin.baseUrl, "/tiles/v1/acme/nothing.json").catch(() => null);
    if (a) answers.push(a);
    await Bun.sleep(50);
  }
  expect(workersOf(answers).size).toBe(WORKERS);
  const want = before + answers.length;
  expect(tileRequests(await scrapeUntilTiles(want))).toBe(want);
  for (const s of await scrapesFromEveryWorker(4)) {
    expect(tileRequests(s.body)).toBe(want);
    expect([...memory(s.body).keys()]).toEqual(["supervisor", "worker-1", "worker-2"]);
  }
}, 60_000);

test("a worker whose supervisor does not answer says so (503) rather than showing its own counts alone", async () => {
  process.kill(bin.pid, "SIGSTOP");
  let stalled: Answer;
  try {
    stalled = await scrape();
  } finally {
    process.kill(bin.pid, "SIGCONT");
  }
  expect(stalled.status).toBe(503);
  expect(JSON.parse(stalled.body).error.code).toBe("METRICS_UNAVAILABLE");
  // Once it runs again, scrapes answer again, with nothing lost.
  const s = await scrape();
  expect(s.status).toBe(200);
  expect(tileRequests(s.body)).toBeGreaterThanOrEqual(30);
}, 60_000);

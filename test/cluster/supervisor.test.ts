// The supervisor of the compiled binary: WORKERS processes share one port, a worker that dies is
// restarted, WORKERS=1 keeps today's single process, and a bad WORKERS value stops start-up.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../support/binary";
import { childrenOf, onFreshConnection } from "./support";
import { defaultRenderWorkers } from "../../src/config";

async function workersAnswering(baseUrl: string, calls: number): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < calls; i++) {
    const a = await onFreshConnection(baseUrl, "/health");
    expect(a.status).toBe(200);
    seen.add(a.worker);
  }
  return seen;
}

beforeAll(async () => {
  await ensureBinary();
}, 180_000);

describe("WORKERS=3", () => {
  let bin: RunningBinary;
  beforeAll(async () => {
    bin = await startBinary({ env: { WORKERS: "3", WORKER_HEADER: "true" } });
  }, 60_000);
  afterAll(async () => {
    await bin?.stop("SIGKILL");
  });

  test("three worker processes answer on the one port", async () => {
    expect(childrenOf(bin.pid)).toHaveLength(3);
    expect([...(await workersAnswering(bin.baseUrl, 60))].sort()).toEqual([1, 2, 3]);
    expect(bin.logs().find((e) => e.msg === "listening")?.workers).toBe(3);
  }, 30_000);

  test("each worker's render pool gets its share of the cores, not all of them", () => {
    expect(bin.logs().find((e) => e.msg === "listening")?.render_workers).toBe(defaultRenderWorkers(3));
  });

  test("a worker that dies is replaced and the port keeps answering", async () => {
    const before = childrenOf(bin.pid);
    process.kill(before[0]!, "SIGKILL");
    await bin.waitForLog((e) => e.msg === "worker exited; restarting" && e.code === 137, 10_000);
    // Requests keep being answered while it is gone (the kernel sends new connections to the others).
    expect((await onFreshConnection(bin.baseUrl, "/health")).status).toBe(200);
    let after: number[] = [];
    for (let i = 0; i < 100 && (after.length < 3 || after.includes(before[0]!)); i++) {
      await Bun.sleep(100);
      after = childrenOf(bin.pid);
    }
    expect(after).toHaveLength(3);
    expect(after).not.toContain(before[0]!);
    let seen = new Set<number>();
    // The replacement exists before it listens; on a loaded machine its start can take seconds.
    for (let i = 0; i < 100 && seen.size < 3; i++) {
      seen = await workersAnswering(bin.baseUrl, 20);
      if (seen.size < 3) await Bun.sleep(100);
    }
    expect([...seen].sort()).toEqual([1, 2, 3]);
  }, 30_000);

  test("SIGTERM stops every worker and the supervisor exits 0", async () => {
    const workers = childrenOf(bin.pid);
    expect(await bin.stop("SIGTERM")).toBe(0);
    for (const pid of workers) expect(() => process.kill(pid, 0)).toThrow();
  }, 30_000);
});

describe("WORKERS=1", () => {
  test("serves from the one process, without the worker header", async () => {
    const bin = await startBinary({ env: { WORKERS: "1" } });
    try {
      expect(childrenOf(bin.pid)).toEqual([]);
      const a = await onFreshConnection(bin.baseUrl, "/health");
      expect(a.status).toBe(200);
      expect(a.headers.get("x-mapstead-worker")).toBeNull();
      expect(await bin.stop("SIGTERM")).toBe(0);
    } finally {
      await bin.stop("SIGKILL");
    }
  }, 60_000);

  test("a bad WORKERS value stops start-up with exit code 2, naming the setting", async () => {
    const r = await runBinary(["serve"], { env: { WORKERS: "0", PORT: "0" } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("WORKERS");
    expect(r.stderr).toContain("an integer from 1 to 256");
  }, 30_000);

  test("the internal worker argument refuses to run on its own", async () => {
    const r = await runBinary(["__mapstead-worker"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("WORKERS above 1");
  }, 30_000);
});

// The persistent queue on a real SQLite file: one claim per job even across connections (processes),
// stale running jobs re-queued, the runner requeues on stop and records failures.
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { createJobQueue, STALE_AFTER_MS } from "../../src/jobs/queue";
import { createJobRunner, JobAborted } from "../../src/jobs/runner";
import { silentLogger } from "../../src/log";
import { tempDir } from "../support/app";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function twoConnections() {
  const dir = tempDir();
  const a = openDatabase(dir);
  migrate(a.sqlite);
  const b = openDatabase(dir);
  cleanups.push(() => {
    a.sqlite.close();
    b.sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { a: createJobQueue(a.sqlite), b: createJobQueue(b.sqlite), sqlite: a.sqlite, dir };
}

test("a queued job is claimed once, by one connection; kinds are separate", () => {
  const { a, b } = twoConnections();
  const id = a.enqueue("work", { n: 1 });
  a.enqueue("other", {});
  const first = b.claimNext("work");
  expect(first).toMatchObject({ id, kind: "work", payload: { n: 1 }, state: "running", attempts: 1 });
  expect(a.claimNext("work")).toBeNull();
  expect(b.claimNext("work")).toBeNull();
  b.done(id);
  expect(a.claimNext("other")?.kind).toBe("other");
});

test("running jobs with a stale heartbeat go back to the queue; fresh ones stay", () => {
  const { a, sqlite } = twoConnections();
  const stale = a.enqueue("work", {});
  const fresh = a.enqueue("work", {});
  a.claimNext("work");
  a.claimNext("work");
  sqlite.query("UPDATE jobs SET heartbeat_at = ? WHERE id = ?").run(Date.now() - STALE_AFTER_MS - 1000, stale);
  expect(a.requeueStale()).toEqual([stale]);
  expect(a.claimNext("work")).toMatchObject({ id: stale, attempts: 2 });
  a.heartbeat(fresh);
  expect(a.requeueStale()).toEqual([]);
});

test("the runner runs jobs in order, records failures, and hands the running job back on stop", async () => {
  const { a, sqlite } = twoConnections();
  const ran: number[] = [];
  let release: () => void = () => {};
  const runner = createJobRunner(
    a,
    "work",
    async (job, signal) => {
      ran.push(Number(job.payload.n));
      if (job.payload.n === 2) throw new Error("bad input in line 4");
      if (job.payload.n === 3)
        await new Promise<void>((resolve, reject) => {
          release = resolve;
          signal.addEventListener("abort", () => reject(new JobAborted()));
        });
    },
    silentLogger,
    { pollMs: 20 },
  );
  a.enqueue("work", { n: 1 });
  a.enqueue("work", { n: 2 });
  const third = a.enqueue("work", { n: 3 });
  runner.start();
  while (ran.length < 3) await Bun.sleep(10);
  await runner.stop();
  expect(ran).toEqual([1, 2, 3]);
  const rows = sqlite.query("SELECT state, error, attempts FROM jobs ORDER BY id").all();
  expect(rows).toEqual([
    { state: "done", error: null, attempts: 1 },
    { state: "failed", error: "bad input in line 4", attempts: 1 },
    { state: "queued", error: null, attempts: 1 },
  ]);
  release();
  expect(a.claimNext("work")?.id).toBe(third);
});

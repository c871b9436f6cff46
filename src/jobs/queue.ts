// The persistent job queue in the `jobs` table. A process claims a queued job atomically, keeps its
// heartbeat fresh while working, and finishes it as done or failed. A job whose heartbeat went stale
// (its process died) is put back in the queue, so none stays running forever.
import type { Database } from "bun:sqlite";

export interface JobRow {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  state: "queued" | "running" | "done" | "failed";
  attempts: number;
}

interface RawJob {
  id: number;
  kind: string;
  payload: string;
  state: JobRow["state"];
  attempts: number;
}

const parse = (r: RawJob | null | undefined): JobRow | null => (r ? { ...r, payload: JSON.parse(r.payload) as Record<string, unknown> } : null);

/** A running job is presumed dead when its heartbeat is older than this. */
export const STALE_AFTER_MS = 15_000;
export const HEARTBEAT_MS = 2_000;

export function createJobQueue(sqlite: Database) {
  const insert = sqlite.query<{ id: number }, [string, string, string, number, number | null, number | null]>(
    "INSERT INTO jobs (kind, payload, state, attempts, created_at, started_at, heartbeat_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) RETURNING id",
  );
  const claimNext = sqlite.query<RawJob, [number, string]>(
    `UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ?1, heartbeat_at = ?1
     WHERE id = (SELECT id FROM jobs WHERE state = 'queued' AND kind = ?2 ORDER BY id LIMIT 1) AND state = 'queued'
     RETURNING id, kind, payload, state, attempts`,
  );
  const beat = sqlite.query<null, [number, number]>("UPDATE jobs SET heartbeat_at = ?1 WHERE id = ?2 AND state = 'running'");
  const progress = sqlite.query<null, [number, number]>("UPDATE jobs SET progress = ?1 WHERE id = ?2");
  const payload = sqlite.query<null, [string, number]>("UPDATE jobs SET payload = ?1 WHERE id = ?2");
  const finish = sqlite.query<null, [string, string | null, number, number]>(
    "UPDATE jobs SET state = ?1, error = ?2, finished_at = ?3, progress = CASE WHEN ?1 = 'done' THEN 1 ELSE progress END WHERE id = ?4",
  );
  const requeue = sqlite.query<null, [number]>("UPDATE jobs SET state = 'queued', heartbeat_at = NULL WHERE id = ?1 AND state = 'running'");
  const stale = sqlite.query<{ id: number }, [number]>(
    "UPDATE jobs SET state = 'queued', heartbeat_at = NULL WHERE state = 'running' AND (heartbeat_at IS NULL OR heartbeat_at < ?1) RETURNING id",
  );
  const prune = sqlite.query<null, [number]>("DELETE FROM jobs WHERE state IN ('done', 'failed') AND finished_at < ?1");

  return {
    /** Adds a job; `running: true` inserts it already claimed by the caller (the CLI works on it itself). */
    enqueue(kind: string, payload: Record<string, unknown>, opts: { running?: boolean } = {}): number {
      const now = Date.now();
      return insert.get(kind, JSON.stringify(payload), opts.running ? "running" : "queued", opts.running ? 1 : 0, now, opts.running ? now : null)!.id;
    },
    claimNext: (kind: string): JobRow | null => parse(claimNext.get(Date.now(), kind)),
    heartbeat: (id: number) => void beat.run(Date.now(), id),
    progress: (id: number, p: number) => void progress.run(p, id),
    /** Replaces the job's payload: a job that reports more than a fraction keeps its figures there. */
    setPayload: (id: number, p: Record<string, unknown>) => void payload.run(JSON.stringify(p), id),
    done: (id: number) => void finish.run("done", null, Date.now(), id),
    failed: (id: number, error: string) => void finish.run("failed", error, Date.now(), id),
    requeue: (id: number) => void requeue.run(id),
    /** Re-queues running jobs whose process stopped beating; returns their ids. */
    requeueStale: (now = Date.now()): number[] => stale.all(now - STALE_AFTER_MS).map((r) => r.id),
    /** Forgets finished jobs older than a week. */
    prune: (now = Date.now()) => void prune.run(now - 7 * 86_400_000),
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;

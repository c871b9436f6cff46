// Runs queued jobs one at a time in this process. The heavy lifting of a job happens off the event
// loop (tileset processing uses a Worker thread), so requests are never blocked. Polls the queue,
// can be woken at once after an enqueue, keeps the heartbeat of the running job fresh, and on stop
// hands the running job back to the queue for the next start.
import type { Logger } from "../log";
import { HEARTBEAT_MS, type JobQueue, type JobRow } from "./queue";

/**
 * What a handler ends with: nothing (done), or `{ failed }` when the job's purpose failed in a way it has
 * recorded and logged itself (a tileset version whose data is invalid): the job row ends `failed` too, so
 * the queue gauges (mapstead_jobs_failed) count it, without the runner's error log line.
 */
export type JobOutcome = void | { failed: string };
export type JobHandler = (job: JobRow, signal: AbortSignal) => Promise<JobOutcome>;

/** Thrown by a handler that gave up because it was aborted (shutdown): the job goes back to the queue. */
export class JobAborted extends Error {}

export function createJobRunner(queue: JobQueue, kind: string, handler: JobHandler, log: Logger, opts: { pollMs?: number } = {}) {
  const pollMs = opts.pollMs ?? 1000;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: { job: JobRow; controller: AbortController; done: Promise<void> } | null = null;
  let stopped = true;
  let lastStaleCheck = 0;

  async function run(job: JobRow): Promise<void> {
    const controller = new AbortController();
    const beat = setInterval(() => queue.heartbeat(job.id), HEARTBEAT_MS);
    const done = (async () => {
      try {
        const outcome = await handler(job, controller.signal);
        if (outcome) queue.failed(job.id, outcome.failed);
        else queue.done(job.id);
      } catch (err) {
        if (err instanceof JobAborted || controller.signal.aborted) queue.requeue(job.id);
        else {
          log.error("job failed", { job_id: job.id, kind: job.kind, error: String((err as Error)?.message ?? err) });
          queue.failed(job.id, String((err as Error)?.message ?? err));
        }
      } finally {
        clearInterval(beat);
      }
    })();
    running = { job, controller, done };
    await done;
    running = null;
  }

  async function tick(): Promise<void> {
    timer = null;
    if (stopped || running) return;
    try {
      const now = Date.now();
      if (now - lastStaleCheck > HEARTBEAT_MS) {
        lastStaleCheck = now;
        const requeued = queue.requeueStale(now);
        if (requeued.length) log.warn("re-queued interrupted jobs", { job_ids: requeued });
      }
      let job = queue.claimNext(kind);
      while (job && !stopped) {
        await run(job);
        job = stopped ? null : queue.claimNext(kind);
      }
    } catch (err) {
      log.error("job runner tick failed", { error: String(err) });
    }
    if (!stopped) timer = setTimeout(tick, pollMs);
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      lastStaleCheck = 0;
      queue.prune();
      timer = setTimeout(tick, 0);
    },
    /** Look at the queue now (after an enqueue) instead of at the next poll. */
    wake() {
      if (stopped || running) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(tick, 0);
    },
    /** Aborts the running job when `match` says so (its data was deleted). */
    abortIf(match: (job: JobRow) => boolean) {
      if (running && match(running.job)) running.controller.abort();
    },
    /** Stops polling; the running job is aborted and goes back to the queue. */
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const r = running;
      if (r) {
        r.controller.abort();
        await r.done;
      }
    },
    /** Runs one job that the caller already claimed (the CLI's own import), without polling. */
    async runClaimed(job: JobRow) {
      await run(job);
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;

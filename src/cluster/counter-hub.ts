// The supervisor's side of the shared rate limits, quotas and usage counts: it applies every worker's
// report to one set of token buckets and to the usage service, and answers with the levels that changed,
// for every worker. Reported calls are written within WRITE_DELAY_MS (one transaction for all the
// reports in between), so a usage page answered by any worker is that fresh, not 10 s behind.
// It also sums the workers' request counts and keeps their last reported memory, for /metrics: the
// sum outlives a worker that exits, so the server's counters never go back.
import type { RateLimiter } from "../domain/accounts/rate-limit";
import { calendarOf, type UsageService } from "../domain/usage/service";
import { createMetrics, type ServerFigures } from "../http/metrics-registry";
import type { BucketLevel, MonthUsed, ToSupervisor } from "./protocol";

const WRITE_DELAY_MS = 200;

export function createCounterHub(limiter: RateLimiter, usage: UsageService, startedAt: number) {
  /** worker number -> its last applied report */
  const applied = new Map<number, number>();
  /** every worker's requests, summed */
  const traffic = createMetrics();
  /** worker number -> its resident bytes when it last reported */
  const memory = new Map<number, number>();
  let writeTimer: ReturnType<typeof setTimeout> | null = null;
  const writeSoon = () => {
    writeTimer ??= setTimeout(() => {
      writeTimer = null;
      usage.flush();
    }, WRITE_DELAY_MS);
    writeTimer.unref?.(); // the supervisor's shutdown writes whatever is left
  };

  /** Applies one report; returns the changed levels (to send to every worker with its own ack). */
  function apply(worker: number, report: Extract<ToSupervisor, { t: "report" }>): { buckets: BucketLevel[]; used: MonthUsed[] } {
    applied.set(worker, report.seq);
    if (report.traffic) traffic.add(report.traffic);
    memory.set(worker, report.rss);
    const buckets: BucketLevel[] = report.takes.map(([id, group, limit, n]) => {
      const level = limiter.spend(id, group, limit, n);
      return [id, group, limit, level.tokens, level.updatedAt];
    });
    const month = calendarOf(Date.now()).month;
    const keys = new Set<number>();
    for (const [keyId, day, service, n] of report.usage) {
      usage.record(keyId, day, service, n);
      keys.add(keyId);
    }
    for (const [keyId, at] of report.touched) usage.touch(keyId, at);
    if (report.usage.length) writeSoon();
    const used: MonthUsed[] = [...keys].map((keyId) => [keyId, month, usage.usedThisMonth(keyId)]);
    return { buckets, used };
  }

  return {
    apply,
    /** The last report of `worker` applied (0 before its first). */
    ackOf: (worker: number) => applied.get(worker) ?? 0,
    /** A worker exited (or is replaced): its reports start over; its counts stay in the sum. */
    forget(worker: number): void {
      applied.delete(worker);
      memory.delete(worker);
    },
    /** The whole server's figures for /metrics: the summed counts and each process's memory. */
    figures(): ServerFigures {
      const workers = [...memory].sort(([a], [b]) => a - b).map(([n, bytes]): [string, number] => [`worker-${n}`, bytes]);
      return { traffic: traffic.snapshot(), startedAt, memory: [["supervisor", process.memoryUsage.rss()], ...workers] };
    },
  };
}

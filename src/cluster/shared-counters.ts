// A worker's side of the shared rate limits, quotas and usage counts. Requests only touch memory, as in
// one process: the worker's own token buckets and monthly totals. Every SYNC_INTERVAL_MS it reports
// what it admitted since the last report to the supervisor, which applies it to the shared counters
// and answers with the shared levels; the worker adopts them, less nothing it counted itself and the
// supervisor has not applied yet (tracked by report number). So each worker sees every other worker's
// calls at most one sync interval late: that is the bound on over-admission (README, "Workers").
// The same reports carry the worker's request counts and memory for /metrics, which shows the
// supervisor's sum whichever worker answers it (figures()).
import type { AppContext } from "../context";
import { createRateLimiter } from "../domain/accounts/rate-limit";
import { createUsageService } from "../domain/usage/service";
import { ServiceUnavailable } from "../errors";
import { createMetrics, type ServerFigures } from "../http/metrics-registry";
import { MEMORY_REPORT_MS, SYNC_INTERVAL_MS, type BucketTake, type ToSupervisor, type ToWorker, type UsageCount } from "./protocol";

/** The supervisor answers from memory; no answer this long means it is gone or stuck. */
const FIGURES_TIMEOUT_MS = 5_000;

interface Unacked {
  seq: number;
  /** bucket key -> tokens taken */
  takes: Map<string, number>;
  /** key id -> calls counted */
  calls: Map<number, number>;
}

const bucketKey = (id: string, group: string) => `${id}\n${group}`;

export function createSharedCounters(ctx: AppContext, send: (message: ToSupervisor) => void) {
  let seq = 0;
  const unacked: Unacked[] = [];
  /** bucket key -> tokens taken (less those given back) since the last report */
  const unsent = new Map<string, BucketTake>();
  let usageOut: UsageCount[] = [];
  let touchedOut: [number, number][] = [];
  let reportedAt = 0;
  /** this worker's requests since the last report */
  const metrics = createMetrics();
  /** figures asked of the supervisor, by request id */
  const asked = new Map<number, (figures: ServerFigures) => void>();
  let lastAsk = 0;

  const local = createRateLimiter();
  /** Counts `n` tokens taken (negative: given back) for the next report. */
  const count = (id: string, group: string, limit: number, n: number) => {
    const key = bucketKey(id, group);
    const entry = unsent.get(key);
    if (entry && entry[2] === limit) entry[3] += n;
    else unsent.set(key, [id, group, limit, n]);
  };
  const limiter = {
    ...local,
    take(id: string, group: string, limit: number, n = 1) {
      const result = local.take(id, group, limit, n);
      if (result.allowed) count(id, group, limit, n);
      return result;
    },
    giveBack(id: string, group: string, limit: number, n: number) {
      count(id, group, limit, -n);
      return local.giveBack(id, group, limit, n);
    },
  };
  const usage = createUsageService(ctx.sqlite, ctx.log, {
    sink(counts, times) {
      usageOut.push(...counts);
      touchedOut.push(...times);
    },
  });

  /** Sends what was counted since the last report; when idle, only now and then (or when `always`). */
  function report(always = false): void {
    usage.flush();
    const traffic = metrics.take();
    const idle = !unsent.size && !usageOut.length && !touchedOut.length && !traffic;
    if (idle && !always && Date.now() - reportedAt < MEMORY_REPORT_MS) return;
    reportedAt = Date.now();
    const entry: Unacked = { seq: ++seq, takes: new Map(), calls: new Map() };
    for (const [key, take] of unsent) entry.takes.set(key, take[3]);
    for (const [keyId, , , n] of usageOut) entry.calls.set(keyId, (entry.calls.get(keyId) ?? 0) + n);
    unacked.push(entry);
    send({ t: "report", seq, takes: [...unsent.values()], usage: usageOut, touched: touchedOut, traffic, rss: process.memoryUsage.rss() });
    unsent.clear();
    usageOut = [];
    touchedOut = [];
  }

  function ownTakes(key: string): number {
    let n = unsent.get(key)?.[3] ?? 0;
    for (const u of unacked) n += u.takes.get(key) ?? 0;
    return n;
  }

  function ownCalls(keyId: number): number {
    let n = 0;
    for (const u of unacked) n += u.calls.get(keyId) ?? 0;
    return n;
  }

  /** The supervisor's levels after it applied our reports up to `ack`. */
  function adopt(message: Extract<ToWorker, { t: "state" }>): void {
    while (unacked.length && unacked[0]!.seq <= message.ack) unacked.shift();
    for (const [id, group, limit, tokens, updatedAt] of message.buckets) local.adopt(id, group, limit, tokens, updatedAt, ownTakes(bucketKey(id, group)));
    for (const [keyId, month, used] of message.used) usage.adoptMonth(keyId, month, used, ownCalls(keyId));
  }

  /**
   * The whole server's figures for /metrics, from the supervisor. This worker's own counts go first
   * (the channel keeps order), so they are all in; other workers' are at most one sync interval behind.
   */
  function figures(): Promise<ServerFigures> {
    report(true);
    const id = ++lastAsk;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        asked.delete(id);
        reject(new ServiceUnavailable("METRICS_UNAVAILABLE", "The supervisor process did not answer with the server's metrics; try again"));
      }, FIGURES_TIMEOUT_MS);
      asked.set(id, (f) => {
        clearTimeout(timer);
        asked.delete(id);
        resolve(f);
      });
      send({ t: "figures?", id });
    });
  }

  const timer = setInterval(() => report(), SYNC_INTERVAL_MS);
  timer.unref?.();

  return {
    limiter,
    usage,
    metrics,
    report,
    adopt,
    figures,
    /** The supervisor's answer to figures(). */
    answer: (message: Extract<ToWorker, { t: "figures" }>) => asked.get(message.id)?.(message.figures),
    stop: () => clearInterval(timer),
  };
}

export type SharedCounters = ReturnType<typeof createSharedCounters>;

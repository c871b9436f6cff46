// Messages between the supervisor and its HTTP workers (Bun's IPC channel, JSON-serialized). A worker
// reports what it counted every SYNC_INTERVAL_MS; the supervisor applies it to the shared counters and
// sends every worker the levels that changed, each acknowledging that worker's last applied report.
// Reports also carry the worker's request counts and memory, which the supervisor sums for /metrics:
// a worker answering /metrics asks it for the whole server's figures.
import type { Config } from "../config";
import type { ServerFigures, Traffic } from "../http/metrics-registry";

/** How often a busy worker reports its counts; the over-admission bound of rate limits and quotas. */
export const SYNC_INTERVAL_MS = 100;

/** An idle worker still reports this often, so /metrics shows its memory. */
export const MEMORY_REPORT_MS = 5_000;

/** The internal first argument that makes the executable run as one HTTP worker. */
export const WORKER_ARG = "__mapstead-worker";

export type BucketTake = [callerId: string, group: string, limit: number, n: number];
export type BucketLevel = [callerId: string, group: string, limit: number, tokens: number, updatedAt: number];
export type UsageCount = [keyId: number, day: string, service: string, n: number];
export type MonthUsed = [keyId: number, month: string, used: number];

export type ToSupervisor =
  | { t: "ready"; port: number }
  | { t: "failed"; message: string }
  | {
      t: "report";
      seq: number;
      takes: BucketTake[];
      usage: UsageCount[];
      touched: [keyId: number, at: number][];
      /** requests answered since the last report (null: none) */
      traffic: Traffic | null;
      /** the worker's resident memory now */
      rss: number;
    }
  /** /metrics: the whole server's figures, asked right after a report with this worker's own */
  | { t: "figures?"; id: number }
  /** the worker drained and sent its last report; it exits once acknowledged */
  | { t: "bye" };

export type ToWorker =
  | { t: "start"; worker: number; config: Config }
  | { t: "state"; ack: number; buckets: BucketLevel[]; used: MonthUsed[] }
  | { t: "figures"; id: number; figures: ServerFigures }
  | { t: "bye-ack" };

// `mapstead serve` with WORKERS above 1: this process serves no HTTP itself. It owns what must happen
// once per appliance (migrations, ran by the caller; the setup token; the processing queue; batched
// usage and last-used writes; hourly clean-ups), starts WORKERS copies of the executable that share the
// port, keeps their rate limits and quotas in step and sums their request counts for /metrics
// (counter-hub.ts), restarts a worker that dies (with backoff), and on SIGTERM drains them all before
// it exits 0.
import type { Subprocess } from "bun";
import type { AppContext } from "../context";
import { createRateLimiter } from "../domain/accounts/rate-limit";
import { releaseClaimsOf } from "../domain/idempotency/service";
import type { Services } from "../services";
import { createCounterHub } from "./counter-hub";
import { WORKER_ARG, type ToSupervisor, type ToWorker } from "./protocol";

/** A worker that dies sooner than this after its start counts as failing: the next restart waits longer. */
const HEALTHY_AFTER_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 10_000;
/** Workers drain for up to 10 s; past this they are killed. */
const STOP_TIMEOUT_MS = 15_000;

interface WorkerSlot {
  n: number;
  proc: Subprocess | null;
  startedAt: number;
  failures: number;
}

/**
 * In the compiled binary the executable is the app (its runtime flags are compiled in); from source it
 * is bun running src/main.ts, given the supervisor's own runtime flags, so `bun start`'s header ceiling
 * (--max-http-header-size) holds in the workers that answer HTTP too.
 */
function workerCommand(): string[] {
  return Bun.main.startsWith("/$bunfs/") ? [process.execPath, WORKER_ARG] : [process.execPath, ...process.execArgv, Bun.main, WORKER_ARG];
}

export interface Cluster {
  /** resolves once every worker listens; rejects with the first worker's start-up error */
  ready: Promise<void>;
  /** drains every worker; resolves once all have exited */
  stop(): Promise<void>;
}

/**
 * Workers bind with SO_REUSEPORT, which would let a second appliance on the same port share the
 * traffic of the first unnoticed. A plain bind first fails when anything holds the port.
 */
function assertPortFree(config: AppContext["config"]): void {
  Bun.serve({ hostname: config.host, port: config.port, reusePort: false, fetch: () => new Response() }).stop(true);
}

/** Starts the workers; throws when the port is taken. */
export function startCluster(ctx: AppContext, services: Services): Cluster {
  const { config, log } = ctx;
  assertPortFree(config);
  const hub = createCounterHub(createRateLimiter(), services.auth.usage, ctx.startedAt);
  const slots: WorkerSlot[] = Array.from({ length: config.workers }, (_, i) => ({ n: i + 1, proc: null, startedAt: 0, failures: 0 }));
  let stopping = false;
  let readyCount = 0;
  let settleReady!: { resolve: () => void; reject: (err: Error) => void };
  const ready = new Promise<void>((resolve, reject) => (settleReady = { resolve, reject }));
  let allReady = false;

  const sendTo = (slot: WorkerSlot, message: ToWorker) => {
    try {
      slot.proc?.send(message);
    } catch {
      // the worker is exiting; it will be restarted or is being stopped
    }
  };

  function onMessage(slot: WorkerSlot, message: ToSupervisor) {
    switch (message.t) {
      case "ready":
        if (!allReady && ++readyCount === slots.length) {
          allReady = true;
          settleReady.resolve();
        }
        break;
      case "failed":
        if (!allReady) settleReady.reject(new Error(message.message));
        else log.error("worker could not listen", { worker: slot.n, error: message.message });
        break;
      case "report": {
        const changed = hub.apply(slot.n, message);
        const everyone = changed.buckets.length || changed.used.length;
        for (const s of everyone ? slots : [slot]) sendTo(s, { t: "state", ack: hub.ackOf(s.n), ...changed });
        break;
      }
      case "figures?":
        sendTo(slot, { t: "figures", id: message.id, figures: hub.figures() });
        break;
      case "bye":
        sendTo(slot, { t: "bye-ack" });
        break;
    }
  }

  /** A worker that exits mid-request (killed, crashed) leaves its Idempotency-Key claims unfinished. */
  function freeClaims(pid: number, worker: number) {
    try {
      const freed = releaseClaimsOf(ctx.sqlite, pid);
      if (freed) log.warn("freed the unfinished Idempotency-Key claims of an exited worker", { worker, claims: freed });
    } catch (err) {
      log.error("could not free an exited worker's Idempotency-Key claims", { worker, error: String(err) });
    }
  }

  function spawn(slot: WorkerSlot) {
    slot.startedAt = Date.now();
    const proc = Bun.spawn(workerCommand(), {
      stdio: ["ignore", "inherit", "inherit"],
      env: process.env,
      ipc: (message) => onMessage(slot, message as ToSupervisor),
    });
    slot.proc = proc;
    hub.forget(slot.n);
    proc.send({ t: "start", worker: slot.n, config } satisfies ToWorker);
    void proc.exited.then((code) => {
      if (slot.proc === proc) {
        slot.proc = null;
        hub.forget(slot.n);
      }
      freeClaims(proc.pid, slot.n);
      if (stopping) return;
      if (!allReady) {
        settleReady.reject(new Error(`worker ${slot.n} exited with code ${code} while starting`));
        return;
      }
      slot.failures = Date.now() - slot.startedAt < HEALTHY_AFTER_MS ? slot.failures + 1 : 0;
      const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** Math.max(0, slot.failures - 1));
      log.warn("worker exited; restarting", { worker: slot.n, code, restart_in_ms: delay });
      setTimeout(() => {
        if (!stopping) spawn(slot);
      }, delay);
    });
  }

  for (const slot of slots) spawn(slot);

  return {
    ready,
    async stop() {
      stopping = true;
      const running = slots.map((s) => s.proc).filter((p): p is Subprocess => p !== null);
      for (const p of running) p.kill("SIGTERM");
      const killer = setTimeout(() => {
        log.warn("workers did not stop within 15 s; killing them");
        for (const p of running) p.kill("SIGKILL");
      }, STOP_TIMEOUT_MS);
      await Promise.all(running.map((p) => p.exited));
      clearTimeout(killer);
    },
  };
}

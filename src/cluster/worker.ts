// One HTTP worker of a cluster: the same executable started by the supervisor with WORKER_ARG. It gets
// its settings from the supervisor (so flags given to `mapstead serve` apply), serves the whole app on
// the shared port (SO_REUSEPORT) and leaves the single-instance duties to the supervisor. On SIGTERM,
// or when the supervisor goes away, it stops accepting, finishes in-flight requests, sends its last
// counts and exits once the supervisor acknowledged them, so no call is lost or counted twice.
import { createApp } from "../app";
import type { Config } from "../config";
import { createContext } from "../context";
import { openDatabase } from "../db/client";
import { createLogger } from "../log";
import { createServices } from "../services";
import { drain } from "./drain";
import type { ToSupervisor, ToWorker } from "./protocol";
import { createSharedCounters } from "./shared-counters";
import { BUN_BODY_LIMIT } from "../http/body-limit";

const BYE_TIMEOUT_MS = 5_000;

const send = (message: ToSupervisor) => process.send?.(message);

function nextMessage<T extends ToWorker["t"]>(type: T): Promise<Extract<ToWorker, { t: T }>> {
  return new Promise((resolve) => {
    const onMessage = (m: ToWorker) => {
      if (m.t !== type) return;
      process.off("message", onMessage);
      resolve(m as Extract<ToWorker, { t: T }>);
    };
    process.on("message", onMessage);
  });
}

export async function runWorker(): Promise<number> {
  if (!process.send) {
    process.stderr.write("mapstead: this internal command runs only under `mapstead serve` with WORKERS above 1\n");
    return 2;
  }
  const start = await nextMessage("start");
  const config: Readonly<Config> = Object.freeze(start.config);
  const log = createLogger(config.logLevel, undefined, { worker: start.worker });
  const ctx = createContext(config, openDatabase(config.dataDir), log);
  const counters = createSharedCounters(ctx, send);
  ctx.onShutdown(() => counters.stop());
  const fixedHeaders = config.workerHeader ? { "x-mapstead-worker": String(start.worker) } : undefined;
  const served = createApp(createServices(ctx, { worker: { counters, metrics: { registry: counters.metrics, figures: counters.figures } } }), { fixedHeaders });
  process.on("message", (m: ToWorker) => {
    if (m.t === "state") counters.adopt(m);
    else if (m.t === "figures") counters.answer(m);
  });

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.debug("worker stopping", { worker: start.worker, reason });
    await drain(served.server, log, () => ctx.endRequests());
    await ctx.shutdown();
    counters.report();
    if (process.connected) {
      const acked = nextMessage("bye-ack");
      send({ t: "bye" });
      await Promise.race([acked, Bun.sleep(BYE_TIMEOUT_MS)]);
    }
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  // Ctrl-C in a terminal reaches the whole process group; the supervisor decides, via SIGTERM.
  process.on("SIGINT", () => {});
  process.on("disconnect", () => void stop("supervisor gone"));

  try {
    served.listen({ hostname: config.host, port: config.port, reusePort: true, development: false, maxRequestBodySize: BUN_BODY_LIMIT });
  } catch (err) {
    send({ t: "failed", message: err instanceof Error ? err.message : String(err) });
    await ctx.shutdown();
    return 1;
  }
  send({ t: "ready", port: served.server!.port! });
  return await new Promise<number>(() => {});
}

// Stopping a server gracefully: stop accepting, let in-flight requests finish for up to DRAIN_MS, then
// close what is left. Used by the single process and by every worker of a cluster.
import type { Server } from "bun";
import type { Logger } from "../log";

export const DRAIN_MS = 10_000;

export async function drain(server: Server<unknown> | undefined | null, log: Logger): Promise<void> {
  if (server) {
    const drained = server.stop(false);
    const timedOut = await Promise.race([drained.then(() => false), Bun.sleep(DRAIN_MS).then(() => true)]);
    if (timedOut) {
      log.warn("in-flight requests did not finish within 10 s; closing them");
      await server.stop(true);
    }
  }
  // After-response hooks (the access-log lines of the drained requests) run on a later tick.
  await Bun.sleep(20);
}

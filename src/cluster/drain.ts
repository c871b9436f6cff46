// Stopping a server gracefully: stop accepting, let in-flight requests finish for up to DRAIN_MS, then
// close what is left. Shortly before, requests still running are told to answer now (`overdue`: an
// upload streaming in answers 503 with Retry-After, so its client knows to send it again instead of
// seeing its connection cut). Used by the single process and by every worker of a cluster.
import type { Server } from "bun";
import type { Logger } from "../log";

export const DRAIN_MS = 10_000;
/** The last part of DRAIN_MS, left to requests told they are overdue to send their answers. */
const ANSWER_MS = 1_500;

export async function drain(server: Server<unknown> | undefined | null, log: Logger, overdue: () => void = () => {}): Promise<void> {
  if (server) {
    const drained = server.stop(false).then(() => true);
    const within = (ms: number) => Promise.race([drained, Bun.sleep(ms).then(() => false)]);
    if (!(await within(DRAIN_MS - ANSWER_MS))) {
      overdue();
      if (!(await within(ANSWER_MS))) {
        log.warn("in-flight requests did not finish within 10 s; closing them");
        await server.stop(true);
      }
    }
  }
  // After-response hooks (the access-log lines of the drained requests) run on a later tick.
  await Bun.sleep(20);
}

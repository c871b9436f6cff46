// An upload body that ends with 503 SERVER_STOPPING when the server stopping has run out of time for it
// (AppContext.overdue): the client is told to send it again after the restart, instead of having its
// connection cut mid-upload.
import { AppError } from "../../errors";

/** Seconds a client is told to wait: about what a restart of the service takes. */
const RETRY_AFTER_S = 30;

export const serverStopping = () =>
  new AppError(503, "SERVER_STOPPING", "The server is restarting and stopped receiving this upload; send it again in a minute", undefined, { "retry-after": String(RETRY_AFTER_S) });

/** `body`, failing with serverStopping() as soon as `overdue` aborts (a pending read too). */
export function untilOverdue(body: ReadableStream<Uint8Array>, overdue: AbortSignal | undefined): ReadableStream<Uint8Array> {
  if (!overdue) return body;
  const reader = body.getReader();
  let stopped = false;
  // The signal lives as long as the process: each upload's listener goes once the upload ends, however.
  let detach = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const stop = () => {
        stopped = true;
        controller.error(serverStopping());
        reader.cancel().catch(() => {});
      };
      if (overdue.aborted) return stop();
      overdue.addEventListener("abort", stop, { once: true });
      detach = () => overdue.removeEventListener("abort", stop);
    },
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (err) {
        detach();
        throw err;
      }
      // the stream is errored already when the server stopping cancelled the read
      if (stopped) return;
      if (read.done) {
        detach();
        controller.close();
      } else controller.enqueue(read.value);
    },
    cancel(reason) {
      detach();
      return reader.cancel(reason);
    },
  });
}

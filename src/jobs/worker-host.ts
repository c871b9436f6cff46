// The worker host: runs one tile processing job on its own thread, so tiling never blocks request
// handling, and turns the thread's messages (progress, done, failed) and deaths into one outcome.
import type { ProcessInput, ProcessResult, Progress } from "../tiles/process";

export type ProcessOutcome = { type: "done"; result: ProcessResult } | { type: "failed"; invalid: boolean; message: string } | { type: "aborted" };

// In the compiled binary the worker is its own entry point, kept at its path under the project root
// (/$bunfs/root/src/tiles/...; scripts/build.ts finds it from the URL below); from source it is a file.
// Bun.main tells the binary apart: with --bytecode, import.meta.url keeps the source path.
const workerUrl = Bun.main.startsWith("/$bunfs/") ? "./src/tiles/worker-thread.ts" : new URL("../tiles/worker-thread.ts", import.meta.url).href;

/** Processes `input` on a fresh thread; `onProgress` is not called once `signal` is aborted. */
export async function processInWorker(input: ProcessInput, signal: AbortSignal, onProgress: (p: Progress) => void): Promise<ProcessOutcome> {
  const worker = new Worker(workerUrl);
  // The caller removes the half-written archive after an abort: the thread must be gone by then, or it
  // could still write (an SQLite journal) next to it.
  const exited = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve(), { once: true }));
  try {
    return await new Promise<ProcessOutcome>((resolve) => {
      const onAbort = () => resolve({ type: "aborted" });
      signal.addEventListener("abort", onAbort, { once: true });
      worker.onmessage = (e: MessageEvent) => {
        const m = e.data as { type: string } & Progress & { result: ProcessResult; invalid: boolean; message: string };
        if (m.type === "progress") {
          if (!signal.aborted) onProgress(m);
        } else if (m.type === "done") resolve({ type: "done", result: m.result });
        else if (m.type === "failed") resolve({ type: "failed", invalid: m.invalid, message: m.message });
      };
      worker.onerror = (e) => resolve({ type: "failed", invalid: false, message: String(e.message ?? e) });
      worker.addEventListener("close", () => resolve({ type: "failed", invalid: false, message: "the processing thread stopped (out of memory?)" }));
      worker.postMessage(input);
    });
  } finally {
    worker.terminate();
    await exited;
  }
}

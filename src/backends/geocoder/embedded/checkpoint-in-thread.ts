// Runs checkpoint-thread.ts on a Worker of its own and resolves once it is done (or failed: a checkpoint
// left undone is only deferred, SQLite copies the log at the next one). The thread keeps the process
// alive while it runs (about a second per million places imported): unreferenced, a CLI awaiting it found its event loop empty
// and exited silently before printing its result.

// In the compiled binary the thread is its own entry point, kept at its path under the project root
// (scripts/build.ts finds it from the URL below); from source it is a file. Bun.main tells them apart.
const threadUrl = Bun.main.startsWith("/$bunfs/") ? "./src/backends/geocoder/embedded/checkpoint-thread.ts" : new URL("./checkpoint-thread.ts", import.meta.url).href;

/** Checkpoints the gazetteer at `path` on a thread; resolves with null, or the reason it could not. */
export function checkpointInThread(path: string): Promise<string | null> {
  let worker: Worker;
  try {
    worker = new Worker(threadUrl);
  } catch (err) {
    // Never the write's failure: it has committed; SQLite copies the log at the next checkpoint.
    return Promise.resolve(String((err as Error)?.message ?? err));
  }
  return new Promise<string | null>((resolve) => {
    worker.onmessage = (e: MessageEvent<{ type: "done" } | { type: "failed"; message: string }>) => resolve(e.data.type === "done" ? null : e.data.message);
    worker.onerror = (e) => resolve(String(e.message ?? e));
    worker.addEventListener("close", () => resolve("the checkpoint thread stopped"));
    worker.postMessage({ path });
  }).finally(() => worker.terminate());
}

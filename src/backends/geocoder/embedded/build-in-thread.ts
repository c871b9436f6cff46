// Runs build.ts on its own Worker thread (build-thread.ts) and waits for it; aborting terminates the
// thread, and the promise settles only once the thread is gone, so the caller may then delete the
// half-written file without the thread still writing next to it.

// In the compiled binary the thread is its own entry point, kept at its path under the project root
// (scripts/build.ts finds it from the URL below); from source it is a file. Bun.main tells them apart.
const threadUrl = Bun.main.startsWith("/$bunfs/") ? "./src/backends/geocoder/embedded/build-thread.ts" : new URL("./build-thread.ts", import.meta.url).href;

/** Builds the built-in gazetteer into `path` on a thread; resolves with the build's ms. */
export async function buildInThread(path: string, signal: AbortSignal): Promise<number> {
  const worker = new Worker(threadUrl);
  const exited = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve(), { once: true }));
  try {
    return await new Promise<number>((resolve, reject) => {
      const onAbort = () => reject(new Error("the gazetteer was closed while it was being built"));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      worker.onmessage = (e: MessageEvent<{ type: "done"; ms: number } | { type: "failed"; message: string }>) => {
        if (e.data.type === "done") resolve(e.data.ms);
        else reject(new Error(e.data.message));
      };
      worker.onerror = (e) => reject(new Error(String(e.message ?? e)));
      worker.addEventListener("close", () => reject(new Error("the gazetteer build thread stopped (out of memory?)")));
      worker.postMessage({ path });
    });
  } finally {
    worker.terminate();
    await exited;
  }
}

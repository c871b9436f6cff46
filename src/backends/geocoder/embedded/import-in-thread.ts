// Runs one gazetteer import (a GeoNames file, a point tileset) on its own thread (import-thread.ts) and
// hands back its progress and result as the caller of importGeonamesFile or importTilesetPoints expects: the same errors (InvalidGazetteerData with its line), the
// same progress, and an abort signal passed on.
import { InvalidGazetteerData } from "./dump-reader";
import type { ImportProgress, ImportResult } from "./import-file";
import type { ImportJob, ImportThreadStart } from "./import-thread";
import type { WriteMode } from "./writer";

// In the compiled binary the thread is its own entry point, kept at its path under the project root
// (scripts/build.ts finds it from the URL below); from source it is a file. Bun.main tells them apart.
const threadUrl = Bun.main.startsWith("/$bunfs/") ? "./src/backends/geocoder/embedded/import-thread.ts" : new URL("./import-thread.ts", import.meta.url).href;

type ThreadMessage =
  | { type: "progress"; progress: ImportProgress }
  | { type: "done"; result: ImportResult; cpuMicros: number }
  | { type: "invalid"; message: string; line?: number; entry?: string }
  | { type: "failed"; message: string };

export function importInThread(
  gazetteerFile: string,
  job: ImportJob,
  opts: { mode: WriteMode; onProgress?: (p: ImportProgress) => void; signal?: AbortSignal; onWriterCpu?: (micros: number) => void },
): Promise<ImportResult> {
  return new Promise<ImportResult>((resolve, reject) => {
    const worker = new Worker(threadUrl);
    let over = false;
    const abort = () => worker.postMessage({ type: "abort" });
    const finish = (settle: () => void) => {
      if (over) return;
      over = true;
      opts.signal?.removeEventListener("abort", abort);
      worker.terminate();
      settle();
    };
    // A progress callback that throws stops the import with its error. The thread is asked to stop, not
    // terminated: it rolls back and closes its connection first (a connection left open mid-write would
    // keep the file's write lock for the life of the process).
    let callbackFailed: { error: unknown } | null = null;
    worker.onmessage = (event: MessageEvent<ThreadMessage>) => {
      const m = event.data;
      if (m.type === "progress") {
        if (callbackFailed) return;
        try {
          opts.onProgress?.(m.progress);
        } catch (error) {
          callbackFailed = { error };
          abort();
        }
      } else if (callbackFailed) {
        const { error } = callbackFailed;
        finish(() => reject(error));
      } else if (m.type === "done") {
        opts.onWriterCpu?.(m.cpuMicros);
        finish(() => resolve(m.result));
      } else if (m.type === "invalid") finish(() => reject(new InvalidGazetteerData(m.message, m.line, m.entry)));
      else finish(() => reject(new Error(m.message)));
    };
    worker.onerror = (e) => finish(() => reject(new Error(`the import's thread failed: ${String(e.message ?? e)}`)));
    worker.addEventListener("close", () => finish(() => reject(new Error("the import's thread stopped (out of memory?)"))));
    opts.signal?.addEventListener("abort", abort, { once: true });
    const start: ImportThreadStart = { type: "start", gazetteerFile, job, mode: opts.mode };
    worker.postMessage(start);
    if (opts.signal?.aborted) abort();
  });
}

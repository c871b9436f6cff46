// Entry of the Bun Worker thread that processes uploads, so tiling never blocks request handling.
// Protocol: receive one ProcessInput; post {type:"progress"} messages, then {type:"done"} or {type:"failed"}.
import { InvalidSource } from "./errors";
import { processSource, type ProcessInput } from "./process";
import { lowerThreadPriority } from "./thread-priority";

declare const self: Worker;

// Tiling may take minutes of CPU; tile requests on the main thread come first.
lowerThreadPriority();

self.onmessage = async (event: MessageEvent<ProcessInput>) => {
  let last = -Infinity;
  let lastPhase = "";
  try {
    const result = await processSource(event.data, (p) => {
      const now = performance.now();
      // At most five a second, but every change of phase gets through.
      if (now - last < 200 && p.progress < 1 && p.phase === lastPhase) return;
      last = now;
      lastPhase = p.phase;
      self.postMessage({ type: "progress", ...p });
    });
    self.postMessage({ type: "done", result });
  } catch (err) {
    const invalid = err instanceof InvalidSource;
    self.postMessage({ type: "failed", invalid, message: invalid ? err.message : String((err as Error)?.message ?? err) });
  }
};

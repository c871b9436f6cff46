// Entry of the Bun Worker thread that builds the built-in gazetteer (build.ts), so a fresh DATA_DIR's
// first start never stalls requests. Protocol: receive { path }; post { type: "done", ms } or
// { type: "failed", message }. The host terminates the thread afterwards, which frees its memory.
import { lowerThreadPriority } from "../../../tiles/thread-priority";
import { buildBuiltinGazetteer } from "./build";

declare const self: Worker;

// Requests on the main thread come first; the build can wait for the CPU.
lowerThreadPriority();

self.onmessage = async (event: MessageEvent<{ path: string }>) => {
  try {
    self.postMessage({ type: "done", ms: await buildBuiltinGazetteer(event.data.path) });
  } catch (err) {
    self.postMessage({ type: "failed", message: String((err as Error)?.message ?? err) });
  }
};

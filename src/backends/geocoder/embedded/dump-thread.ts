// Entry of the Bun Worker thread that reads and parses a GeoNames dump for an import (dump-reader.ts),
// so that the import's own thread only writes SQLite: on two cores the two halves run side by side.
// Protocol: receive { type: "start", path, label }, then post { type: "batch", batch } (its numbers'
// buffer transferred) no more than MAX_AHEAD ahead of the { type: "ack" }s the import sends back once
// it has written a batch; at the end { type: "end" }, or { type: "invalid", message, line, entry } for
// a file that cannot be imported, or { type: "failed", message }.
import { InvalidGazetteerData, readDump } from "./dump-reader";

declare const self: Worker;

/** Batches (a chunk of the file read each, 256-512 KiB of text) parsed ahead of the writes at most. */
const MAX_AHEAD = 4;
let credits = MAX_AHEAD;
let wake: (() => void) | null = null;

async function run(path: string, label: string) {
  try {
    await readDump(path, label, async (batch) => {
      while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
      credits--;
      self.postMessage({ type: "batch", batch }, [batch.numbers.buffer]);
    });
    self.postMessage({ type: "end" });
  } catch (err) {
    if (err instanceof InvalidGazetteerData) self.postMessage({ type: "invalid", message: err.message, line: err.line, entry: err.entry });
    else self.postMessage({ type: "failed", message: String((err as Error)?.message ?? err) });
  }
}

self.onmessage = (event: MessageEvent<{ type: "start"; path: string; label: string } | { type: "ack" }>) => {
  if (event.data.type === "start") void run(event.data.path, event.data.label);
  else {
    credits++;
    wake?.();
    wake = null;
  }
};

// Entry of the Bun Worker thread that writes one GeoNames import (import-file.ts writeGeonamesFile) with
// a connection of its own, so that the thread answering HTTP never waits on SQLite during an import.
// Protocol: receive { type: "start", gazetteerFile, path, dataset, mode, label }, then post
// { type: "progress", progress } now and then, and at the end { type: "done", result, cpuMicros } (this
// thread's CPU time), { type: "invalid", message, line, entry } for a file that cannot be imported, or
// { type: "failed", message }. { type: "abort" } stops the import (server shutdown); nothing is written.
import { InvalidGazetteerData } from "./dump-reader";
import { writeGeonamesFile } from "./import-file";
import { openWriter } from "./store";
import type { WriteMode } from "./writer";

declare const self: Worker;

export interface ImportThreadStart {
  type: "start";
  gazetteerFile: string;
  path: string;
  dataset?: string;
  mode: WriteMode;
  label: string;
}

const stop = new AbortController();

async function run(m: ImportThreadStart) {
  const db = openWriter(m.gazetteerFile);
  try {
    const result = await writeGeonamesFile(db, m.path, {
      dataset: m.dataset,
      mode: m.mode,
      label: m.label,
      signal: stop.signal,
      onProgress: (progress) => self.postMessage({ type: "progress", progress }),
    });
    db.close(false);
    const cpu = process.threadCpuUsage();
    self.postMessage({ type: "done", result, cpuMicros: cpu.user + cpu.system });
  } catch (err) {
    db.close(false);
    if (err instanceof InvalidGazetteerData) self.postMessage({ type: "invalid", message: err.message, line: err.line, entry: err.entry });
    else self.postMessage({ type: "failed", message: String((err as Error)?.message ?? err) });
  }
}

self.onmessage = (event: MessageEvent<ImportThreadStart | { type: "abort" }>) => {
  if (event.data.type === "abort") stop.abort();
  else void run(event.data);
};

// Entry of the Bun Worker thread that writes one gazetteer import (a GeoNames file: import-file.ts
// writeGeonamesFile; a point tileset: import-tileset.ts writeTilesetPoints) with a connection of its
// own, so that the thread answering HTTP never waits on SQLite during an import.
// Protocol: receive { type: "start", gazetteerFile, job, mode }, then post
// { type: "progress", progress } now and then, and at the end { type: "done", result, cpuMicros } (this
// thread's CPU time), { type: "invalid", message, line, entry } for a file that cannot be imported, or
// { type: "failed", message }. { type: "abort" } stops the import (server shutdown); nothing is written.
import { InvalidGazetteerData } from "./dump-reader";
import { writeGeonamesFile, type ImportProgress } from "./import-file";
import { writeTilesetPoints, type TilesetPointsJob } from "./import-tileset";
import { openWriter } from "./store";
import type { WriteMode } from "./writer";

declare const self: Worker;

/** A GeoNames dump at `path`, into `dataset` (else the format's default). */
export interface GeonamesFileJob {
  kind: "geonames";
  path: string;
  dataset?: string;
  label: string;
}

export type ImportJob = GeonamesFileJob | TilesetPointsJob;

export interface ImportThreadStart {
  type: "start";
  gazetteerFile: string;
  job: ImportJob;
  mode: WriteMode;
}

const stop = new AbortController();

async function run(m: ImportThreadStart) {
  const db = openWriter(m.gazetteerFile);
  try {
    const common = { mode: m.mode, signal: stop.signal, onProgress: (progress: ImportProgress) => self.postMessage({ type: "progress", progress }) };
    const { job } = m;
    const result = job.kind === "geonames" ? await writeGeonamesFile(db, job.path, { ...common, dataset: job.dataset, label: job.label }) : await writeTilesetPoints(db, job, common);
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

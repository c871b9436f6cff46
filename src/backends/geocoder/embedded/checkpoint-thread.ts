// Entry of the Worker thread that copies the gazetteer's write-ahead log into the file after a write
// (a passive checkpoint: readers and a next import go on meanwhile), so an import returns as soon as its
// data is committed and searchable instead of after copying a million places' pages a second time.
// Protocol: receive { path }, post { type: "done" } or { type: "failed", message }.
import { Database } from "bun:sqlite";

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ path: string }>) => {
  try {
    // Never creates the file: a gazetteer removed meanwhile (a test's data dir) has nothing to copy.
    const db = new Database(event.data.path, { readwrite: true, create: false });
    try {
      db.exec("PRAGMA busy_timeout = 10000");
      db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    } finally {
      db.close(false);
    }
    self.postMessage({ type: "done" });
  } catch (err) {
    self.postMessage({ type: "failed", message: String((err as Error)?.message ?? err) });
  }
};

// The embedded gazetteer of one data directory: its file is built from the built-in data on first use
// (on a thread of its own, into a temp file renamed into place, so requests never wait on it and a
// crash never leaves half a gazetteer),
// answers geocoding queries through the Geocoder interface, and takes imports one at a time on a
// second connection so searches keep answering from the last committed data meanwhile.
import type { Database } from "bun:sqlite";
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AppError } from "../../../errors";
import type { Logger } from "../../../log";
import type { ChangeBus } from "../../../domain/changes/bus";
import type { Geocoder } from "../types";
import { buildInThread } from "./build-in-thread";
import { clearBuildFailure, noteBuildFailure } from "./build-failure";
import { checkpointInThread } from "./checkpoint-in-thread";
import { createSearch } from "./search";
import { upgradeGazetteerFile } from "./upgrade";
import { gazetteerPath, listDatasets, metaValue, openGazetteerFile, openWriter, SCHEMA_VERSION, type DatasetInfo } from "./store";

export type GazetteerState = "absent" | "building" | "ready" | "failed";

const RETRY_AFTER_S = 5;
const RETRY_FAILED_BUILD_MS = 60_000;
/** The most of the file a reader maps (the pages touched count as shared, reclaimable memory). */
const READER_MMAP_BYTES = 4 * 1024 ** 3;

export interface GazetteerStatus {
  state: GazetteerState;
  file: string;
  bytes: number | null;
  datasets: DatasetInfo[];
  built_at: string | null;
  build_ms: number | null;
  error?: string;
}

const removeBuild = (temp: string) => {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(temp + suffix, { force: true });
};

/** The temp files of builds in `path`'s directory, with the process that writes each (none when it cannot be read). */
function buildFiles(path: string): { file: string; pid: number }[] {
  const dir = dirname(path);
  const prefix = `${basename(path)}.building-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    // A DATA_DIR gone or unreadable is the storage check's to report (health), not an error here.
    return [];
  }
  return names
    .map((name) => ({ file: join(dir, name), pid: name.startsWith(prefix) ? Number(name.slice(prefix.length).split("-")[0]) : NaN }))
    .filter((b) => Number.isInteger(b.pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Temp files of builds whose process died (killed mid-build): they would only take disk space. */
function removeAbandonedBuilds(path: string) {
  for (const b of buildFiles(path)) if (b.pid !== process.pid && !alive(b.pid)) rmSync(b.file, { force: true });
}

/**
 * Whether another process (the supervisor of a cluster, whose HTTP workers only open the file once it
 * is there) or another gazetteer of this one is building the file now.
 */
const builtElsewhere = (path: string, ownBuild: string | null) => buildFiles(path).some((b) => !(ownBuild && b.file.startsWith(ownBuild)) && alive(b.pid));

/**
 * `changes` carries imports between processes (the CLI, other workers): an import publishes a
 * gazetteer change, and a change heard from elsewhere refreshes this process's attributions and caches.
 */
export function createGazetteer(opts: { dataDir: string; log: Logger; changes?: ChangeBus }) {
  const path = gazetteerPath(opts.dataDir);
  let state: GazetteerState = "absent";
  let reader: Database | null = null;
  let search: ReturnType<typeof createSearch> | null = null;
  let building: Promise<void> | null = null;
  /** the temp file of a build in progress */
  let buildingAt: string | null = null;
  let closed = false;
  const stopBuild = new AbortController();
  let buildMs: number | null = null;
  let failure: string | undefined;
  let failedAt = 0;
  let importing = false;
  // The checkpoints started after writes, chained (see checkpointAfterWrite).
  let settling: Promise<void> = Promise.resolve();
  const listeners: (() => void)[] = [];
  let attributions = new Map<string, string>();

  function openReader() {
    reader = openGazetteerFile(path);
    // A search joins hundreds of names to their places at random spots of a file that can be gigabytes:
    // mapped, those reads are page faults served from the OS cache instead of a read() call each.
    reader.exec(`PRAGMA mmap_size = ${READER_MMAP_BYTES}`);
    attributions = new Map(listDatasets(reader).map((d) => [d.name, d.attribution]));
    search = createSearch(reader, {
      attributionOf: (datasets) => {
        const texts = [...new Set((datasets.length ? datasets : [...attributions.keys()]).map((d) => attributions.get(d) ?? d))];
        return `Geocoding by Mapstead's embedded gazetteer; data ${texts.join("; ")}`;
      },
    });
    state = "ready";
  }

  const current = () => (existsSync(path) ? (() => {
    const db = openGazetteerFile(path, { readonly: true });
    try {
      return metaValue(db, "schema_version") === SCHEMA_VERSION;
    } finally {
      db.close(false);
    }
  })() : false);

  /** Starts (once) opening or building the file; resolves when it is ready or has failed. */
  function start(): Promise<void> {
    if (state === "ready") return Promise.resolve();
    // A build that failed (a full disk, say) is tried again after a pause, not by every request: each
    // try costs seconds of CPU and its disk space again.
    if (state === "failed" && building === null && Date.now() - failedAt < RETRY_FAILED_BUILD_MS) return Promise.resolve();
    building ??= (async () => {
      try {
        if (!current() && existsSync(path) && (await upgradeGazetteerFile(path))) opts.log.info("embedded gazetteer upgraded in place, imported datasets kept", { file: path });
        if (!current()) {
          state = "building";
          removeAbandonedBuilds(path);
          const temp = (buildingAt = `${path}.building-${process.pid}-${Date.now()}`);
          opts.log.info("building the embedded gazetteer from the built-in data", { file: path });
          // Created now (an empty file is an empty SQLite database) so that other processes see the
          // build from its first moment, before the thread has started.
          writeFileSync(temp, "");
          try {
            buildMs = await buildInThread(temp, stopBuild.signal);
            // Another process sharing DATA_DIR may have finished first; its file is as good as ours.
            if (current()) rmSync(temp, { force: true });
            else renameSync(temp, path);
          } finally {
            removeBuild(temp);
            buildingAt = null;
          }
          opts.log.info("embedded gazetteer built", { ms: buildMs });
        }
        clearBuildFailure(path);
        if (!closed) openReader();
      } catch (err) {
        building = null;
        if (closed) return;
        state = "failed";
        failedAt = Date.now();
        failure = err instanceof Error ? err.message : String(err);
        opts.log.error("embedded gazetteer could not be built", { error: failure, fix: "free space in DATA_DIR or make it writable; the server tries again a minute later, on the next geocoding request" });
        noteBuildFailure(path, failure);
      }
    })();
    return building;
  }

  function changed() {
    if (reader) attributions = new Map(listDatasets(reader).map((d) => [d.name, d.attribution]));
    for (const l of listeners) l();
  }
  const stopListening = opts.changes?.on((change) => {
    if (change.kind === "gazetteer") changed();
  });

  function ready(): NonNullable<typeof search> {
    // A file already built opens at once; only a build makes callers wait.
    if (state === "absent" && current()) openReader();
    if (state === "ready" && search) return search;
    void start();
    if (state === "failed")
      throw new AppError(503, "GEOCODER_UNAVAILABLE", `The embedded gazetteer could not be built (${failure}); this is a server-side problem, not one with your request or API key`, undefined, { "retry-after": String(RETRY_FAILED_BUILD_MS / 1000) });
    throw new AppError(503, "GEOCODER_UNAVAILABLE", "The embedded gazetteer is being built from the built-in data (it takes a few seconds after the first start); try again shortly", undefined, {
      "retry-after": String(RETRY_AFTER_S),
    });
  }

  const geocoder: Geocoder = {
    forward: async (q) => ready().forward(q),
    reverse: async (q) => ready().reverse(q),
    autocomplete: async (q) => ready().autocomplete(q),
    onChange: (listener) => void listeners.push(listener),
  };

  /**
   * Runs `write` inside the import lock, once the file is ready; afterwards searches see the new data
   * and cached answers are dropped. A second import while one runs is 409 IMPORT_IN_PROGRESS. `write`
   * opens its own connection to `path` (a thread may: import-in-thread.ts), with wal_autocheckpoint 0.
   */
  async function withWriteLock<T>(write: () => Promise<T>): Promise<T> {
    if (importing) throw new AppError(409, "IMPORT_IN_PROGRESS", "Another gazetteer import is running; wait for it to finish", undefined, { "retry-after": "10" });
    importing = true;
    try {
      await start();
      if (state !== "ready") throw new AppError(503, "GEOCODER_UNAVAILABLE", `The embedded gazetteer could not be built (${failure})`);
      try {
        return await write();
      } finally {
        checkpointAfterWrite();
        // Publishing tells this process's listeners too (changed() runs through the bus).
        if (opts.changes) opts.changes.publish({ kind: "gazetteer" });
        else changed();
      }
    } finally {
      importing = false;
    }
  }

  /** withWriteLock with a connection of this thread's. */
  const withWriter = <T>(write: (db: Database) => Promise<T>): Promise<T> =>
    withWriteLock(async () => {
      const db = openWriter(path);
      try {
        return await write(db);
      } finally {
        db.close(false);
      }
    });

  /**
   * Copies the write-ahead log into the file on a thread of its own, so a write returns once committed:
   * for a million places that copy is most of a second, which the import no longer waits for (and a
   * single-process server no longer stops answering for).
   */
  function checkpointAfterWrite() {
    const done = checkpointInThread(path).then((problem) => {
      if (problem && !closed) opts.log.warn("gazetteer checkpoint deferred", { error: problem });
    });
    settling = settling.then(() => done);
  }

  /** Resolves once the checkpoints of the writes so far are done (the CLI waits for it before exiting; tests and benches too). */
  const settled = () => settling;

  function status(): GazetteerStatus {
    let bytes: number | null = null;
    try {
      bytes = statSync(path).size;
    } catch {
      bytes = null;
    }
    return {
      state: state === "absent" && !current() && builtElsewhere(path, buildingAt) ? "building" : state,
      file: path,
      bytes,
      datasets: reader ? listDatasets(reader) : [],
      built_at: reader ? metaValue(reader, "built_at") : null,
      build_ms: buildMs,
      ...(failure && state === "failed" ? { error: failure } : {}),
    };
  }

  function close() {
    closed = true;
    stopBuild.abort();
    stopListening?.();
    // A build cut short by shutdown leaves nothing behind; the next start builds again.
    if (buildingAt) removeBuild(buildingAt);
    reader?.close(false);
    reader = null;
    search = null;
    if (state === "ready") state = "absent";
  }

  return { geocoder, start, status, withWriteLock, withWriter, settled, close, path };
}

export type Gazetteer = ReturnType<typeof createGazetteer>;

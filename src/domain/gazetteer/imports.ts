// Gazetteer imports asked for over the API run as jobs on the persistent queue (src/jobs/), never in
// the request: an upload is moved to DATA_DIR/gazetteer-uploads and queued, a tileset import is checked
// and queued; the process that runs jobs (the server, or a cluster's supervisor) imports it, keeping
// the job's progress and figures in its row for the status route. One import at a time, across every
// process of the data directory: a second is 409 IMPORT_IN_PROGRESS. `mapstead gazetteer import` takes
// the same turn: it writes a running job row of its own (beating like a runner's) for its import, so an
// API import meanwhile is refused, and it refuses to start while an API import is queued or running.
import type { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../../context";
import { BadRequest, Conflict, NotFound } from "../../errors";
import { createJobQueue, HEARTBEAT_MS, STALE_AFTER_MS, type JobRow } from "../../jobs/queue";
import { createJobRunner, type JobRunner } from "../../jobs/runner";
import type { Gazetteer } from "../../backends/geocoder/embedded/gazetteer";
import { importGeonamesFile, InvalidGazetteerData, type ImportProgress, type ImportResult } from "../../backends/geocoder/embedded/import-file";
import { findPointTileset, importTilesetPoints } from "../../backends/geocoder/embedded/import-tileset";
import type { WriteMode } from "../../backends/geocoder/embedded/writer";

export const IMPORT_JOB = "gazetteer-import";
const UPLOAD_DIR = "gazetteer-uploads";
/** Interrupted this many times (server stopped mid-import), a job fails instead of starting over again. */
const MAX_ATTEMPTS = 3;
const CLI_STOPPED = "The command-line import (mapstead gazetteer import) stopped before it finished; nothing of it was written; run it again";

export type ImportSource = { type: "file"; path: string; filename: string; bytes: number } | { type: "tileset"; tileset: string; name_field: string };

interface ImportPayload {
  source: ImportSource;
  dataset: string | null;
  mode: WriteMode;
  counts?: { lines: number; places: number; names: number };
  /** what the import is at (ImportProgress.stage), while it runs */
  stage?: ImportProgress["stage"];
  result?: ImportResult;
  /** where a bad file is wrong */
  details?: { line?: number; entry?: string };
  /** run by `mapstead gazetteer import` in its own process, not by a job runner */
  cli?: true;
}

export interface ImportStatus {
  id: number;
  state: JobRow["state"];
  progress: number;
  source: { type: "file"; filename: string; bytes: number } | { type: "tileset"; tileset: string; name_field: string };
  dataset: string | null;
  mode: WriteMode;
  lines: number;
  places: number;
  names: number;
  /** while running: reading the file, or indexing after its last row; null otherwise */
  stage: "reading" | "indexing" | null;
  result: ImportResult | null;
  error: string | null;
  details: { line?: number; entry?: string } | null;
  created_at: string;
  finished_at: string | null;
}

interface ImportRow {
  id: number;
  state: JobRow["state"];
  progress: number;
  payload: string;
  error: string | null;
  created_at: number;
  finished_at: number | null;
}

function statusOf(r: ImportRow): ImportStatus {
  const p = JSON.parse(r.payload) as ImportPayload;
  const source = p.source.type === "file" ? { type: "file" as const, filename: p.source.filename, bytes: p.source.bytes } : p.source;
  const counts = p.result ?? p.counts ?? { lines: 0, places: 0, names: 0 };
  return {
    id: r.id,
    state: r.state,
    progress: r.progress,
    source,
    dataset: p.result?.dataset ?? p.dataset,
    mode: p.mode,
    lines: counts.lines,
    places: counts.places,
    names: counts.names,
    stage: r.state === "running" ? (p.stage && p.stage !== "reading" ? "indexing" : "reading") : null,
    result: p.result ?? null,
    error: r.error,
    details: p.details ?? null,
    created_at: new Date(r.created_at).toISOString(),
    finished_at: r.finished_at ? new Date(r.finished_at).toISOString() : null,
  };
}

export function createGazetteerImports(ctx: AppContext, gazetteer: () => Gazetteer) {
  const sqlite: Database = ctx.sqlite;
  const queue = createJobQueue(sqlite);
  let runner: JobRunner | null = null;
  const COLUMNS = "SELECT id, state, progress, payload, error, created_at, finished_at FROM jobs WHERE kind = ?1";
  const byId = sqlite.query<ImportRow, [string, number]>(`${COLUMNS} AND id = ?2`);
  const recent = sqlite.query<ImportRow, [string, number]>(`${COLUMNS} ORDER BY id DESC LIMIT ?2`);
  const active = sqlite.query<{ id: number }, [string]>("SELECT id FROM jobs WHERE kind = ?1 AND state IN ('queued', 'running') LIMIT 1");

  // A command-line import whose process died (kill -9) stops beating: its row is closed here, so that the
  // next import need not wait for a server's job runner (there may be none) to notice.
  const closeDeadCliImports = sqlite.query<null, [string, string, number]>(
    "UPDATE jobs SET state = 'failed', error = ?2, finished_at = ?3 WHERE kind = ?1 AND state = 'running' AND json_extract(payload, '$.cli') AND (heartbeat_at IS NULL OR heartbeat_at < ?3 - " +
      STALE_AFTER_MS +
      ")",
  );

  function refuseWhileImporting() {
    closeDeadCliImports.run(IMPORT_JOB, CLI_STOPPED, Date.now());
    const running = active.get(IMPORT_JOB);
    if (running)
      throw new Conflict(`Gazetteer import ${running.id} is queued or running; wait for it to finish (GET /api/v1/gazetteer/imports/${running.id})`, "IMPORT_IN_PROGRESS", { "retry-after": "10" });
  }

  /** Queues the job in one immediate transaction, so two requests cannot both pass the check. */
  function enqueue(payload: ImportPayload): ImportStatus {
    const id = sqlite.transaction(() => {
      refuseWhileImporting();
      return queue.enqueue(IMPORT_JOB, payload as unknown as Record<string, unknown>);
    }).immediate();
    runner?.wake();
    return statusOf(byId.get(IMPORT_JOB, id)!);
  }

  /** Uploads no queued or running job will read (their import ended while this process was down). */
  function removeAbandonedUploads() {
    const dir = join(ctx.config.dataDir, UPLOAD_DIR);
    if (!existsSync(dir)) return;
    const wanted = new Set(
      sqlite
        .query<{ payload: string }, [string]>("SELECT payload FROM jobs WHERE kind = ?1 AND state IN ('queued', 'running')")
        .all(IMPORT_JOB)
        .map((r) => (JSON.parse(r.payload) as ImportPayload).source)
        .flatMap((s) => (s.type === "file" ? [s.path] : [])),
    );
    for (const name of readdirSync(dir)) if (!wanted.has(join(UPLOAD_DIR, name))) rmSync(join(dir, name), { force: true, recursive: true });
  }

  /** An import's progress, counts and stage on its job row, where every process reads them. */
  function recordProgress(id: number, payload: ImportPayload, p: ImportProgress) {
    queue.progress(id, p.totalBytes ? Math.min(0.99, p.bytesRead / p.totalBytes) : 0);
    queue.setPayload(id, { ...payload, counts: { lines: p.lines, places: p.places, names: p.names }, stage: p.stage });
  }

  async function run(job: JobRow, signal: AbortSignal): Promise<void> {
    const before = job.payload as unknown as ImportPayload;
    // A job run again after an interruption reads its file again: the stage it had reached goes.
    const payload: ImportPayload = { ...before, stage: undefined };
    if (before.stage) queue.setPayload(job.id, { ...payload });
    // A command-line import's row whose process stopped beating (killed): its transaction rolled back,
    // nothing is left to run or remove (its file is the operator's), only the row to close.
    if (payload.cli) throw new Error(CLI_STOPPED);
    const upload = payload.source.type === "file" ? join(ctx.config.dataDir, payload.source.path) : null;
    const removeUpload = () => upload && rmSync(upload, { force: true });
    if (job.attempts > MAX_ATTEMPTS) {
      removeUpload();
      throw new Error(`The import was interrupted ${MAX_ATTEMPTS} times (server stopped or crashed); start it again`);
    }
    const onProgress = (p: ImportProgress) => recordProgress(job.id, payload, p);
    const common = { dataset: payload.dataset ?? undefined, mode: payload.mode, onProgress, signal };
    try {
      const result =
        payload.source.type === "file"
          ? await importGeonamesFile(gazetteer(), upload!, { ...common, label: payload.source.filename })
          : await importTilesetPoints(gazetteer(), { sqlite, dataDir: ctx.config.dataDir }, { ...common, tileset: payload.source.tileset, nameField: payload.source.name_field });
      // The stage stays past indexing until the runner marks the job done, so a reader never sees it go back.
      queue.setPayload(job.id, { ...payload, result, stage: "done" });
      removeUpload();
    } catch (err) {
      // Stopped by a shutdown: the runner puts the job back in the queue, and the upload stays for it.
      if (signal.aborted) throw err;
      removeUpload();
      if (err instanceof InvalidGazetteerData) queue.setPayload(job.id, { ...payload, ...(err.line !== undefined ? { details: { line: err.line, ...(err.entry ? { entry: err.entry } : {}) } } : {}) });
      throw err;
    }
  }

  return {
    /** Runs queued imports in this process (the server, or a cluster's supervisor); stopped on shutdown. */
    startWorker() {
      if (runner) return;
      removeAbandonedUploads();
      runner = createJobRunner(queue, IMPORT_JOB, run, ctx.log);
      runner.start();
      ctx.onShutdown(() => runner?.stop());
    },

    refuseWhileImporting,

    /**
     * Takes the import turn for `mapstead gazetteer import` (409 IMPORT_IN_PROGRESS while another import
     * is queued or running): a running job row that this process keeps beating until `finish`.
     */
    claimForCli(source: ImportSource, opts: { dataset?: string; mode: WriteMode }) {
      const payload: ImportPayload = { source, dataset: opts.dataset ?? null, mode: opts.mode, cli: true };
      const id = sqlite.transaction(() => {
        refuseWhileImporting();
        return queue.enqueue(IMPORT_JOB, payload as unknown as Record<string, unknown>, { running: true });
      }).immediate();
      const beat = setInterval(() => queue.heartbeat(id), HEARTBEAT_MS);
      return {
        id,
        progress(p: ImportProgress) {
          recordProgress(id, payload, p);
        },
        done(result: ImportResult) {
          clearInterval(beat);
          // In one write: between the two, a reader saw a running import without its stage ("reading" again).
          sqlite.transaction(() => {
            queue.setPayload(id, { ...payload, result });
            queue.done(id);
          })();
        },
        failed(err: unknown) {
          clearInterval(beat);
          if (err instanceof InvalidGazetteerData && err.line !== undefined) queue.setPayload(id, { ...payload, details: { line: err.line, ...(err.entry ? { entry: err.entry } : {}) } });
          queue.failed(id, String((err as Error)?.message ?? err));
        },
      };
    },

    /** Queues the import of an uploaded file (absolute path of the received temp file); it is moved away from uploads/. */
    importFile(upload: { path: string; filename: string; bytes: number }, opts: { dataset?: string; mode: WriteMode }): ImportStatus {
      mkdirSync(join(ctx.config.dataDir, UPLOAD_DIR), { recursive: true });
      const kept = join(UPLOAD_DIR, crypto.randomUUID());
      renameSync(upload.path, join(ctx.config.dataDir, kept));
      try {
        return enqueue({ source: { type: "file", path: kept, filename: upload.filename, bytes: upload.bytes }, dataset: opts.dataset ?? null, mode: opts.mode });
      } catch (err) {
        rmSync(join(ctx.config.dataDir, kept), { force: true });
        throw err;
      }
    },

    /** Checks the tileset and field now (a 400 answers what is wrong), then queues the import. */
    importTileset(tileset: string, nameField: string, opts: { dataset?: string; mode: WriteMode }): ImportStatus {
      try {
        findPointTileset({ sqlite }, tileset, nameField, opts.dataset);
      } catch (err) {
        if (!(err instanceof InvalidGazetteerData)) throw err;
        if (err.message.includes("does not exist")) throw new NotFound(err.message, "TILESET_NOT_FOUND", { parameter: "tileset" });
        throw new BadRequest(err.message, { parameter: err.message.includes("has no field") ? "name_field" : /dataset name|built in/.test(err.message) ? "name" : "tileset" });
        throw err;
      }
      return enqueue({ source: { type: "tileset", tileset, name_field: nameField }, dataset: opts.dataset ?? null, mode: opts.mode });
    },

    get(id: number): ImportStatus {
      const row = byId.get(IMPORT_JOB, id);
      if (!row) throw new NotFound(`Gazetteer import ${id} does not exist (finished imports are kept a week)`);
      return statusOf(row);
    },

    /** The latest imports, newest first. */
    list(limit = 20): ImportStatus[] {
      return recent.all(IMPORT_JOB, limit).map(statusOf);
    },
  };
}

export type GazetteerImports = ReturnType<typeof createGazetteerImports>;

// Tileset management: records, versions, uploads into versions, publishing, deletion, and the job
// handler that processes a version in a Worker thread. Plain TypeScript, no Elysia.
import { and, desc, eq, sql } from "drizzle-orm";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { AppContext } from "../../context";
import { tilesets, tilesetVersions } from "../../db/schema";
import { retireSlug, retiredLastVersion } from "../orgs/retired-slugs";
import { storageProblem } from "../health/storage-errors";
import { nameOrSlug } from "../orgs/display-name";
import { BadRequest, Conflict, NotFound, Unprocessable, UnsupportedMediaType } from "../../errors";
import { createJobQueue, type JobRow } from "../../jobs/queue";
import { createJobRunner, JobAborted, type JobOutcome, type JobRunner } from "../../jobs/runner";
import { ARCHIVE_FORMATS, detectFormat, type SourceFormat } from "../../tiles/detect";
import type { ProcessInput } from "../../tiles/process";
import { InvalidSource } from "../../tiles/errors";
import { geopackageTables, looksLikeGeopackage } from "../../tiles/readers/geopackage";
import { recipeProblem, type Recipe } from "../../tiles/recipe";
import type { TileFacts, TilesetWords } from "../../tiles/source";
import { progressTracker } from "../../tiles/progress-rate";
import { isSlug } from "../orgs/slug";
import type { ChangeListener, ChangePublisher } from "../changes/types";
import { headOf, type ReceivedUpload } from "./upload";
import type { TilesetLookup } from "./lookup";
import { processInWorker } from "../../jobs/worker-host";
import { refuseBadDem, refuseMixedDem } from "./dem-upload";

export const PROCESS_JOB = "tileset.process";

/**
 * Tells a GeoPackage without its application_id from an MBTiles file, and checks a GeoPackage's feature
 * tables at once (cheap: a few small tables), so one with only raster tiles or an unaccepted coordinate
 * system gets 422 rather than a failed version.
 */
function checkedSqlite(format: SourceFormat, path: string, label: string): SourceFormat {
  const kind = format === "mbtiles" && looksLikeGeopackage(path) ? "geopackage" : format;
  if (kind === "geopackage")
    try {
      geopackageTables(path, label);
    } catch (err) {
      if (err instanceof InvalidSource) throw new Unprocessable("INVALID_SOURCE_DATA", err.message);
      throw err;
    }
  return kind;
}
/** A job interrupted this many times (crashes, restarts) is given up. */
const MAX_ATTEMPTS = 3;

type TilesetRow = typeof tilesets.$inferSelect;
/** The recipe as kept with a version: what was asked, plus the uploaded file names and formats. */
type StoredRecipe = Recipe & { filename?: string; files?: { stored: string; name: string; format: SourceFormat }[] };
type VersionRow = typeof tilesetVersions.$inferSelect;
interface Org {
  id: number;
  slug: string;
}

export interface TilesetInput {
  slug: string;
  name?: string;
  description?: string;
  attribution?: string;
  visibility?: "public" | "private";
}

const iso = (ms: number) => new Date(ms).toISOString();

export function tilesetRecord(ctx: AppContext, org: Org, t: TilesetRow) {
  return {
    owner: org.slug,
    slug: t.slug,
    name: t.name,
    description: t.description,
    attribution: t.attribution,
    visibility: t.visibility,
    published_version: t.publishedVersion,
    tilejson_url: t.publishedVersion !== null ? `${ctx.config.publicUrl}/tiles/v1/${org.slug}/${t.slug}.json` : null,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

export function versionRecord(ctx: AppContext, org: Org, t: TilesetRow, v: VersionRow) {
  const facts = (v.metadata ?? null) as TileFacts | null;
  const stats = v.stats as Record<string, unknown>;
  return {
    version: v.version,
    state: v.state,
    progress: Math.round(v.progress * 1000) / 10,
    error: v.error,
    warnings: v.warnings,
    published: t.publishedVersion === v.version,
    /** when first published; until then the version's URLs answer only to the organization */
    published_at: v.publishedAt === null ? null : iso(v.publishedAt),
    source_format: v.sourceFormat,
    archive_format: v.archiveFormat,
    recipe: v.recipe as Record<string, unknown>,
    format: facts?.format ?? null,
    layers: facts?.vector_layers ?? [],
    bounds: facts?.bounds ?? null,
    center: facts?.center ?? null,
    minzoom: facts?.minzoom ?? null,
    maxzoom: facts?.maxzoom ?? null,
    encoding: facts?.encoding ?? null,
    stats: {
      features: typeof stats.features === "number" ? stats.features : 0,
      features_skipped: typeof stats.features_skipped === "number" ? stats.features_skipped : 0,
      features_repaired: typeof stats.features_repaired === "number" ? stats.features_repaired : 0,
      features_filtered: typeof stats.features_filtered === "number" ? stats.features_filtered : 0,
      dropped_by_size: (stats.dropped_by_size && typeof stats.dropped_by_size === "object" ? stats.dropped_by_size : {}) as Record<string, number>,
      features_by_layer: (stats.features_by_layer && typeof stats.features_by_layer === "object" ? stats.features_by_layer : {}) as Record<string, number>,
      tiles: typeof stats.tiles === "number" ? stats.tiles : 0,
      bytes: typeof stats.bytes === "number" ? stats.bytes : 0,
      seconds: typeof stats.seconds === "number" ? stats.seconds : null,
      phase: typeof stats.phase === "string" ? stats.phase : null,
      rate: typeof stats.rate === "number" ? stats.rate : null,
      rate_unit: typeof stats.rate_unit === "string" ? stats.rate_unit : null,
      eta_seconds: typeof stats.eta_seconds === "number" ? stats.eta_seconds : null,
    },
    tilejson_url: v.state === "ready" ? `${ctx.config.publicUrl}/tiles/v1/${org.slug}/${t.slug}@${v.version}.json` : null,
    created_at: iso(v.createdAt),
    updated_at: iso(v.updatedAt),
  };
}

export type TilesetRecord = ReturnType<typeof tilesetRecord>;
export type VersionRecord = ReturnType<typeof versionRecord>;

/** Where a version's archive lives, relative to DATA_DIR. */
const archiveRelPath = (tilesetId: number, version: number, format: "mbtiles" | "pmtiles") => join("tilesets", String(tilesetId), `v${version}.${format}`);

/** Removes a half-written archive with the scratch files beside it (feature store, journals). */
function removeTemp(tmpAbs: string) {
  const dir = dirname(tmpAbs);
  const name = basename(tmpAbs);
  for (const f of existsSync(dir) ? readdirSync(dir) : []) if (f.startsWith(name)) rmSync(join(dir, f), { force: true });
}

function removeRel(ctx: AppContext, rel: string | null | undefined) {
  // Multi-file uploads are directories.
  if (rel) rmSync(join(ctx.config.dataDir, rel), { force: true, recursive: true });
}

export type TilesetService = ReturnType<typeof createTilesetService>;

/** Built once by createServices and shared by the HTTP routes and the CLI. */
export function createTilesetService(ctx: AppContext, deps: { changes: ChangePublisher & { on(listener: ChangeListener): () => void }; lookup: TilesetLookup }) {
  const db = ctx.db;
  const queue = createJobQueue(ctx.sqlite);
  let runner: JobRunner | null = null;

  function find(org: Org, slug: string): TilesetRow {
    const t = isSlug(slug) ? db.select().from(tilesets).where(and(eq(tilesets.orgId, org.id), eq(tilesets.slug, slug))).get() : undefined;
    if (!t) throw new NotFound(`Tileset '${org.slug}/${String(slug).slice(0, 100)}' not found`, "TILESET_NOT_FOUND");
    return t;
  }

  function findVersion(org: Org, t: TilesetRow, version: number): VersionRow {
    const v = db.select().from(tilesetVersions).where(and(eq(tilesetVersions.tilesetId, t.id), eq(tilesetVersions.version, version))).get();
    if (!v) throw new NotFound(`Version ${version} of tileset '${org.slug}/${t.slug}' not found`);
    return v;
  }

  /** Runs a write of a tileset and records its change in the same transaction. */
  const writeTileset = <T>(org: Pick<Org, "slug">, t: TilesetRow, write: () => T, published?: { published: number | null }): T =>
    deps.changes.commit({ kind: "tileset", owner: org.slug, slug: t.slug, ...published }, write);

  const versionExists = ctx.sqlite.query<{ id: number }, [number]>("SELECT id FROM tileset_versions WHERE id = ?");

  /**
   * Stops `jobs`' running job once its version is gone: deleted, alone or with its tileset, by this
   * process or by another one (the CLI, an HTTP worker while the supervisor runs the job), whose
   * change the bus's watcher brings within a tick. Returns the unsubscribe.
   */
  function stopWhenDeleted(jobs: JobRunner): () => void {
    return deps.changes.on((change) => {
      if (change.kind === "tileset") jobs.abortIf((job) => !versionExists.get(Number(job.payload.versionId)));
    });
  }

  /**
   * Logs every publish and unpublish, made through the API (whichever worker answered) or the CLI.
   * Only the process running the job queue (the server, or a cluster's supervisor) listens, so each
   * gets one line; other processes' reach it through the bus's watcher.
   */
  function logPublishes(): () => void {
    return deps.changes.on((change) => {
      if (change.kind !== "tileset" || change.published === undefined) return;
      if (change.published === null) ctx.log.info("tileset unpublished", { org: change.owner, tileset: change.slug });
      else ctx.log.info("tileset published", { org: change.owner, tileset: change.slug, version: change.published });
    });
  }

  /** 409 while a published style version uses the tileset (or that version of it). */
  function refuseWhileUsed(org: Org, t: TilesetRow, version?: number) {
    const users = deps.lookup.stylesUsingTileset(org.slug, t.slug, version);
    if (users.length)
      throw new Conflict(
        `${version === undefined ? `Tileset '${org.slug}/${t.slug}'` : `Version ${version} of '${org.slug}/${t.slug}'`} is used by published style(s) ${users.slice(0, 10).join(", ")}; publish those styles without it first`,
      );
  }

  /**
   * A version's half-written archive and the scratch files beside it (`v3.mbtiles.tmp-12.features`, journals):
   * an interrupted job leaves them, and only a server's hourly sweep would find them otherwise.
   */
  function removeScratch(v: Pick<VersionRow, "tilesetId" | "version">) {
    const dir = join(ctx.config.dataDir, "tilesets", String(v.tilesetId));
    const prefix = `v${v.version}.`;
    for (const f of existsSync(dir) ? readdirSync(dir) : []) if (f.startsWith(prefix) && f.includes(".tmp-")) rmSync(join(dir, f), { force: true });
  }

  function deleteVersionFiles(v: VersionRow) {
    removeRel(ctx, v.sourcePath);
    removeRel(ctx, v.archivePath);
    removeScratch(v);
  }

  /**
   * Cancels a queued or processing version's job for good (the CLI's Ctrl-C): the version fails with
   * `message` and the job is failed, in one transaction, before any file goes, so a process killed
   * during the clean-up leaves a failed version (no server re-queues it) whose files the sweep removes.
   * Null when there was nothing to cancel (finished or deleted meanwhile).
   */
  function cancelJob(jobId: number, message: string): VersionRow | null {
    return ctx.sqlite.transaction(() => {
      const job = ctx.sqlite.query<{ payload: string }, [number]>("SELECT payload FROM jobs WHERE id = ?").get(jobId);
      if (!job) return null;
      const versionId = Number((JSON.parse(job.payload) as { versionId?: unknown }).versionId);
      const v = db.select().from(tilesetVersions).where(eq(tilesetVersions.id, versionId)).get();
      if (!v || (v.state !== "queued" && v.state !== "processing")) return null;
      db.update(tilesetVersions).set({ state: "failed", error: message, sourcePath: null, progress: 0, updatedAt: Date.now() }).where(eq(tilesetVersions.id, v.id)).run();
      queue.failed(jobId, message);
      return v;
    })();
  }

  /**
   * Files a crash can leave behind: uploads no version points at (the process died mid-upload) and
   * half-written archives. Only ones older than an hour, so a CLI import running right now is safe.
   */
  const LEFTOVER_SWEEP_MS = 10 * 60_000;

  function removeLeftovers() {
    const cutoff = Date.now() - 3_600_000;
    const old = (path: string) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Infinity) < cutoff;
    const referenced = new Set(ctx.sqlite.query<{ p: string }, []>("SELECT source_path AS p FROM tileset_versions WHERE source_path IS NOT NULL").all().map((r) => r.p));
    const uploads = join(ctx.config.dataDir, "uploads");
    for (const f of existsSync(uploads) ? readdirSync(uploads) : []) {
      if (!referenced.has(join("uploads", f)) && old(join(uploads, f))) rmSync(join(uploads, f), { force: true, recursive: true });
    }
    const archives = join(ctx.config.dataDir, "tilesets");
    for (const d of existsSync(archives) ? readdirSync(archives) : [])
      for (const f of readdirSync(join(archives, d), { withFileTypes: true }).filter((e) => e.isFile() && e.name.includes(".tmp-")))
        if (old(join(archives, d, f.name))) rmSync(join(archives, d, f.name), { force: true });
  }

  // ---- the job: one version from its upload to a servable archive -------------------------------

  async function processJob(job: JobRow, signal: AbortSignal): Promise<JobOutcome> {
    const versionId = Number(job.payload.versionId);
    const v = db.select().from(tilesetVersions).where(eq(tilesetVersions.id, versionId)).get();
    if (!v || v.state === "ready" || v.state === "failed") return; // deleted, or finished before a crash
    const t = db.select().from(tilesets).where(eq(tilesets.id, v.tilesetId)).get();
    if (!t) return;
    const update = (set: Partial<VersionRow>) => db.update(tilesetVersions).set({ ...set, updatedAt: Date.now() }).where(eq(tilesetVersions.id, versionId)).run();
    const stillThere = () => db.select({ id: tilesetVersions.id }).from(tilesetVersions).where(eq(tilesetVersions.id, versionId)).get() !== undefined;
    const org = ctx.sqlite.query<{ slug: string }, [number]>("SELECT slug FROM orgs WHERE id = ?").get(t.orgId);
    // Every outcome gets a log line naming the version (never the data, paths or recipe).
    const which = { org: org?.slug ?? null, tileset: t.slug, version: v.version, job_id: job.id };
    /** A failure the uploader can act on: the version's error, logged at warn; the job fails with it. */
    const fail = (error: string): JobOutcome => {
      update({ state: "failed", error, sourcePath: null, progress: 0 });
      ctx.log.warn("tileset version failed", { ...which, error });
      return { failed: error };
    };
    const deleted = () => ctx.log.info("tileset version deleted while processing; stopped", which);
    if (job.attempts > MAX_ATTEMPTS) {
      removeRel(ctx, v.sourcePath);
      return fail(`Processing was interrupted ${MAX_ATTEMPTS} times (server stopped or crashed); upload the data again`);
    }
    if (!v.sourcePath || !existsSync(join(ctx.config.dataDir, v.sourcePath))) {
      return fail("The uploaded file is gone from the data directory; upload it again");
    }
    update({ state: "processing", progress: 0, error: null });
    ctx.log.info("tileset version processing", { ...which, format: v.sourceFormat });
    const format = v.sourceFormat as SourceFormat;
    const recipe = v.recipe as StoredRecipe;
    // The archive kept: an uploaded archive as it is, processed data in the recipe's output format.
    const archiveFormat = format === "pmtiles" || format === "mbtiles" ? format : (recipe.output ?? "mbtiles");
    const finalRel = archiveRelPath(t.id, v.version, archiveFormat);
    const finalAbs = join(ctx.config.dataDir, finalRel);
    mkdirSync(dirname(finalAbs), { recursive: true });
    const tmpAbs = `${finalAbs}.tmp-${job.id}`;
    removeTemp(tmpAbs);
    const sourceAbs = join(ctx.config.dataDir, v.sourcePath);
    const input: ProcessInput = {
      sources: recipe.files
        ? recipe.files.map((f) => ({ path: join(sourceAbs, f.stored), format: f.format, label: f.name, fileName: f.name }))
        : [{ path: sourceAbs, format, label: recipe.filename ?? "upload", fileName: recipe.filename ?? null }],
      recipe,
      defaultLayer: t.slug,
      outPath: tmpAbs,
      attribution: t.attribution,
      name: t.name,
      description: t.description,
      memoryMb: ctx.config.tilingMemoryMb,
    };
    const track = progressTracker(Date.now());
    const outcome = await processInWorker(input, signal, (p) => {
      // a report the worker sent before it heard of a cancel or shutdown must not move the version on
      if (signal.aborted) return;
      queue.progress(job.id, p.progress);
      update({ progress: p.progress, stats: { ...track(p, Date.now()) } });
    });
    if (outcome.type === "aborted" || signal.aborted) {
      removeTemp(tmpAbs);
      if (!stillThere()) return deleted();
      // Cancelled (cancelJob failed it and its job): it stays failed, and the job is not re-queued.
      const now = db.select({ state: tilesetVersions.state }).from(tilesetVersions).where(eq(tilesetVersions.id, versionId)).get();
      if (now?.state !== "failed") update({ state: "queued", progress: 0, stats: {} });
      throw new JobAborted();
    }
    if (outcome.type === "failed") {
      removeTemp(tmpAbs);
      removeRel(ctx, v.sourcePath);
      // Deleted by another process before its change stopped the job: the failure is its files going away.
      if (!stillThere()) return deleted();
      // The raw message of an internal failure may name paths: logged at error, not shown to the uploader.
      if (!outcome.invalid) ctx.log.error("tileset processing failed", { ...which, error: outcome.message });
      return fail(
        outcome.invalid
          ? outcome.message
          : storageProblem(outcome.message) === "full"
            ? "Processing stopped: the disk holding DATA_DIR filled up. Free some space (GET /health/detailed shows how much is left), then upload again"
            : `Processing failed because of an internal error (job ${job.id}); the server log has the details`,
      );
    }
    const r = outcome.result;
    if (!stillThere()) {
      rmSync(r.archivePath, { force: true });
      return deleted();
    }
    renameSync(r.archivePath, finalAbs);
    if (r.archivePath !== input.sources[0]!.path) removeRel(ctx, v.sourcePath);
    // Read when the version becomes ready, inside the write, so an edit made during processing counts.
    const wordsNow = ctx.sqlite.query<TilesetWords, [number]>("SELECT name, description, attribution FROM tilesets WHERE id = ?");
    const ready = () =>
      update({
        state: "ready",
        progress: 1,
        archiveFormat: r.archiveFormat,
        // A zip's formats are known only now; its source is gone, so nothing dispatches on this any more.
        ...(r.sourceFormats ? { sourceFormat: r.sourceFormats.join("+") } : {}),
        archivePath: finalRel,
        sourcePath: null,
        metadata: { ...r.facts, tileset: wordsNow.get(t.id) ?? { name: t.name, description: t.description, attribution: t.attribution } } as unknown as Record<string, unknown>,
        stats: r.stats as unknown as Record<string, unknown>,
        warnings: r.warnings,
      });
    if (org) writeTileset(org, t, ready);
    else ready();
    ctx.log.info("tileset version ready", {
      ...which,
      archive_format: r.archiveFormat,
      features: r.stats.features,
      tiles: r.stats.tiles,
      bytes: r.stats.bytes,
      seconds: r.stats.seconds,
      warnings: r.warnings.length,
    });
  }

  return {
    queue,

    /** Starts processing queued versions in this process (the server); stopped on shutdown. */
    startWorker(): JobRunner {
      if (!runner) {
        removeLeftovers();
        // A crash mid-upload leaves a partial file; sweep while running too, not only at start-up.
        const sweep = setInterval(removeLeftovers, LEFTOVER_SWEEP_MS);
        sweep.unref?.();
        runner = createJobRunner(queue, PROCESS_JOB, processJob, ctx.log);
        const unwatch = [stopWhenDeleted(runner), logPublishes()];
        runner.start();
        ctx.onShutdown(() => {
          clearInterval(sweep);
          for (const off of unwatch) off();
          return runner?.stop();
        });
      }
      return runner;
    },

    /**
     * Runs one version's job in this process now (the CLI's import); `running` jobs are claimed already.
     * Aborting `opts.cancel` (Ctrl-C) cancels it for good: the version fails with the abort's reason as
     * its error, the job is not re-queued by a server, and its upload and scratch files are removed once
     * the processing thread has stopped. Says whether it was cancelled (false: it finished first).
     */
    async processNow(jobId: number, opts: { cancel?: AbortSignal } = {}): Promise<{ cancelled: boolean }> {
      const row = ctx.sqlite.query<{ id: number; kind: string; payload: string; state: JobRow["state"]; attempts: number }, [number]>("SELECT id, kind, payload, state, attempts FROM jobs WHERE id = ?").get(jobId);
      if (!row) return { cancelled: false };
      const own = createJobRunner(queue, PROCESS_JOB, processJob, ctx.log);
      // The server (or another CLI) may delete the version meanwhile.
      const unwatch = stopWhenDeleted(own);
      let cancelled: VersionRow | null = null;
      const onCancel = () => {
        cancelled = cancelJob(jobId, String(opts.cancel!.reason ?? "cancelled"));
        if (cancelled) own.abortIf(() => true);
      };
      if (opts.cancel?.aborted) onCancel();
      else opts.cancel?.addEventListener("abort", onCancel, { once: true });
      try {
        if (!cancelled) await own.runClaimed({ ...row, payload: JSON.parse(row.payload) });
      } finally {
        opts.cancel?.removeEventListener("abort", onCancel);
        unwatch();
      }
      const v = cancelled as VersionRow | null;
      if (!v) return { cancelled: false };
      removeRel(ctx, v.sourcePath);
      removeScratch(v);
      ctx.log.info("tileset version cancelled", { tileset_id: v.tilesetId, version: v.version, job_id: jobId });
      return { cancelled: true };
    },

    list(org: Org): TilesetRecord[] {
      return db.select().from(tilesets).where(eq(tilesets.orgId, org.id)).orderBy(tilesets.slug).all().map((t) => tilesetRecord(ctx, org, t));
    },

    get(org: Org, slug: string) {
      return tilesetRecord(ctx, org, find(org, slug));
    },

    create(org: Org, input: TilesetInput): TilesetRecord {
      if (!isSlug(input.slug)) throw new BadRequest(`Invalid slug '${String(input.slug).slice(0, 100)}': use 1-63 lowercase letters, digits and inner hyphens`);
      const t = db.transaction((tx) => {
        if (tx.select({ id: tilesets.id }).from(tilesets).where(and(eq(tilesets.orgId, org.id), eq(tilesets.slug, input.slug))).get())
          throw new Conflict(`Tileset '${org.slug}/${input.slug}' already exists`);
        return tx
          .insert(tilesets)
          .values({
            orgId: org.id,
            slug: input.slug,
            name: nameOrSlug(input.name, input.slug),
            description: input.description ?? "",
            attribution: input.attribution ?? "",
            visibility: input.visibility ?? "public",
            lastVersion: retiredLastVersion(tx, org.slug, "tileset", input.slug),
          })
          .returning()
          .get();
      });
      return tilesetRecord(ctx, org, t);
    },

    update(org: Org, slug: string, patch: Partial<Omit<TilesetInput, "slug">>): TilesetRecord {
      const t = find(org, slug);
      const set: Partial<TilesetRow> = { updatedAt: Date.now() };
      if (patch.name !== undefined) set.name = nameOrSlug(patch.name, t.slug);
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.attribution !== undefined) set.attribution = patch.attribution;
      if (patch.visibility !== undefined) set.visibility = patch.visibility;
      const updated = writeTileset(org, t, () => db.update(tilesets).set(set).where(eq(tilesets.id, t.id)).returning().get());
      return tilesetRecord(ctx, org, updated);
    },

    remove(org: Org, slug: string): void {
      const t = find(org, slug);
      refuseWhileUsed(org, t);
      const versions = db.select().from(tilesetVersions).where(eq(tilesetVersions.tilesetId, t.id)).all();
      writeTileset(org, t, () =>
        db.transaction((tx) => {
          retireSlug(tx, org.slug, "tileset", t.slug, t.lastVersion);
          tx.delete(tilesets).where(eq(tilesets.id, t.id)).run();
        }),
      );
      for (const v of versions) deleteVersionFiles(v);
      rmSync(join(ctx.config.dataDir, "tilesets", String(t.id)), { recursive: true, force: true });
    },

    /**
     * Turns a received upload into a queued version: detects the format (415 when unknown, 422 when
     * detectably invalid), stores the recipe, and queues the processing job in the same transaction.
     */
    async createVersion(org: Org, slug: string, upload: ReceivedUpload, recipe: Recipe, opts: { claim?: boolean } = {}): Promise<{ record: VersionRecord; jobId: number }> {
      // Each upload also clears what earlier crashed uploads left (cheap: one directory listing).
      removeLeftovers();
      let t: TilesetRow;
      try {
        t = find(org, slug);
        const problem = recipeProblem(recipe);
        if (problem) throw new BadRequest(`Invalid recipe: ${problem}`);
        const detect = async (path: string, filename: string | null, contentType: string | null): Promise<SourceFormat> => {
          const detected = detectFormat(await headOf(path), { contentType, filename, size: statSync(path).size });
          if (detected.format !== null) return checkedSqlite(detected.format, path, filename ?? "upload");
          if (detected.invalid) throw new Unprocessable("INVALID_SOURCE_DATA", `${filename ?? "upload"}: ${detected.reason}`);
          throw new UnsupportedMediaType(
            `Unsupported upload${upload.files ? ` ${filename}` : ""}: ${detected.reason}. Send GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, a zipped Shapefile, FlatGeobuf, GeoPackage, MBTiles or PMTiles, or elevation as GeoTIFF or SRTM .hgt (zipped or not)`,
          );
        };
        const stored: StoredRecipe = { ...recipe };
        let format: string;
        if (upload.files) {
          stored.files = [];
          for (const f of upload.files) {
            const fileFormat = await detect(join(upload.path, f.stored), f.name, f.contentType);
            if (ARCHIVE_FORMATS.includes(fileFormat)) throw new Unprocessable("INVALID_SOURCE_DATA", `${f.name}: an MBTiles or PMTiles archive must be uploaded alone, not with other files`);
            await refuseBadDem(fileFormat, join(upload.path, f.stored), f.name, recipe);
            stored.files.push({ stored: f.stored, name: f.name.replace(/^.*[\\/]/, "").slice(0, 200), format: fileFormat });
          }
          refuseMixedDem(stored.files.map((f) => f.format));
          format = [...new Set(stored.files.map((f) => f.format))].join("+");
        } else {
          const single = await detect(upload.path, upload.filename, upload.contentType);
          await refuseBadDem(single, upload.path, upload.filename, recipe);
          format = single;
          if (upload.filename) stored.filename = upload.filename.replace(/^.*[\\/]/, "").slice(0, 200);
        }
        const result = ctx.sqlite.transaction(() => {
          const next = db
            .update(tilesets)
            .set({ lastVersion: sql`${tilesets.lastVersion} + 1`, updatedAt: Date.now() })
            .where(eq(tilesets.id, t.id))
            .returning({ n: tilesets.lastVersion })
            .get();
          if (!next) throw new NotFound(`Tileset '${org.slug}/${slug}' not found`, "TILESET_NOT_FOUND");
          const v = db
            .insert(tilesetVersions)
            .values({ tilesetId: t.id, version: next.n, state: "queued", sourceFormat: format, sourcePath: upload.relativePath, recipe: stored as Record<string, unknown>, stats: { bytes: upload.bytes } })
            .returning()
            .get();
          const jobId = queue.enqueue(PROCESS_JOB, { versionId: v.id }, { running: opts.claim });
          return { v, jobId };
        })();
        runner?.wake();
        return { record: versionRecord(ctx, org, t, result.v), jobId: result.jobId };
      } catch (err) {
        rmSync(upload.path, { force: true, recursive: true });
        throw err;
      }
    },

    listVersions(org: Org, slug: string): VersionRecord[] {
      const t = find(org, slug);
      return db
        .select()
        .from(tilesetVersions)
        .where(eq(tilesetVersions.tilesetId, t.id))
        .orderBy(desc(tilesetVersions.version))
        .all()
        .map((v) => versionRecord(ctx, org, t, v));
    },

    /** A ready version's archive on disk (the published one, else the newest ready one, when no version is given). */
    archiveOf(org: Org, slug: string, version?: number): { version: number; path: string; format: "mbtiles" | "pmtiles"; facts: TileFacts } {
      const t = find(org, slug);
      let v: VersionRow | undefined;
      if (version !== undefined) v = findVersion(org, t, version);
      else if (t.publishedVersion !== null) v = findVersion(org, t, t.publishedVersion);
      else
        v = db
          .select()
          .from(tilesetVersions)
          .where(and(eq(tilesetVersions.tilesetId, t.id), eq(tilesetVersions.state, "ready")))
          .orderBy(desc(tilesetVersions.version))
          .get();
      if (!v) throw new NotFound(`Tileset '${org.slug}/${t.slug}' has no ready version`);
      if (v.state !== "ready" || !v.archivePath) throw new Conflict(`Version ${v.version} of '${org.slug}/${t.slug}' is ${v.state}; only ready versions have an archive`);
      return { version: v.version, path: join(ctx.config.dataDir, v.archivePath), format: v.archiveFormat as "mbtiles" | "pmtiles", facts: v.metadata as unknown as TileFacts };
    },

    getVersion(org: Org, slug: string, version: number): VersionRecord {
      const t = find(org, slug);
      return versionRecord(ctx, org, t, findVersion(org, t, version));
    },

    deleteVersion(org: Org, slug: string, version: number): void {
      const t = find(org, slug);
      const v = findVersion(org, t, version);
      if (t.publishedVersion === version)
        throw new Conflict(`Version ${version} is the published version of '${org.slug}/${t.slug}'; publish another version or unpublish first`);
      refuseWhileUsed(org, t, version);
      writeTileset(org, t, () => db.delete(tilesetVersions).where(eq(tilesetVersions.id, v.id)).run());
      deleteVersionFiles(v);
    },

    publish(org: Org, slug: string, version: number): TilesetRecord {
      const t = find(org, slug);
      const v = findVersion(org, t, version);
      if (v.state !== "ready")
        throw new Conflict(
          v.state === "failed"
            ? `Version ${version} failed processing and cannot be published: ${v.error ?? ""}`.trim()
            : `Version ${version} is ${v.state}; wait until its state is ready, then publish`,
        );
      const at = Date.now();
      const updated = writeTileset(
        org,
        t,
        () => {
          // The first publish makes the version's own URLs public (for a public tileset) and cacheable.
          if (v.publishedAt === null) db.update(tilesetVersions).set({ publishedAt: at }).where(eq(tilesetVersions.id, v.id)).run();
          return db.update(tilesets).set({ publishedVersion: version, updatedAt: at }).where(eq(tilesets.id, t.id)).returning().get();
        },
        { published: version },
      );
      return tilesetRecord(ctx, org, updated);
    },

    unpublish(org: Org, slug: string): TilesetRecord {
      const t = find(org, slug);
      const updated = writeTileset(org, t, () => db.update(tilesets).set({ publishedVersion: null, updatedAt: Date.now() }).where(eq(tilesets.id, t.id)).returning().get(), { published: null });
      return tilesetRecord(ctx, org, updated);
    },
  };
}

// `mapstead tilesets create|list|import|update|export|publish|unpublish|delete`: tilesets from the machine itself, for
// air-gapped bulk loads. `import` copies the file into DATA_DIR, processes it in this process (a running
// server sees the result within seconds) and draws a progress bar with rate and ETA.
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { copyInputFile, inputFileProblem } from "./input-file";
import { parseJsonText } from "../json-text";
import { basename, dirname, join, resolve } from "node:path";
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, dim, green, print, printErr, red, visibilityNote, yellow } from "./output";
import { parse } from "./args";
import { withContext } from "./runtime";
import type { AppContext } from "../context";
import { NotFound } from "../errors";
import { orgBySlug } from "../domain/orgs/service";
import { unknownOrgWords } from "./unknown-org";
import { isVersion } from "../domain/orgs/versioned-slug";
import type { VersionRecord } from "../domain/tilesets/service";
import { exportArchive, type ArchiveFormat } from "../tiles/export";
import { recipeProblem, type Recipe } from "../tiles/recipe";
import { MAX_FILES, storedName, type ReceivedUpload } from "../domain/tilesets/upload";
import { storedDemTileset } from "../backends/elevation/dem-setting";

const HELP = `Usage:
  mapstead tilesets create --org ORG --slug SLUG [--name NAME] [--description TEXT] [--attribution TEXT] [--private] [settings]
  mapstead tilesets list --org ORG [--json] [settings]
  mapstead tilesets import --org ORG --slug SLUG FILE... [--create [--name NAME] [--attribution TEXT] [--private]] [--publish] [recipe options] [settings]
  mapstead tilesets update --org ORG --slug SLUG [--private|--public] [--name NAME] [--description TEXT] [--attribution TEXT] [--json] [settings]
  mapstead tilesets export --org ORG --slug SLUG [--version N] [--format mbtiles|pmtiles] OUT [settings]
  mapstead tilesets publish --org ORG --slug SLUG --version N [settings]
  mapstead tilesets unpublish --org ORG --slug SLUG [settings]
  mapstead tilesets delete --org ORG --slug SLUG [--version N] [settings]

create   Creates an empty tileset (public unless --private).
list     Lists the organization's tilesets with their published and latest versions.
import   Loads FILE (or several, one layer each, named after the file) into a new version and
         processes it here, showing progress per phase, rate and ETA.
         FILE may be GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, a zipped Shapefile
         (or a zip of several layers), FlatGeobuf, GeoPackage (one layer per feature table), MBTiles or
         PMTiles (detected from the content), or elevation: GeoTIFF
         (lon/lat) or SRTM .hgt (named like N46E007.hgt, or zipped), built into a raster-DEM tileset.
         --create makes the tileset first when it does not exist (with --name, --description,
         --attribution and --private as for create: --attribution is the data credit maps show,
         e.g. "© OpenStreetMap contributors"); --publish publishes the version once it is ready.
         Recipe options: --layer NAME, --minzoom N, --maxzoom N, --simplification X,
         --include a,b,c | --exclude a,b,c, --rank ATTR, --point-spacing PX, --tiny drop|keep,
         --buffer PX, --filter JSON, --types JSON, --cluster JSON (as in a recipe file, e.g.
         --filter '[">=", "population", 100000]' --types '{"population": "number"}'
         --cluster '{"radius": 40}'), --layers JSON (settings per file name, or path in a zip:
         --layers '{"places.csv": {"layer": "towns"}}'), --encoding terrarium|mapbox (raster DEM: the RGB
         encoding of an imported MBTiles/PMTiles of elevation tiles, or the one to build), --tile-bytes N, --output mbtiles|pmtiles, --recipe FILE.json (the whole
         recipe, see the README; options given beside it win)
update   Changes what create set: --private (its URLs answer only to the organization's sessions and
         keys) or --public, --name, --description, --attribution. Same rules as the API's PATCH; a
         running server sees the change within a second. --json prints the tileset as the API does.
export   Writes a ready version (default: the published one, else the newest ready one) to the file
         OUT as MBTiles or PMTiles (default: from OUT's extension, else the archive's own format),
         e.g. for a CDN. OUT must not exist yet.
publish  Points the stable TileJSON at a ready version. A version's own URLs answer only to its
         organization until its first publish.
unpublish  Stops serving the stable TileJSON (404 until a version is published again); versioned
         URLs of versions published before keep working.
delete   Deletes one version (not the published one) with --version, or the whole tileset.

Exit status: 0 done, 1 failed (the message says why), 2 usage error.

Settings:
${settingsHelp()}`;

const fmt = (n: number) => n.toLocaleString("en-US");

function duration(s: number): string {
  if (!Number.isFinite(s) || s < 0) return "--:--";
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${String(sec).padStart(2, "0")}` : `${m}:${String(sec).padStart(2, "0")}`;
}

/** Progress bar on stderr: redrawn in place on a terminal, one line every few seconds otherwise. */
export function progressBar() {
  const tty = process.stderr.isTTY === true;
  const started = performance.now();
  let lastLine = 0;
  let lastPhase = "";
  const samples: { t: number; tiles: number; features: number }[] = [];
  return {
    update(v: VersionRecord) {
      const now = performance.now();
      const p = v.progress / 100;
      samples.push({ t: now, tiles: v.stats.tiles, features: v.stats.features });
      while (samples.length > 2 && now - samples[0]!.t > 5000) samples.shift();
      const first = samples[0]!;
      const dt = (now - first.t) / 1000;
      const phase = v.stats.phase ?? v.state;
      const rate =
        phase === "tiling" && dt > 0
          ? `${fmt(Math.round((v.stats.tiles - first.tiles) / dt))} tiles/s`
          : phase === "reading" && dt > 0
            ? `${fmt(Math.round((v.stats.features - first.features) / dt))} features/s`
            : "";
      const elapsed = (now - started) / 1000;
      const eta = p > 0.02 ? duration((elapsed * (1 - p)) / p) : "--:--";
      const width = 24;
      const filled = Math.round(p * width);
      const line = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${v.progress.toFixed(1).padStart(5)}%  ${phase.padEnd(10)} ${fmt(v.stats.features)} features  ${fmt(v.stats.tiles)} tiles  ${rate}  ETA ${eta}`;
      if (tty) process.stderr.write(`\r\x1b[2K${line}`);
      else if (phase !== lastPhase || now - lastLine > 3000) {
        process.stderr.write(line + "\n");
        lastLine = now;
      }
      lastPhase = phase;
    },
    done() {
      if (tty) process.stderr.write("\n");
    },
  };
}

function orgOf(ctx: AppContext, slug: string) {
  const org = orgBySlug(ctx.db, slug);
  if (!org) throw new NotFound(unknownOrgWords(ctx.db, slug));
  return org;
}

const list = (s: string | undefined) =>
  s
    ?.split(",")
    .map((x) => x.trim())
    .filter(Boolean);

function numberOption(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number`);
  return n;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** What each JSON recipe option looks like, for its usage error. */
const JSON_EXAMPLE = { filter: `'[">=", "population", 100000]'`, types: `'{"population": "number"}'`, cluster: `'{"radius": 40}'`, layers: `'{"places.csv": {"layer": "towns"}}'` } as const;

export const tilesetsCommand: CliCommand = {
  name: "tilesets",
  summary: "Create, list, import, update, publish and delete tilesets",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      org: { type: "string" },
      slug: { type: "string" },
      name: { type: "string" },
      description: { type: "string" },
      attribution: { type: "string" },
      private: { type: "boolean" },
      public: { type: "boolean" },
      json: { type: "boolean" },
      version: { type: "string" },
      create: { type: "boolean" },
      publish: { type: "boolean" },
      layer: { type: "string" },
      minzoom: { type: "string" },
      maxzoom: { type: "string" },
      simplification: { type: "string" },
      include: { type: "string" },
      exclude: { type: "string" },
      encoding: { type: "string" },
      rank: { type: "string" },
      "point-spacing": { type: "string" },
      tiny: { type: "string" },
      buffer: { type: "string" },
      "tile-bytes": { type: "string" },
      output: { type: "string" },
      recipe: { type: "string" },
      filter: { type: "string" },
      types: { type: "string" },
      cluster: { type: "string" },
      layers: { type: "string" },
      format: { type: "string" },
    });
    const [sub, ...rest] = positionals;
    if (!sub || !["create", "list", "import", "update", "export", "publish", "unpublish", "delete"].includes(sub)) throw new UsageError("expected `tilesets create|list|import|update|export|publish|unpublish|delete` (see --help)");
    if (!values.org) throw new UsageError("--org is required");
    if (sub !== "list" && !values.slug) throw new UsageError("--slug is required");
    if (sub === "export" && rest.length !== 1) throw new UsageError("export needs exactly one OUT file");
    if (sub !== "import" && sub !== "export" && rest.length) throw new UsageError(`unexpected argument '${rest[rest.length - 1]}'`);
    const patch = sub === "update" ? updatePatch(values) : null;
    if (values.public && sub !== "update") throw new UsageError(`--public is for update, not ${sub}`);
    if (values.format !== undefined && values.format !== "mbtiles" && values.format !== "pmtiles") throw new UsageError("--format must be mbtiles or pmtiles");
    if (sub === "export" && existsSync(rest[0]!)) throw new UsageError(`${rest[0]} exists already; export writes a new file`);
    if (sub === "export") {
      const into = dirname(resolve(rest[0]!));
      if (!statSync(into, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${rest[0]}: the directory ${into} does not exist`);
      if (!writable(into)) throw new UsageError(`${rest[0]}: the directory ${into} is not writable by this user`);
    }
    if (rest.length > MAX_FILES) throw new UsageError(`import takes at most ${MAX_FILES} files`);
    let version: number | undefined;
    if (values.version !== undefined) {
      if (!isVersion(values.version)) throw new UsageError("--version must be a positive integer");
      version = Number(values.version);
    }
    if (sub === "unpublish" && version !== undefined) throw new UsageError("unpublish takes no --version: it stops serving the stable URL");
    if (sub === "publish" && version === undefined) throw new UsageError("--version is required");
    const files = rest;
    if (sub === "import") {
      if (!files.length) throw new UsageError("import needs the FILE to load");
      for (const file of files) {
        const problem = inputFileProblem(file);
        if (problem) throw new UsageError(problem);
      }
    }
    let recipe: Recipe = {};
    if (values.recipe !== undefined) {
      const problem = inputFileProblem(values.recipe);
      if (problem) throw new UsageError(`--recipe: ${problem}`);
      const parsed = parseJsonText(await Bun.file(values.recipe).text(), `--recipe ${values.recipe}`);
      if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new UsageError(`--recipe ${values.recipe}: the recipe must be a JSON object`);
      recipe = parsed as Recipe;
    }
    for (const k of ["layer", "rank", "tiny", "output", "encoding"] as const) if (values[k] !== undefined) (recipe as Record<string, unknown>)[k] = values[k];
    for (const [flag, key] of [["minzoom", "minzoom"], ["maxzoom", "maxzoom"], ["simplification", "simplification"], ["point-spacing", "point_spacing"], ["buffer", "buffer"], ["tile-bytes", "tile_bytes"]] as const) {
      const n = numberOption(flag, values[flag]);
      if (n !== undefined) (recipe as Record<string, unknown>)[key] = n;
    }
    if (list(values.include)?.length) recipe.include = list(values.include);
    if (list(values.exclude)?.length) recipe.exclude = list(values.exclude);
    // JSON values, as the upload's query parameters and multipart fields of the same names take them.
    for (const k of ["filter", "types", "cluster", "layers"] as const) {
      const raw = values[k];
      if (raw === undefined) continue;
      try {
        (recipe as Record<string, unknown>)[k] = JSON.parse(raw);
      } catch (err) {
        throw new UsageError(`--${k} must be JSON, e.g. ${JSON_EXAMPLE[k]} (${(err as Error).message})`);
      }
    }
    const problem = recipeProblem(recipe);
    if (problem) throw new UsageError(`invalid recipe: ${problem}`);
    if (sub === "export") exportNameProblem(rest[0]!, values.format);

    return withContext(overrides, "tilesets", async (ctx, { tilesets: service }) => {
      const org = orgOf(ctx, values.org!);
      const slug = values.slug!;
      switch (sub) {
        case "create": {
          const t = service.create(org, { slug, name: values.name, description: values.description, attribution: values.attribution, visibility: values.private ? "private" : "public" });
          print(`${green("Created")} tileset ${bold(`${org.slug}/${t.slug}`)} (${t.visibility}). Load data with: mapstead tilesets import --org ${org.slug} --slug ${t.slug} FILE`);
          return 0;
        }
        case "list": {
          const rows = service.list(org).map((t) => ({ ...t, latest: service.listVersions(org, t.slug)[0] ?? null }));
          if (values.json) {
            print(JSON.stringify(rows, null, 2));
            return 0;
          }
          if (!rows.length) print(dim(`No tilesets in ${org.slug} yet.`));
          for (const t of rows)
            print(
              `${bold(t.slug.padEnd(24))} ${t.visibility.padEnd(8)} published ${t.published_version === null ? "-" : `v${t.published_version}`}  latest ${t.latest ? `v${t.latest.version} ${t.latest.state}` : "-"}  ${dim(t.name)}`,
            );
          return 0;
        }
        case "export": {
          const out = rest[0]!;
          const archive = service.archiveOf(org, slug, version);
          const byName = /\.(mbtiles|pmtiles)$/i.exec(out)?.[1]?.toLowerCase() as ArchiveFormat | undefined;
          const format = (values.format as ArchiveFormat | undefined) ?? byName ?? archive.format;
          const tiles = await exportArchive(archive, out, format);
          print(`${green("Exported")} ${org.slug}/${slug} v${archive.version} to ${out} (${format}${tiles >= 0 ? `, ${fmt(tiles)} tiles` : ""}, ${fmt(statSync(out).size)} bytes)`);
          return 0;
        }
        case "publish": {
          const t = service.publish(org, slug, version!);
          print(`${green("Published")} ${org.slug}/${slug} v${version}: ${t.tilejson_url}`);
          return 0;
        }
        case "update": {
          const before = service.get(org, slug);
          const changed = changedFields(before, patch!);
          const after = changed.length ? service.update(org, slug, patch!) : before;
          if (values.json) print(JSON.stringify(after, null, 2));
          else if (!changed.length) print(`${org.slug}/${slug} has these values already; nothing changed`);
          else print(`${green("Updated")} tileset ${bold(`${org.slug}/${slug}`)}: ${changed.map((k) => `${k} ${show(before[k])} -> ${show(after[k])}`).join(", ")}${visibilityNote(patch!, after.visibility)}`);
          return 0;
        }
        case "unpublish": {
          if (service.get(org, slug).published_version === null) {
            print(`${org.slug}/${slug} is not published; nothing changed`);
            return 0;
          }
          service.unpublish(org, slug);
          print(`${green("Unpublished")} ${org.slug}/${slug}: its stable URLs answer 404 until a version is published`);
          return 0;
        }
        case "delete": {
          if (version !== undefined) {
            service.deleteVersion(org, slug, version);
            print(`${green("Deleted")} version ${version} of ${org.slug}/${slug}`);
          } else {
            service.remove(org, slug);
            print(`${green("Deleted")} tileset ${org.slug}/${slug} with all its versions`);
          }
          return 0;
        }
      }
      // import
      let createdHere = false;
      try {
        service.get(org, slug);
      } catch (err) {
        if (!(err instanceof NotFound)) throw err;
        if (!values.create) throw new NotFound(`${err.message}: add --create to make it with this import, or run mapstead tilesets create --org ${org.slug} --slug ${slug} first`);
        service.create(org, { slug, name: values.name, description: values.description, attribution: values.attribution, visibility: values.private ? "private" : "public" });
        print(`${green("Created")} tileset ${org.slug}/${slug}`);
        createdHere = true;
      }
      // A tileset --create made for an import that then fails would stay behind empty (a mistyped slug
      // as clutter, where the next --create run would find it): it goes with the failure.
      const undoCreate = (quiet = false) => {
        if (!createdHere) return;
        try {
          service.remove(org, slug);
          if (!quiet) printErr(dim(`Removed tileset ${org.slug}/${slug} again, which this import had created`));
        } catch {
          // Deleted meanwhile: nothing to undo.
        }
      };
      // Ctrl-C (or SIGTERM) cancels the import for good rather than leaving a version "processing" that a
      // server would pick up and finish later; a second one while cleaning up exits at once.
      const cancel = new AbortController();
      let jobStarted = false;
      let uploadPath: string | null = null;
      const what = `the import of ${files.map((f) => basename(f)).join(", ")} into ${org.slug}/${slug}`;
      const onSignal = (signal: NodeJS.Signals) => {
        if (cancel.signal.aborted) process.exit(130);
        cancel.abort(`cancelled from the command line (${signal === "SIGINT" ? "Ctrl-C" : signal})`);
        if (jobStarted) return; // the import loop below stops the job and cleans up
        // Still copying the file: no version exists yet.
        if (uploadPath) rmSync(uploadPath, { force: true, recursive: true });
        undoCreate(true);
        printErr(red(`mapstead tilesets: cancelled ${what} before it started; nothing was kept`));
        process.exit(130);
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      try {
        return await importFiles();
      } catch (err) {
        // Failed while copying (a file of several that does not decompress, the limit reached): the files
        // copied so far are no version's yet. Once a version holds them, it cleans up after itself.
        if (!jobStarted && uploadPath) rmSync(uploadPath, { force: true, recursive: true });
        undoCreate();
        throw err;
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }

      async function importFiles(): Promise<number> {
        const name = `${crypto.randomUUID()}.upload`;
        let upload: ReceivedUpload;
        if (files.length === 1) {
          const relativePath = join("uploads", name);
          const path = join(ctx.config.dataDir, relativePath);
          uploadPath = path;
          const { bytes, name: filename } = await copyInputFile(files[0]!, path, ctx.config.maxUploadMb);
          upload = { path, relativePath, bytes, filename, contentType: null, fields: {} };
        } else {
          // Several files: one directory, one layer per file (as a multipart upload of several files).
          const relativePath = join("uploads", `${name}.d`);
          const path = join(ctx.config.dataDir, relativePath);
          uploadPath = path;
          mkdirSync(path, { recursive: true });
          let bytes = 0;
          let decompressed = 0;
          const stored = files.map((f, i) => ({ stored: storedName(i, basename(f)), name: basename(f), contentType: null }));
          for (const [i, f] of files.entries()) {
            const copied = await copyInputFile(f, join(path, stored[i]!.stored), ctx.config.maxUploadMb, decompressed);
            bytes += copied.bytes;
            decompressed += copied.decompressed;
            if (copied.name !== stored[i]!.name) {
              // Decompressed: named as the data now is (a.geojson, not a.geojson.gz).
              const renamed = storedName(i, copied.name);
              renameSync(join(path, stored[i]!.stored), join(path, renamed));
              stored[i] = { ...stored[i]!, stored: renamed, name: copied.name };
            }
          }
          upload = { path, relativePath, bytes, filename: null, contentType: null, fields: {}, files: stored };
        }
        const { record, jobId } = await service.createVersion(org, slug, upload, recipe, { claim: true });
        jobStarted = true;
        print(`Importing ${files.map((f) => basename(f)).join(", ")} (${record.source_format}, ${fmt(upload.bytes)} bytes) into ${org.slug}/${slug} v${record.version}`);
        const bar = progressBar();
        const run = service.processNow(jobId, { cancel: cancel.signal });
        let finished = false;
        void run.finally(() => (finished = true));
        // The server (or another CLI) may delete the version meanwhile; processNow then stops and
        // removes its half-written files, which this waits for rather than exiting at once.
        const current = (): VersionRecord | null => {
          try {
            return service.getVersion(org, slug, record.version);
          } catch (err) {
            if (err instanceof NotFound) return null;
            throw err;
          }
        };
        while (!finished) {
          const now = current();
          if (now) bar.update(now);
          await Promise.race([run, Bun.sleep(250)]);
        }
        const { cancelled } = await run;
        const v = current();
        if (v && !cancelled) bar.update(v);
        bar.done();
        if (cancelled) {
          // A tileset this command created goes with it, as after any failed import; an existing
          // tileset keeps the version as failed, saying why, so `tilesets list` tells what happened.
          undoCreate(true);
          printErr(
            red(
              `mapstead tilesets: cancelled ${what}: ${createdHere ? `removed the tileset again, which this import had created` : `version ${record.version} is marked failed (${String(cancel.signal.reason)})`}; its files are removed`,
            ),
          );
          return 130;
        }
        if (!v) {
          printErr(red(`mapstead tilesets: version ${record.version} of ${org.slug}/${slug} was deleted while it was being imported`));
          undoCreate();
          return 1;
        }
        for (const w of v.warnings) printErr(yellow(`warning: ${w}`));
        if (v.state !== "ready") {
          printErr(red(`mapstead tilesets: version ${v.version} failed: ${v.error ?? v.state}`));
          undoCreate();
          return 1;
        }
        print(
          `${green("Ready")}: ${org.slug}/${slug} v${v.version}, ${fmt(v.stats.tiles)} tiles, zoom ${v.minzoom}-${v.maxzoom}${v.encoding ? `, raster DEM (${v.encoding})` : ""}${v.stats.features ? `, ${fmt(v.stats.features)} features` : ""}${v.stats.seconds !== null ? ` in ${Math.max(0.01, Math.round(v.stats.seconds * 100) / 100)} s` : ""}`,
        );
        // Until its first publish a public tileset's version answers only to the organization (a session or a
        // key), as a private tileset's always does.
        const membersOnly = !values.publish && v.published_at === null && service.get(org, slug).visibility === "public";
        print(`TileJSON: ${v.tilejson_url}${membersOnly ? dim(` (members only until published: mapstead tilesets publish --org ${org.slug} --slug ${slug} --version ${v.version})`) : ""}`);
        if (values.publish) {
          const t = service.publish(org, slug, v.version);
          print(`${green("Published")}: ${t.tilejson_url}`);
          if (v.encoding && !ctx.config.elevationTileset && !storedDemTileset(ctx.sqlite)) print(dim(`No elevation DEM is chosen yet; to answer the elevation API from this one: mapstead elevation use --org ${org.slug} --tileset ${slug}`));
        }
        return 0;
      }
    }, { existing: sub === "list" || sub === "export" ? "show" : "change" });
  },
};

/**
 * An export writes an MBTiles or PMTiles archive: a file named otherwise (out.geojson) would hold one
 * under a name that says something else, and the name and --format must agree.
 */
function exportNameProblem(out: string, format: string | undefined): void {
  const ext = /\.([A-Za-z0-9]+)$/.exec(out.replace(/^.*\//, ""))?.[1]?.toLowerCase();
  if (ext === undefined) return;
  if (ext !== "mbtiles" && ext !== "pmtiles")
    throw new UsageError(`${out} ends in .${ext}, but an export is a tile archive: name it .mbtiles or .pmtiles (the tiles themselves are served at /tiles/v1/...)`);
  if (format !== undefined && format !== ext) throw new UsageError(`${out} ends in .${ext}, but --format is ${format}: make them agree`);
}

type TilesetPatch = { name?: string; description?: string; attribution?: string; visibility?: "public" | "private" };
/** The PATCH route's limits (UpdateTilesetBody), so the CLI takes no more than the API does. */
const UPDATE_LIMITS = { name: 200, description: 2000, attribution: 1000 } as const;

/** What `tilesets update` is asked to change, as the PATCH route takes it; refuses nothing or a contradiction. */
function updatePatch(values: Record<string, string | boolean | undefined>): TilesetPatch {
  const allowed = new Set(["org", "slug", "name", "description", "attribution", "private", "public", "json"]);
  const stray = Object.keys(values).find((k) => values[k] !== undefined && !allowed.has(k));
  if (stray) throw new UsageError(`--${stray} is not for update (see --help)`);
  if (values.private && values.public) throw new UsageError("--private and --public contradict each other; give one");
  const patch: TilesetPatch = {};
  for (const k of ["name", "description", "attribution"] as const) {
    const v = values[k];
    if (typeof v !== "string") continue;
    if (k === "name" && v.trim() === "") throw new UsageError("--name must not be blank; leave it out to keep the name");
    if (v.length > UPDATE_LIMITS[k]) throw new UsageError(`--${k} may be at most ${UPDATE_LIMITS[k]} characters`);
    patch[k] = v;
  }
  if (values.private) patch.visibility = "private";
  if (values.public) patch.visibility = "public";
  if (!Object.keys(patch).length) throw new UsageError("update needs something to change: --private or --public, --name, --description or --attribution");
  return patch;
}

/** The fields the patch sets to another value than the tileset has (names are trimmed, as the service does). */
function changedFields(t: { slug: string; name: string; description: string; attribution: string; visibility: string }, patch: TilesetPatch): (keyof TilesetPatch)[] {
  return (Object.keys(patch) as (keyof TilesetPatch)[]).filter((k) => (k === "name" ? patch.name!.trim() : patch[k]) !== t[k]);
}

const show = (v: unknown) => JSON.stringify(v);

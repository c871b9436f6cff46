// `mapstead tilesets create|list|import|publish|delete`: tilesets from the machine itself, for
// air-gapped bulk loads. `import` copies the file into DATA_DIR, processes it in this process (a running
// server sees the result within seconds) and draws a progress bar with rate and ETA.
import { statSync } from "node:fs";
import { basename, join } from "node:path";
import type { CliCommand } from "./command";
import { UsageError, settingsHelp } from "./args";
import { bold, dim, green, print, printErr, red, yellow } from "./output";
import { parse, withContext } from "./users";
import type { AppContext } from "../context";
import { NotFound } from "../errors";
import { orgBySlug } from "../domain/orgs/service";
import type { VersionRecord } from "../domain/tilesets/service";
import type { Recipe } from "../tiles/recipe";

const HELP = `Usage:
  mapstead tilesets create --org ORG --slug SLUG [--name NAME] [--description TEXT] [--attribution TEXT] [--private] [settings]
  mapstead tilesets list --org ORG [--json] [settings]
  mapstead tilesets import --org ORG --slug SLUG FILE [--create [--name NAME] [--attribution TEXT] [--private]] [--publish] [recipe options] [settings]
  mapstead tilesets publish --org ORG --slug SLUG --version N [settings]
  mapstead tilesets delete --org ORG --slug SLUG [--version N] [settings]

create   Creates an empty tileset (public unless --private).
list     Lists the organization's tilesets with their published and latest versions.
import   Loads FILE into a new version and processes it here, showing progress, rate and ETA.
         FILE may be GeoJSON, newline-delimited GeoJSON, CSV with lon/lat columns, a zipped Shapefile,
         FlatGeobuf, MBTiles or PMTiles (detected from the content), or elevation: GeoTIFF (lon/lat)
         or SRTM .hgt (named like N46E007.hgt, or zipped), built into a raster-DEM tileset.
         --create makes the tileset first when it does not exist (with --name, --description,
         --attribution and --private as for create: --attribution is the data credit maps show,
         e.g. "© OpenStreetMap contributors"); --publish publishes the version once it is ready.
         Recipe options: --layer NAME, --minzoom N, --maxzoom N, --simplification X,
         --include a,b,c | --exclude a,b,c, --encoding terrarium|mapbox (raster DEM: the RGB
         encoding of an imported MBTiles/PMTiles of elevation tiles, or the one to build)
publish  Points the stable TileJSON at a ready version.
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
function progressBar() {
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
  if (!org) throw new NotFound(`Organization '${slug}' not found (create it with: mapstead orgs create --slug ${slug})`);
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

export const tilesetsCommand: CliCommand = {
  name: "tilesets",
  summary: "Create, list, import, publish and delete tilesets",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      org: { type: "string" },
      slug: { type: "string" },
      name: { type: "string" },
      description: { type: "string" },
      attribution: { type: "string" },
      private: { type: "boolean" },
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
    });
    const [sub, ...rest] = positionals;
    if (!sub || !["create", "list", "import", "publish", "delete"].includes(sub)) throw new UsageError("expected `tilesets create|list|import|publish|delete` (see --help)");
    if (!values.org) throw new UsageError("--org is required");
    if (sub !== "list" && !values.slug) throw new UsageError("--slug is required");
    if (rest.length > (sub === "import" ? 1 : 0)) throw new UsageError(`unexpected argument '${rest[rest.length - 1]}'`);
    let version: number | undefined;
    if (values.version !== undefined) {
      if (!/^[1-9][0-9]{0,8}$/.test(values.version)) throw new UsageError("--version must be a positive integer");
      version = Number(values.version);
    }
    if (sub === "publish" && version === undefined) throw new UsageError("--version is required");
    const file = rest[0];
    if (sub === "import") {
      if (!file) throw new UsageError("import needs the FILE to load");
      const st = statSync(file, { throwIfNoEntry: false });
      if (!st?.isFile()) throw new UsageError(`${file} is not a readable file`);
    }
    const recipe: Recipe = {};
    if (values.layer !== undefined) recipe.layer = values.layer;
    const minzoom = numberOption("minzoom", values.minzoom);
    const maxzoom = numberOption("maxzoom", values.maxzoom);
    const simplification = numberOption("simplification", values.simplification);
    if (minzoom !== undefined) recipe.minzoom = minzoom;
    if (maxzoom !== undefined) recipe.maxzoom = maxzoom;
    if (simplification !== undefined) recipe.simplification = simplification;
    if (list(values.include)?.length) recipe.include = list(values.include);
    if (list(values.exclude)?.length) recipe.exclude = list(values.exclude);
    if (values.encoding !== undefined) recipe.encoding = values.encoding as Recipe["encoding"];

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
        case "publish": {
          const t = service.publish(org, slug, version!);
          print(`${green("Published")} ${org.slug}/${slug} v${version}: ${t.tilejson_url}`);
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
      try {
        service.get(org, slug);
      } catch (err) {
        if (!(err instanceof NotFound) || !values.create) throw err;
        service.create(org, { slug, name: values.name, description: values.description, attribution: values.attribution, visibility: values.private ? "private" : "public" });
        print(`${green("Created")} tileset ${org.slug}/${slug}`);
      }
      const name = `${crypto.randomUUID()}.upload`;
      const relativePath = join("uploads", name);
      const path = join(ctx.config.dataDir, relativePath);
      const bytes = await Bun.write(path, Bun.file(file!));
      const { record, jobId } = await service.createVersion(org, slug, { path, relativePath, bytes, filename: basename(file!), contentType: null, fields: {} }, recipe, { claim: true });
      print(`Importing ${basename(file!)} (${record.source_format}, ${fmt(bytes)} bytes) into ${org.slug}/${slug} v${record.version}`);
      const bar = progressBar();
      const run = service.processNow(jobId);
      let finished = false;
      void run.finally(() => (finished = true));
      while (!finished) {
        bar.update(service.getVersion(org, slug, record.version));
        await Promise.race([run, Bun.sleep(250)]);
      }
      await run;
      const v = service.getVersion(org, slug, record.version);
      bar.update(v);
      bar.done();
      for (const w of v.warnings) printErr(yellow(`warning: ${w}`));
      if (v.state !== "ready") {
        printErr(red(`mapstead tilesets: version ${v.version} failed: ${v.error ?? v.state}`));
        return 1;
      }
      print(
        `${green("Ready")}: ${org.slug}/${slug} v${v.version}, ${fmt(v.stats.tiles)} tiles, zoom ${v.minzoom}-${v.maxzoom}${v.encoding ? `, raster DEM (${v.encoding})` : ""}${v.stats.features ? `, ${fmt(v.stats.features)} features` : ""}${v.stats.seconds !== null ? ` in ${v.stats.seconds} s` : ""}`,
      );
      print(`TileJSON: ${v.tilejson_url}`);
      if (values.publish) {
        const t = service.publish(org, slug, v.version);
        print(`${green("Published")}: ${t.tilejson_url}`);
      }
      return 0;
    });
  },
};

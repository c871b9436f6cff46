// `mapstead import-tileserver-gl CONFIG.json --org ORG`: moves a TileServer GL setup over in one command.
// Every data archive becomes a tileset, every style a Mapstead style (its TileServer GL-only URLs
// rewritten, its local sprite uploaded, fonts without glyphs given a fallback), then a summary with the
// old URL -> new URL mapping. Each item succeeds whole or leaves nothing behind; the others go on.
import { basename, join } from "node:path";
import type { CliCommand } from "./command";
import { UsageError, parse, settingsHelp } from "./args";
import { bold, dim, green, print, printErr, red, yellow } from "./output";
import { withContext } from "./runtime";
import { progressBar } from "./tilesets";
import { unknownOrgWords } from "./unknown-org";
import { readTileserverConfig, type TileserverConfig, type TileserverData, type TileserverStyle } from "./tileserver-gl-config";
import { rewriteTileserverStyle, type StyleRewrite } from "./tileserver-gl-style";
import { AppError, NotFound } from "../errors";
import { orgBySlug } from "../domain/orgs/service";
import type { AppContext } from "../context";
import type { Services } from "../services";
import type { ReceivedUpload } from "../domain/tilesets/upload";
import { checkReadySheet } from "../sprites/ready-pair";
import { SpriteInputError, type SpriteSet } from "../sprites/build";

const NAME = "import-tileserver-gl";

const HELP = `Usage:
  mapstead import-tileserver-gl CONFIG.json --org ORG [--publish] [--dry-run] [--font-fallback FONT] [settings]

Imports a TileServer GL setup described by its config.json (paths as TileServer GL resolves them:
options.paths.root relative to the config's folder, the others relative to root):
  data     every {"mbtiles": FILE} or {"pmtiles": FILE} becomes a tileset of ORG, its slug made from the
           id ("OSM_Zurich" -> osm-zurich)
  styles   every {"style": FILE} becomes a style of ORG, rewritten for Mapstead:
           "mbtiles://{id}", "mbtiles://id", "pmtiles://{id}" -> "mapstead://tilesets/ORG/SLUG"
           (pinned to the imported version, @N, unless --publish publishes the tilesets);
           glyphs -> "mapstead://fonts/{fontstack}/{range}.pbf";
           a local sprite (NAME.json + NAME.png, @2x too; "{styleJsonFolder}/sprite" or a path under
           paths.sprites) is uploaded as the style's sprite -> "mapstead://sprites/ORG/SLUG";
           a text-font stack with no installed font gets a fallback appended: the closest built-in
           Noto Sans face (Bold, Italic, else Regular), or --font-fallback FONT. TileServer GL's fonts
           folder holds prebuilt glyphs, not fonts: install the real TTF/OTF with mapstead fonts add
           for the exact look.
Tilesets and styles are created public, as TileServer GL serves everything to anyone (make one private
with mapstead tilesets update or mapstead styles update --org ORG --slug SLUG --private, or in the
console). Then prints each tileset and style with its URL,
every rewrite and fallback, and which Mapstead URL
replaces each TileServer GL URL (/styles/ID/style.json, /data/ID.json, raster tiles, wmts.xml,
static images).

--publish        publishes the tilesets and styles once imported
--dry-run        prints the plan (and every problem) and writes nothing
--font-fallback  the installed font appended to stacks with none installed

A problem with one item (a missing file, bad JSON, a data id no data entry has, a slug the organization
already uses, a style Mapstead refuses) is said with the file or id and the fix; that item leaves nothing
behind, the others are imported. Exit status: 0 all imported, 1 something was not, 2 usage error.

Settings:
${settingsHelp()}`;

interface Outcome {
  ok: string[];
  failed: string[];
}

export const importTileserverGlCommand: CliCommand = {
  name: NAME,
  summary: "Import a TileServer GL config.json: data as tilesets, styles with sprites",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, {
      org: { type: "string" },
      publish: { type: "boolean" },
      "dry-run": { type: "boolean" },
      "font-fallback": { type: "string" },
    });
    if (positionals.length !== 1) throw new UsageError("expected one CONFIG.json, TileServer GL's config file (see --help)");
    if (!values.org) throw new UsageError("--org is required");
    let config: TileserverConfig;
    try {
      config = readTileserverConfig(positionals[0]!);
    } catch (err) {
      if (!(err instanceof UsageError)) throw err;
      printErr(red(`mapstead ${NAME}: ${err.message}`));
      return 1;
    }
    if (!config.data.length && !config.styles.length) {
      printErr(red(`mapstead ${NAME}: ${config.file} has no "data" and no "styles": nothing to import`));
      return 1;
    }
    return withContext(overrides, NAME, (ctx, services) => importConfig(ctx, services, config, { org: values.org!, publish: values.publish === true, dryRun: values["dry-run"] === true, fontFallback: values["font-fallback"] ?? null }), {
      existing: "change",
    });
  },
};

interface Options {
  org: string;
  publish: boolean;
  dryRun: boolean;
  fontFallback: string | null;
}

async function importConfig(ctx: AppContext, services: Services, config: TileserverConfig, opts: Options): Promise<number> {
  const { tilesets, styles, fonts } = services;
  const org = orgBySlug(ctx.db, opts.org);
  const styleOrg = styles.orgBySlug(opts.org);
  if (!org || !styleOrg) {
    printErr(red(`mapstead ${NAME}: ${unknownOrgWords(ctx.db, opts.org)}`));
    return 1;
  }
  const installed = fonts.names();
  if (opts.fontFallback !== null && !installed.has(opts.fontFallback)) {
    printErr(red(`mapstead ${NAME}: --font-fallback "${opts.fontFallback}" is not installed (installed: ${[...installed].sort().join(", ")}); install it first with mapstead fonts add FILE.ttf`));
    return 1;
  }
  const base = styles.base;

  // A slug the organization already uses is refused rather than imported into: the import makes new
  // things, it never changes what is there.
  for (const d of config.data)
    if (!d.problem && exists(() => tilesets.get(org, d.slug)))
      d.problem = `data '${d.id}': the tileset ${org.slug}/${d.slug} exists already; delete it (mapstead tilesets delete --org ${org.slug} --slug ${d.slug}) or import into another --org`;
  for (const s of config.styles)
    if (!s.problem && exists(() => styles.get(styleOrg, s.slug)))
      s.problem = `style '${s.id}': the style ${org.slug}/${s.slug} exists already; delete it (mapstead styles delete --org ${org.slug} --slug ${s.slug}) or import into another --org`;

  const rewriteWith = (s: TileserverStyle, slugs: Map<string, string>) =>
    rewriteTileserverStyle(s.json!, {
      org: org.slug,
      tilesets: slugs,
      dataIdByFile: uniqueByFileName(config.data),
      sprite: s.sprite ? `mapstead://sprites/${org.slug}/${s.slug}` : null,
      installedFonts: installed,
      fontFallback: opts.fontFallback,
    });
  const allSlugs = new Map(config.data.map((d) => [d.id, d.slug]));
  const plans = new Map<TileserverStyle, StyleRewrite>();
  for (const s of config.styles) {
    if (s.problem) continue;
    const plan = rewriteWith(s, allSlugs);
    plans.set(s, plan);
    const spriteProblem = spriteProblemOf(s);
    if (spriteProblem) plan.problems.push(spriteProblem);
    // Said now, so the dry run shows it too: a style cannot be made without the tilesets it draws.
    const blocked = [...new Set(plan.dataIds)].filter((id) => config.data.some((d) => d.id === id && d.problem));
    if (blocked.length) plan.problems.push(`its data ${blocked.map((id) => `'${id}'`).join(", ")} cannot be imported (see that entry); fix that and this style comes along`);
    if (plan.problems.length) s.problem = plan.problems.map((p) => `style '${s.id}' (${s.file}): ${p}`).join("\n");
  }

  if (opts.dryRun) {
    print(bold(`Plan for ${config.file} (dry run: nothing is written)`));
    for (const d of config.data) print(d.problem ? red(`  ✗ ${d.problem}`) : `  tileset ${org.slug}/${d.slug} from data '${d.id}' (${d.file})`);
    for (const s of config.styles) {
      if (s.problem) {
        print(red(`  ✗ ${s.problem}`));
        continue;
      }
      print(`  style ${org.slug}/${s.slug} from style '${s.id}' (${s.file})${s.sprite ? `, sprite ${s.sprite.base}.json/.png${s.sprite.json2x ? " and @2x" : ""}` : ""}`);
      printChanges(plans.get(s)!);
    }
    printMapping(config.data.filter((d) => !d.problem), config.styles.filter((s) => !s.problem), base, org.slug, new Map(), opts.publish);
    const problems = [...config.data, ...config.styles].filter((i) => i.problem).length;
    print(problems ? red(`${problems} item(s) would not be imported; fix them and run again`) : green("Nothing in the way: run again without --dry-run to import"));
    return problems ? 1 : 0;
  }

  const outcome: Outcome = { ok: [], failed: [] };
  const versions = new Map<string, number>();
  for (const d of config.data) {
    if (d.problem) {
      fail(outcome, d.problem);
      continue;
    }
    const version = await importTileset(ctx, services, org, d, opts.publish, outcome);
    if (version !== null) versions.set(d.id, version);
  }

  for (const s of config.styles) {
    if (s.problem) {
      fail(outcome, s.problem);
      continue;
    }
    const missing = [...new Set(plans.get(s)!.dataIds)].filter((id) => !versions.has(id));
    if (missing.length) {
      fail(outcome, `style '${s.id}': not imported, as its data ${missing.map((id) => `'${id}'`).join(", ")} was not (see above); fix that and run again for this style`);
      continue;
    }
    // Unpublished tilesets are pinned to their imported version, so the style validates (and draws) now.
    const slugs = new Map(config.data.filter((d) => versions.has(d.id)).map((d) => [d.id, opts.publish ? d.slug : `${d.slug}@${versions.get(d.id)}`]));
    importStyle(services, styleOrg, s, rewriteWith(s, slugs), opts.publish, outcome);
  }

  const created = new Set(outcome.ok);
  printMapping(config.data.filter((d) => versions.has(d.id)), config.styles.filter((s) => created.has(`style ${org.slug}/${s.slug}`)), base, org.slug, versions, opts.publish);
  print();
  print(bold(`Imported ${outcome.ok.length} of ${config.data.length + config.styles.length} item(s)`) + (outcome.ok.length ? `: ${outcome.ok.join(", ")}` : ""));
  if (outcome.failed.length) {
    printErr(red(`Not imported (${outcome.failed.length}), nothing of them was written:`));
    for (const f of outcome.failed) printErr(red(`  ✗ ${f}`));
    return 1;
  }
  return 0;
}

/**
 * Data ids by their archive's file name, for styles that name the file (mbtiles://world.mbtiles); a
 * name two entries share (data/a/world.mbtiles, data/b/world.mbtiles) is left out, so such a reference
 * is refused as unknown rather than taken to mean either one.
 */
function uniqueByFileName(data: TileserverData[]): Map<string, string> {
  const byName = new Map<string, string | null>();
  for (const d of data) byName.set(basename(d.file), byName.has(basename(d.file)) ? null : d.id);
  return new Map([...byName].filter((entry): entry is [string, string] => entry[1] !== null));
}

const exists = (get: () => unknown) => {
  try {
    get();
    return true;
  } catch (err) {
    if (err instanceof NotFound) return false;
    throw err;
  }
};

const fail = (outcome: Outcome, message: string) => outcome.failed.push(message);

function printChanges(plan: StyleRewrite) {
  for (const r of plan.rewrites) print(dim(`      rewrote ${r}`));
  for (const f of plan.fallbacks) print(yellow(`      font fallback: ${f}`));
}

/** Copies the archive into DATA_DIR and processes it here, as `mapstead tilesets import` does. */
async function importTileset(ctx: AppContext, services: Services, org: NonNullable<ReturnType<typeof orgBySlug>>, d: TileserverData, publish: boolean, outcome: Outcome): Promise<number | null> {
  const { tilesets } = services;
  print(bold(`data '${d.id}' -> tileset ${org.slug}/${d.slug}`));
  tilesets.create(org, { slug: d.slug, name: d.id, visibility: "public" });
  const undo = () => {
    try {
      tilesets.remove(org, d.slug);
    } catch {
      // Deleted meanwhile: nothing to undo.
    }
  };
  try {
    const relativePath = join("uploads", `${crypto.randomUUID()}.upload`);
    const path = join(ctx.config.dataDir, relativePath);
    const bytes = await Bun.write(path, Bun.file(d.file));
    const upload: ReceivedUpload = { path, relativePath, bytes, filename: basename(d.file), contentType: null, fields: {} };
    const { record, jobId } = await tilesets.createVersion(org, d.slug, upload, {}, { claim: true });
    const bar = progressBar();
    await tilesets.processNow(jobId);
    const v = tilesets.getVersion(org, d.slug, record.version);
    bar.update(v);
    bar.done();
    for (const w of v.warnings) printErr(yellow(`warning: ${w}`));
    if (v.state !== "ready") {
      undo();
      fail(outcome, `data '${d.id}' (${d.file}): the archive failed to import: ${v.error ?? v.state}; check the file (mapstead tilesets import shows the same)`);
      return null;
    }
    if (publish) tilesets.publish(org, d.slug, v.version);
    print(`  ${green(publish ? "Published" : "Ready")}: ${publish ? tilesets.get(org, d.slug).tilejson_url : v.tilejson_url} (v${v.version}, ${v.stats.tiles} tiles, zoom ${v.minzoom}-${v.maxzoom})`);
    outcome.ok.push(`tileset ${org.slug}/${d.slug}`);
    return v.version;
  } catch (err) {
    undo();
    if (!(err instanceof AppError)) throw err;
    fail(outcome, `data '${d.id}' (${d.file}): ${err.message}`);
    return null;
  }
}

function spriteSetOf(s: TileserverStyle): SpriteSet {
  const sp = s.sprite!;
  const label = basename(sp.base);
  const one = checkReadySheet(label, sp.json, sp.png);
  const two = sp.json2x && sp.png2x ? checkReadySheet(`${label}@2x`, sp.json2x, sp.png2x) : one;
  return { "1x": one, "2x": two };
}

function spriteProblemOf(s: TileserverStyle): string | null {
  if (!s.sprite) return null;
  try {
    spriteSetOf(s);
    return null;
  } catch (err) {
    if (err instanceof SpriteInputError) return `its sprite ${s.sprite.base} is refused: ${err.message}; fix the sprite files`;
    throw err;
  }
}

/** Creates the style (sprite first, so the draft may name it) and publishes it; removed again on any refusal. */
function importStyle(services: Services, org: NonNullable<ReturnType<Services["styles"]["orgBySlug"]>>, s: TileserverStyle, plan: StyleRewrite, publish: boolean, outcome: Outcome) {
  const { styles } = services;
  print(bold(`style '${s.id}' -> style ${org.slug}/${s.slug}`));
  printChanges(plan);
  let created = false;
  try {
    const sprite = s.sprite ? spriteSetOf(s) : null;
    const name = typeof s.json!.name === "string" && s.json!.name.trim() ? s.json!.name : s.id;
    styles.create(org, { slug: s.slug, name, visibility: "public" });
    created = true;
    if (sprite) styles.setSprite(org, s.slug, sprite);
    styles.saveDraft(org, s.slug, plan.style);
    if (publish) styles.publish(org, s.slug);
    print(`  ${green(publish ? "Published" : "Created")}: ${publish ? `${styles.base}/styles/v1/${org.slug}/${s.slug}` : dim(`draft; publish with mapstead styles publish --org ${org.slug} --slug ${s.slug}`)}`);
    outcome.ok.push(`style ${org.slug}/${s.slug}`);
  } catch (err) {
    if (created) styles.remove(org, s.slug);
    if (err instanceof SpriteInputError) return fail(outcome, `style '${s.id}': its sprite ${s.sprite!.base} is refused: ${err.message}; fix the sprite files`);
    if (!(err instanceof AppError)) throw err;
    // The message names the first problem; with details, those name each one.
    const details = err.code === "INVALID_STYLE" && Array.isArray(err.details) ? (err.details as { path: string; message: string }[]).map((d) => `\n    ${d.path || "(style)"}: ${d.message}`).join("") : "";
    fail(outcome, `style '${s.id}' (${s.file}) is refused by Mapstead's validation:${details || ` ${err.message}`}\n    fix the style file and run again (the tilesets imported now are kept; import the style alone with mapstead styles create)`);
  }
}

/** Which Mapstead URL answers for each TileServer GL URL a client may have stored. */
function printMapping(data: TileserverData[], styles: TileserverStyle[], base: string, org: string, versions: Map<string, number>, published: boolean) {
  print();
  print(bold("TileServer GL URL -> Mapstead URL"));
  // Everything is created public, as TileServer GL serves everything to anyone; the stable URLs answer
  // once the items are published.
  print(dim(`  (tilesets and styles are public${published ? "" : "; these URLs answer once published: run again with --publish, or mapstead tilesets publish / styles publish"})`));
  const row = (from: string, to: string) => print(`  ${from.padEnd(52)} -> ${to}`);
  for (const d of data) {
    row(`/data/${d.id}.json`, `${base}/tiles/v1/${org}/${d.slug}.json`);
    row(`/data/${d.id}/{z}/{x}/{y}.{ext}`, `${base}/tiles/v1/${org}/${d.slug}@${versions.get(d.id) ?? "{version}"}/{z}/{x}/{y}.{ext} (TileJSON's "tiles")`);
  }
  for (const s of styles) {
    const style = `${base}/styles/v1/${org}/${s.slug}`;
    row(`/styles/${s.id}/style.json`, style);
    row(`/styles/${s.id}/{z}/{x}/{y}[@2x].png`, `${style}/tiles/256/{z}/{x}/{y}[@2x].png`);
    row(`/styles/${s.id}/512/{z}/{x}/{y}[@2x].png`, `${style}/tiles/512/{z}/{x}/{y}[@2x].png`);
    row(`/styles/${s.id}/wmts.xml`, `${style}/wmts.xml`);
    row(`/styles/${s.id}/static/{lon},{lat},{z}/{w}x{h}.png`, `${base}/static/v1/${org}/${s.slug}/{lon},{lat},{z}/{w}x{h}.png`);
    if (s.sprite) row(`/styles/${s.id}/sprite[@2x].{json,png}`, `${style}/sprite[@2x].{json,png}`);
  }
  row("/fonts/{fontstack}/{range}.pbf", `${base}/fonts/v1/{fontstack}/{range}.pbf`);
}

// `mapstead gazetteer import FILE [--dataset NAME] [--replace]` and `mapstead gazetteer status`: the
// embedded gazetteer's datasets, for the operator on the machine (the same import as the admin API).
// A running server hears of an import through the change bus.
import { existsSync, statSync } from "node:fs";
import { inputFileProblem } from "./input-file";
import { basename } from "node:path";
import type { CliCommand } from "./command";
import { UsageError, parse, settingsHelp } from "./args";
import { configOrExit, openContext } from "./runtime";
import { bold, dim, green, print, printErr, red } from "./output";
import { createServices } from "../services";
import { importGeonamesFile, InvalidGazetteerData, type ImportProgress, type ImportResult } from "../backends/geocoder/embedded/import-file";
import { importTilesetPoints } from "../backends/geocoder/embedded/import-tileset";
import { AppError } from "../errors";

const HELP = `Usage:
  mapstead gazetteer status [--json] [settings]
  mapstead gazetteer import FILE [--dataset NAME] [--replace] [--json] [settings]
  mapstead gazetteer import --tileset OWNER/SLUG --name-field FIELD [--dataset NAME] [--replace] [--json]

The embedded gazetteer answers geocoding when no Pelias is configured (GEOCODER=auto or embedded).
Built in: GeoNames places of over 1000 people, first-level regions and every country. import loads a
GeoNames dump (download.geonames.org/export/dump): allCountries.zip, citiesN.zip, a country's XX.zip
or the .txt inside, alternateNamesV2.zip for names in other languages (import it after the places),
or admin1CodesASCII.txt for region names. Places go into the dataset NAME (default geonames;
alternate names: alternate-names; regions: admin1-codes), added to it or, with
--replace, replacing it. Nothing is written if the file has a bad line. Progress goes to stderr;
after the last row the import builds its indexes and typo keys, which takes minutes for allCountries.
With --tileset, the point features of a published vector tileset that have FIELD become places
(dataset tileset-OWNER-SLUG).

Settings:
${settingsHelp()}`;

const count = (n: number) => n.toLocaleString("en-US");

/** `unit`: what `lines` counts (lines of a dump, or a tileset's features). */
function progressLine(p: ImportProgress, startedAt: number, unit: string): string {
  const s = (performance.now() - startedAt) / 1000;
  const pct = p.totalBytes ? ` ${Math.min(100, Math.floor((100 * p.bytesRead) / p.totalBytes))}%` : "";
  const counted = `importing:${pct} ${count(p.lines)} ${unit}, ${count(p.places)} places, ${count(p.names)} names`;
  // After the last row the import goes quiet while it indexes: say so, or it looks stuck at 100%.
  if (p.stage === "indexing") return `${counted}; building the indexes and typo keys (minutes for a large import)`;
  return `${counted} (${count(Math.round(p.lines / Math.max(s, 0.001)))} ${unit}/s)`;
}

/** Without a terminal (a log file, a pipe) a progress line at most this often, besides each change of stage. */
const LOG_PROGRESS_EVERY_MS = 5000;


/** Why rows of each kind of file are left out (import-file.ts counts them together). */
const SKIPPED_BECAUSE: Record<string, string> = {
  alternate_names: "links, postal and airport codes, historic names, or names of places no imported dataset holds",
  geonames: "regions with no imported place to stand at",
};

export const gazetteerCommand: CliCommand = {
  name: "gazetteer",
  summary: "Import GeoNames data into the embedded gazetteer (import), or show its datasets (status)",
  help: HELP,
  async run(args, overrides) {
    const parsed = parse(args, { dataset: { type: "string" }, replace: { type: "boolean" }, json: { type: "boolean" }, tileset: { type: "string" }, "name-field": { type: "string" } });
    const [sub, file, ...extra] = parsed.positionals;
    const json = parsed.values.json === true;
    if (sub !== "import" && sub !== "status") throw new UsageError("expected `gazetteer import FILE` or `gazetteer status` (see --help)");
    if (sub === "status" && (file || parsed.values.dataset || parsed.values.replace)) throw new UsageError("`gazetteer status` takes no file, --dataset or --replace");
    const tileset = parsed.values.tileset;
    const nameField = parsed.values["name-field"];
    if (sub === "import" && tileset === undefined && (!file || extra.length)) throw new UsageError("`gazetteer import` takes exactly one FILE, or --tileset OWNER/SLUG --name-field FIELD");
    if (sub === "import" && tileset !== undefined && (file || !nameField)) throw new UsageError("`gazetteer import --tileset` takes --name-field FIELD and no FILE");
    if (tileset === undefined && nameField !== undefined) throw new UsageError("--name-field goes with --tileset");

    // A mistyped file is said before anything is opened or built (the first use builds the gazetteer).
    const problem = sub === "import" && tileset === undefined ? inputFileProblem(file!) : null;
    if (problem) {
      printErr(red(`mapstead gazetteer: ${problem}`));
      return 1;
    }
    const config = configOrExit(overrides);
    // Through the services, so an import is published on the change bus and a running server hears it.
    const ctx = openContext(config, { quiet: true, existing: sub === "status" ? "show" : tileset !== undefined ? "change" : undefined });
    const services = createServices(ctx);
    const gazetteer = services.gazetteer;
    try {
      if (!existsSync(gazetteer.path) && !json) printErr(dim("building the gazetteer from the built-in data (first use, a few seconds)..."));
      await gazetteer.start();
      if (sub === "status") {
        const s = gazetteer.status();
        if (s.state !== "ready") {
          printErr(red(`mapstead gazetteer: the gazetteer could not be opened (${s.error ?? s.state})`));
          return 1;
        }
        if (json) print(JSON.stringify({ backend: config.geocoder, file: s.file, bytes: s.bytes, built_at: s.built_at, datasets: s.datasets }, null, 2));
        else {
          print(`${bold("Geocoding backend:")} ${config.geocoder}${config.geocoder === "embedded" ? "" : dim(" (the gazetteer below is not answering)")}`);
          print(`${bold("File:")} ${s.file} (${((s.bytes ?? 0) / 1024 ** 2).toFixed(1)} MiB, built ${s.built_at})`);
          for (const d of s.datasets) print(`  ${bold(d.name.padEnd(24))} ${d.kind.padEnd(16)} ${count(d.places).padStart(11)} places ${count(d.names).padStart(11)} names  ${dim(d.attribution)}`);
        }
        return 0;
      }
      const mode = parsed.values.replace ? ("replace" as const) : ("add" as const);
      // One import at a time with the server's (API) imports: 409 IMPORT_IN_PROGRESS ends here with its message.
      const turn = services.gazetteerImports.claimForCli(
        tileset !== undefined ? { type: "tileset", tileset, name_field: nameField! } : { type: "file", path: "", filename: basename(file!), bytes: statSync(file!).size },
        { dataset: parsed.values.dataset, mode },
      );
      const startedAt = performance.now();
      const tty = process.stderr.isTTY === true;
      const unit = tileset !== undefined ? "features" : "lines";
      let logged = { at: -Infinity, stage: "" };
      const common = {
        dataset: parsed.values.dataset,
        mode,
        onProgress: (p: ImportProgress) => {
          turn.progress(p);
          if (json) return;
          if (tty) return void process.stderr.write(`\r${progressLine(p, startedAt, unit)}\x1b[K`);
          const now = performance.now();
          if (p.stage === logged.stage && now - logged.at < LOG_PROGRESS_EVERY_MS) return;
          logged = { at: now, stage: p.stage };
          process.stderr.write(`${progressLine(p, startedAt, unit)}\n`);
        },
      };
      let result: ImportResult;
      try {
        result =
          tileset !== undefined
            ? await importTilesetPoints(gazetteer, { sqlite: ctx.sqlite, dataDir: config.dataDir }, { ...common, tileset, nameField: nameField! })
            : await importGeonamesFile(gazetteer, file!, common);
        turn.done(result);
      } catch (err) {
        turn.failed(err);
        throw err;
      }
      if (tty && !json) process.stderr.write("\n");
      // The import's log is copied into the file on a thread: done before this process exits with it.
      await gazetteer.settled();
      if (json) print(JSON.stringify(result, null, 2));
      else
        print(
          `${green("Imported")} ${bold(file ?? tileset!)} into dataset ${bold(result.dataset)} (${result.mode}): ${count(result.places)} places, ${count(result.names)} names from ${count(result.lines)} lines in ${(result.ms / 1000).toFixed(1)} s` +
            (result.skipped ? dim(`; ${count(result.skipped)} rows skipped (${SKIPPED_BECAUSE[result.kind] ?? "not imported"})`) : ""),
        );
      return 0;
    } catch (err) {
      if (err instanceof InvalidGazetteerData || err instanceof AppError) {
        printErr(red(`mapstead gazetteer: ${err.message}`));
        return 1;
      }
      throw err;
    } finally {
      await ctx.shutdown();
    }
  },
};

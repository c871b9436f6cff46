// `mapstead elevation show|use|clear`: the DEM tileset embedded elevation samples, chosen from the machine
// itself. It is the choice the console's Elevation page makes (the same service, kept in the settings
// table), so a running server answers from the new DEM within a second, carried by the change bus.
// ELEVATION_TILESET in the environment wins over it, as it wins over the console.
import type { CliCommand } from "./command";
import { UsageError, parse, settingsHelp } from "./args";
import { bold, dim, green, print, printErr, red, yellow } from "./output";
import { withContext } from "./runtime";
import { unknownOrgWords } from "./unknown-org";
import { orgBySlug } from "../domain/orgs/service";
import { Conflict } from "../errors";
import type { ElevationSettings } from "../domain/elevation/settings";
import { tilesetName } from "../backends/elevation/dem-setting";

const HELP = `Usage:
  mapstead elevation show [--json] [settings]
  mapstead elevation use --org ORG --tileset SLUG [settings]
  mapstead elevation clear [settings]

show   Says which backend answers the elevation API (/elevation/v1/...), the DEM tileset in force and
       where that choice comes from (ELEVATION_TILESET or the console/CLI), its version, encoding,
       zooms and coverage (or what is wrong with it and the fix), and the DEM tilesets to choose from.
use    Makes ORG's tileset SLUG the DEM that embedded elevation samples: it must be a raster-DEM
       tileset with a published version (import a GeoTIFF or SRTM .hgt with mapstead tilesets import
       --publish). The same choice as the console's Elevation page; a running server answers from it
       within a second. It is used when ELEVATION is embedded, or auto without ELEVATION_INTERNAL_URL.
       Any organization's tileset may be chosen, so a private DEM answers heights to every key with
       the elevation scope.
clear  Removes the choice: without ELEVATION_TILESET or ELEVATION_INTERNAL_URL, elevation answers 503.

ELEVATION_TILESET, when set, wins over the choice made here or in the console: use and clear are then
refused; remove it from the environment (or the settings file) and restart the server to choose here.

Exit status: 0 done, 1 failed (the message says why), 2 usage error.

Settings:
${settingsHelp()}`;

const round = (n: number) => Math.round(n * 1000) / 1000;

/** One line for the DEM in force: its facts, or what is wrong with it and the fix. */
function demLine(v: ElevationSettings): string {
  if (v.dem) return `${bold(v.dem.tileset)} v${v.dem.version} (${v.dem.encoding} ${v.dem.format}, zoom ${v.dem.minzoom}-${v.dem.maxzoom}, covers ${v.dem.bounds.map(round).join(",")})`;
  if (v.problem) return `${red(v.problem.message)}\n  fix: ${v.problem.fix}`;
  return dim("none chosen");
}

/** What answers the elevation API, in words, with the fix when nothing does. */
function backendLine(v: ElevationSettings): string {
  if (v.backend === "opentopodata") return `OpenTopoData (ELEVATION_INTERNAL_URL${v.mode === "auto" ? ", which ELEVATION=auto prefers over the embedded DEM" : ""})`;
  if (v.backend === "embedded") return v.problem ? red("the embedded DEM, which cannot answer (below)") : "the embedded DEM";
  if (v.mode === "off") return yellow("none: ELEVATION=off, the elevation routes answer 503 ELEVATION_NOT_CONFIGURED");
  return yellow("none: elevation answers 503 ELEVATION_NOT_CONFIGURED; choose a DEM with: mapstead elevation use --org ORG --tileset SLUG");
}

function show(v: ElevationSettings): void {
  print(`Elevation API: ${backendLine(v)}`);
  print(`DEM:           ${demLine(v)}`);
  if (v.source === "env")
    print(`Chosen by:     ELEVATION_TILESET, which wins over the choice made with mapstead elevation use or in the console${v.console_tileset ? ` (${v.console_tileset}, not in force while it is set)` : ""}`);
  else if (v.source === "console") print("Chosen by:     mapstead elevation use or the console's Elevation page");
  if (v.choices.length) {
    print("DEM tilesets to choose from:");
    for (const c of v.choices) print(`  ${bold(c.tileset.padEnd(32))} v${c.version}  ${c.encoding}  zoom ${c.minzoom}-${c.maxzoom}  covers ${c.bounds.map(round).join(",")}  ${dim(c.name)}`);
  } else print(dim("No published raster-DEM tilesets yet: import one with mapstead tilesets import --org ORG --slug SLUG dem.tif --create --publish"));
}

export const elevationCommand: CliCommand = {
  name: "elevation",
  summary: "Show (show) or choose (use, clear) the DEM tileset the elevation API samples",
  help: HELP,
  async run(args, overrides) {
    const { values, positionals } = parse(args, { org: { type: "string" }, tileset: { type: "string" }, json: { type: "boolean" } });
    const [sub, ...extra] = positionals;
    if (!sub || !["show", "use", "clear"].includes(sub)) throw new UsageError("expected `elevation show|use|clear` (see --help)");
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    if (sub !== "use" && (values.org !== undefined || values.tileset !== undefined)) throw new UsageError(`--org and --tileset are for use, not ${sub}`);
    if (sub !== "show" && values.json) throw new UsageError(`--json is for show, not ${sub}`);
    if (sub === "use") {
      if (!values.org) throw new UsageError("--org is required");
      if (!values.tileset) throw new UsageError("--tileset is required (the slug of a published raster-DEM tileset of --org)");
      if (values.tileset.includes("/")) throw new UsageError(`--tileset is the tileset's slug; its organization goes in --org (e.g. --org ${values.tileset.split("/")[0]} --tileset ${values.tileset.split("/").slice(1).join("/")})`);
    }

    return withContext(overrides, "elevation", (ctx, services) => {
      const settings = services.elevationSettings;
      if (sub === "show") {
        const v = settings.view();
        if (values.json) print(JSON.stringify(v, null, 2));
        else show(v);
        return 0;
      }
      // The service refuses with the console's words ("the server's environment"); here it is this
      // command's environment or the settings file the server shares.
      if (ctx.config.elevationTileset) {
        printErr(
          red(
            `mapstead elevation: ELEVATION_TILESET=${tilesetName(ctx.config.elevationTileset)} is set (in the environment or the settings file) and wins over the DEM chosen here; remove it there and restart the server, then run this again`,
          ),
        );
        return 1;
      }
      if (sub === "clear") {
        const before = settings.view().console_tileset;
        if (before === null) {
          print("No elevation DEM is chosen; nothing changed");
          return 0;
        }
        settings.choose(null);
        print(`${green("Cleared")} the elevation DEM (was ${bold(before)}): ${backendLine(settings.view())}`);
        return 0;
      }
      const org = orgBySlug(ctx.db, values.org!);
      if (!org) {
        printErr(red(`mapstead elevation: ${unknownOrgWords(ctx.db, values.org!)}`));
        return 1;
      }
      // The tileset's own lookup first, for the words the tilesets commands use for an unknown one.
      services.tilesets.get(org, values.tileset!);
      let v: ElevationSettings;
      try {
        v = settings.choose(`${org.slug}/${values.tileset}`);
      } catch (err) {
        // "tileset: ..." names the API's body field; the flag says it here.
        if (err instanceof Conflict) throw new Conflict(err.message.replace(/^tileset: /, ""));
        throw err;
      }
      print(`${green("Chosen")}: elevation samples ${demLine(v)}`);
      print(`Elevation API: ${backendLine(v)}. A running server answers from it within a second.`);
      return 0;
    }, { existing: sub === "show" ? "show" : "change" });
  },
};

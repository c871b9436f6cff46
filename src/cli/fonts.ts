// `mapstead fonts add FILE [--name NAME]` and `mapstead fonts list`: the same font catalog and checks
// as POST/GET /api/v1/fonts, for the operator on the machine (no session needed).
import { createServices } from "../services";
import { inputFileProblem } from "./input-file";
import { readFileSync, statSync } from "node:fs";
import type { CliCommand } from "./command";
import { UsageError, parse, settingsHelp } from "./args";
import { configOrExit, openContext } from "./runtime";
import { bold, dim, green, print, printErr, red } from "./output";
import { AppError } from "../errors";
import { installFont, listFonts, MAX_FONT_BYTES } from "../domain/fonts/service";

const HELP = `Usage:
  mapstead fonts list [--json] [settings]
  mapstead fonts add FILE [--name NAME] [--json] [settings]

Installs a TrueType (.ttf) or OpenType (.otf) font for map labels, or lists the installed fonts.
The name defaults to the font's "Family Subfamily" (e.g. "Open Sans Regular"); styles use it in
text-font. Noto Sans Regular, Bold and Italic are built in. A running server sees new fonts within
a few seconds.

Settings:
${settingsHelp()}`;

export const fontsCommand: CliCommand = {
  name: "fonts",
  summary: "Install (add) or list fonts for map labels",
  help: HELP,
  async run(args, overrides) {
    const parsed = parse(args, { name: { type: "string" }, json: { type: "boolean" } });
    const [sub, file, ...extra] = parsed.positionals;
    const json = parsed.values.json === true;
    if (sub !== "add" && sub !== "list") throw new UsageError("expected `fonts add FILE` or `fonts list` (see --help)");
    if (sub === "list" && (file || parsed.values.name)) throw new UsageError("`fonts list` takes no file or --name");
    if (sub === "add" && (!file || extra.length)) throw new UsageError("`fonts add` takes exactly one FILE");

    // A mistyped file is said before a database is opened (or made, on a new DATA_DIR).
    const problem = sub === "add" ? inputFileProblem(file!) : null;
    if (problem) {
      printErr(red(`mapstead fonts: ${problem}`));
      return 1;
    }
    const config = configOrExit(overrides);
    const ctx = openContext(config, { quiet: true, existing: sub === "list" ? "show" : undefined });
    const { fonts: catalog, changes } = createServices(ctx);
    try {
      if (sub === "list") {
        const fonts = listFonts(catalog);
        if (json) print(JSON.stringify(fonts, null, 2));
        else for (const f of fonts) print(`${bold(f.name)}${f.builtin ? dim("  (built in)") : dim(`  added ${f.created_at}`)}`);
        return 0;
      }
      const size = statSync(file!).size;
      if (size > MAX_FONT_BYTES) {
        printErr(red(`mapstead fonts: ${file} is ${size} bytes; a font may be at most ${MAX_FONT_BYTES / 1024 / 1024} MiB`));
        return 1;
      }
      try {
        const font = installFont(ctx, catalog, changes, new Uint8Array(readFileSync(file!)), { name: parsed.values.name });
        if (json) print(JSON.stringify(font, null, 2));
        else if (font.restored) print(`${green("Restored")} the missing file of ${bold(font.name)} (${font.codepoints} characters): its glyphs are served again.`);
        else print(`${green("Installed")} ${bold(font.name)} (${font.codepoints} characters). Use it in a style as "text-font": ["${font.name}"].`);
        return 0;
      } catch (err) {
        if (err instanceof AppError) {
          printErr(red(`mapstead fonts: ${err.message}`));
          return 1;
        }
        throw err;
      }
    } finally {
      await ctx.shutdown();
    }
  },
};

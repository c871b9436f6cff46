// The README's command list, its CLI examples and what the CLI offers agree: every command `mapstead --help`
// lists is in the README's "Command line" block with the same summary, and every subcommand the usage of
// the tileset, style, elevation, gazetteer and font commands names appears in the README as
// `mapstead COMMAND SUB`, so a new one (tilesets update, elevation use) cannot ship undocumented.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/index";

const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");

test("the README's Command line block lists every command with its --help summary", () => {
  const block = /## Command line\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  for (const c of COMMANDS) expect(block).toContain(`  ${c.name.padEnd(22)}${c.summary}\n`);
});

// users, orgs and keys document some subcommands in other words (not `mapstead users list`), so they are left out.
const SPELLED_OUT = ["tilesets", "styles", "elevation", "gazetteer", "fonts"];

test("every subcommand in the usage of the tileset, style, elevation, gazetteer and font commands is shown in the README", () => {
  const missing: string[] = [];
  for (const c of COMMANDS.filter((c) => SPELLED_OUT.includes(c.name)))
    for (const [, sub] of c.help.matchAll(new RegExp(`^  mapstead ${c.name} ([a-z][a-z-]*)`, "gm")))
      if (!readme.includes(`mapstead ${c.name} ${sub}`)) missing.push(`mapstead ${c.name} ${sub}`);
  expect(missing).toEqual([]);
});

// A DATA_DIR the command's user may not write: one line naming DATA_DIR, the user and the fix, not
// SQLite's bare "unable to open database file" or "attempt to write a readonly database".
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/cli";
import { tempDir } from "../support/temp";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const isRoot = process.getuid?.() === 0;

/** Runs the CLI as a user without write access: `nobody` when the tests run as root (root writes anywhere). */
function cliAsOther(dataDir: string, ...args: string[]) {
  const cmd = ["bun", MAIN, ...args, "--data-dir", dataDir];
  const r = Bun.spawnSync(isRoot ? ["runuser", "-u", "nobody", "--", "env", "PATH=" + process.env.PATH, "MAPSTEAD_ENV_FILE=none", "NO_COLOR=1", ...cmd] : cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, err: r.stderr.toString() };
}

test("a database another user owns, and a DATA_DIR that cannot be created, name DATA_DIR and the fix", () => {
  const root = tempDir("mapstead-unwritable-");
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  expect(runCli(dataDir, "orgs", "list").code).toBe(0);
  chmodSync(dataDir, 0o755);
  if (!isRoot) chmodSync(dataDir, 0o555);
  const existing = cliAsOther(dataDir, "orgs", "list");
  expect(existing.code).toBe(1);
  expect(existing.err).toContain(`cannot open the database in DATA_DIR ${dataDir}`);
  expect(existing.err).toContain("needs to read and write that directory and its files");
  const parent = join(root, "locked");
  mkdirSync(parent, { mode: isRoot ? 0o755 : 0o555 });
  const missing = cliAsOther(join(parent, "data"), "migrate");
  expect(missing.code).toBe(1);
  expect(missing.err).toContain(`cannot open the database in DATA_DIR ${join(parent, "data")} (permission denied`);
});

// A DATA_DIR the command's user may not write: one line naming DATA_DIR, the user and the fix, not
// SQLite's bare "unable to open database file" or "attempt to write a readonly database".
import { expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../support/cli";
import { tempDir } from "../support/temp";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const isRoot = process.getuid?.() === 0;

/** Runs the CLI as a user without write access: `nobody` when the tests run as root (root writes anywhere). */
function cliAsOther(dataDir: string, ...args: string[]) {
  const cmd = ["bun", MAIN, ...args, "--data-dir", dataDir];
  const r = Bun.spawnSync(isRoot ? ["runuser", "-u", "nobody", "--", "env", "PATH=" + process.env.PATH, "MAPSTEAD_ENV_FILE=none", "NO_COLOR=1", ...cmd] : cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test("a database another user owns, and a DATA_DIR that cannot be created, name DATA_DIR and the fix", () => {
  const root = tempDir("mapstead-unwritable-");
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  chmodSync(dataDir, 0o755);
  if (!isRoot) chmodSync(dataDir, 0o555);
  const existing = cliAsOther(dataDir, "orgs", "list");
  expect(existing.code).toBe(1);
  expect(existing.err).toContain(`cannot open the database in DATA_DIR ${dataDir}`);
  expect(existing.err).toContain("needs to read and write that directory and its files");
  // Named by its account, not by $USER (which runuser leaves unset): "user nobody", never "user unknown".
  if (isRoot) expect(existing.err).toContain("user nobody needs to read and write");
  const parent = join(root, "locked");
  mkdirSync(parent, { mode: isRoot ? 0o755 : 0o555 });
  const missing = cliAsOther(join(parent, "data"), "migrate");
  expect(missing.code).toBe(1);
  expect(missing.err).toContain(`cannot open the database in DATA_DIR ${join(parent, "data")} (permission denied`);
});

test.skipIf(!isRoot)("root is refused in a DATA_DIR another user owns, before it makes a file there the server could not write", () => {
  const root = tempDir("mapstead-foreign-");
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  mkdirSync(dataDir);
  const nobody = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
  chownSync(dataDir, nobody, nobody);
  const r = runCli(dataDir, "orgs", "list");
  expect(r.code).toBe(1);
  expect(r.err).toContain(`DATA_DIR ${dataDir} belongs to user nobody; run the command as that user (sudo -u nobody mapstead ...)`);
  expect(readdirSync(dataDir)).toEqual([]);
});

test.skipIf(!isRoot)("the storage check finds an entry of DATA_DIR the server may not write (root's tilesets/), not only DATA_DIR itself", () => {
  const root = tempDir("mapstead-entry-");
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  mkdirSync(join(dataDir, "tilesets"), { recursive: true });
  const nobody = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
  chownSync(dataDir, nobody, nobody);
  const storage = join(import.meta.dir, "../../src/domain/health/storage.ts");
  const script = `import { storageFacts } from ${JSON.stringify(storage)}; console.log(JSON.stringify(storageFacts(${JSON.stringify(dataDir)})));`;
  const run = () => JSON.parse(Bun.spawnSync(["runuser", "-u", "nobody", "--", "bun", "-e", script], { stdout: "pipe", stderr: "pipe" }).stdout.toString());
  expect(run()).toMatchObject({ writable: false, error: expect.stringContaining("tilesets/ in it is not writable by this user") });
  chownSync(join(dataDir, "tilesets"), nobody, nobody);
  expect(run()).toMatchObject({ writable: true });
});

/** A read-only tmpfs, when this user may mount one (root, outside most containers' limits). */
function readOnlyMount(): string | null {
  if (!isRoot) return null;
  const dir = tempDir("mapstead-ro-");
  return Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", dir]).exitCode === 0 ? dir : null;
}

test("a DATA_DIR on a read-only filesystem says so, instead of advising a chown that cannot help", () => {
  const mount = readOnlyMount();
  if (mount === null) return void console.warn("skipped: cannot mount a read-only tmpfs here");
  try {
    for (const dataDir of [mount, join(mount, "data")]) {
      const r = runCli(dataDir, "orgs", "create", "--slug", "acme");
      expect(r.code).toBe(1);
      expect(r.err).toContain(`cannot open the database in DATA_DIR ${dataDir}: it is on a read-only filesystem`);
      expect(r.err).not.toContain("ownership");
    }
  } finally {
    Bun.spawnSync(["umount", mount]);
  }
});

/** A DATA_DIR with a database that the other user (see cliAsOther) may not open; chmod 0755 undoes it. */
function closedDataDir(prefix: string): string {
  const root = tempDir(prefix);
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  chmodSync(dataDir, isRoot ? 0o700 : 0o000);
  return dataDir;
}

test("preflight by a user who may not look into DATA_DIR does not report the database as missing", () => {
  const dataDir = closedDataDir("mapstead-unreadable-");
  try {
    const r = cliAsOther(dataDir, "preflight");
    expect(r.code).toBe(1);
    expect(r.out).not.toContain("No database in DATA_DIR");
    expect(r.out).toMatch(/sqlite +The database in DATA_DIR could not be opened: /);
  } finally {
    chmodSync(dataDir, 0o755);
  }
});

test("a user who may not open DATA_DIR is told so and whom to run as, not that it holds no database", () => {
  const dataDir = closedDataDir("mapstead-closed-");
  // A backup target the other user may write, so that DATA_DIR is what stops it.
  const target = tempDir("mapstead-closed-to-");
  chmodSync(target, 0o777);
  try {
    for (const args of [["orgs", "list"], ["backup", "--to", join(target, "bk")]]) {
      const r = cliAsOther(dataDir, ...args);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`cannot read DATA_DIR ${dataDir}: `);
      expect(r.err).toContain("may not open that directory; run the command as the user it belongs to");
      expect(r.err).not.toContain("no database");
      expect(r.err).not.toContain("has no Mapstead database");
    }
  } finally {
    chmodSync(dataDir, 0o755);
  }
});

test.skipIf(!isRoot)("preflight's fix for a database root may not use names the user to run as, not a generic chore", () => {
  const root = tempDir("mapstead-foreign-pf-");
  chmodSync(root, 0o755);
  const dataDir = join(root, "data");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  const nobody = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
  Bun.spawnSync(["chown", "-R", `${nobody}:${nobody}`, dataDir]);
  const r = runCli(dataDir, "preflight");
  expect(r.code).toBe(1);
  expect(r.out).toMatch(/sqlite +The database in DATA_DIR could not be opened: DATA_DIR \S+ belongs to user nobody\n +fix: Run the command as that user \(sudo -u nobody mapstead \.\.\.\)/);
});

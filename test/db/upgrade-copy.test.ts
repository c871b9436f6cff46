// Upgrading a database that holds data keeps a copy of it as it was, in DATA_DIR/upgrade-backups,
// before any migration runs; a new or current database gets none, and a copy that cannot be made
// stops the upgrade with nothing changed.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { migrations } from "../../drizzle/index";
import { openDatabase } from "../../src/db/client";
import { migrationStatus } from "../../src/db/migrate";
import { runCli } from "../support/cli";
import { tempDir } from "../support/temp";

const LAST = migrations.at(-1)!.tag;
const BEFORE_LAST = migrations.at(-2)!.tag;

/** A DATA_DIR whose database an older binary made (every migration but the last) and used (one org). */
function olderDatabase(): string {
  const dataDir = join(tempDir("mapstead-upgrade-"), "data");
  const handle = openDatabase(dataDir);
  handle.sqlite.exec("CREATE TABLE __mapstead_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  for (const m of migrations.slice(0, -1)) {
    for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) handle.sqlite.exec(statement);
    handle.sqlite.query("INSERT INTO __mapstead_migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, Date.now());
  }
  handle.sqlite.query("INSERT INTO orgs (slug, name, created_at) VALUES ('acme', 'Acme', ?)").run(Date.now());
  handle.sqlite.close();
  return dataDir;
}

const copiesIn = (dataDir: string) => readdirSync(join(dataDir, "upgrade-backups")).sort();

test("migrate copies an older database before upgrading it; the copy is the old schema with the data", () => {
  const dataDir = olderDatabase();
  const r = runCli(dataDir, "migrate");
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  const [copy] = copiesIn(dataDir);
  expect(copy).toMatch(new RegExp(`^mapstead-\\d{8}T\\d{6}Z-at-${BEFORE_LAST}\\.db$`));
  expect(r.out).toContain(`Kept a copy of the database as it was before the upgrade: ${join(dataDir, "upgrade-backups", copy!)}`);
  expect(r.out).toContain(`Applied 1 migration(s): ${LAST}`);
  const old = new Database(join(dataDir, "upgrade-backups", copy!), { readonly: true });
  expect(migrationStatus(old).pending).toEqual([LAST]);
  expect(old.query("SELECT slug FROM orgs").all()).toEqual([{ slug: "acme" }]);
  old.close();
  // Current now: running it again copies nothing.
  expect(runCli(dataDir, "migrate").out).toContain("Database is current");
  expect(copiesIn(dataDir)).toEqual([copy!]);
});

test("a new DATA_DIR gets no copy", () => {
  const dataDir = join(tempDir("mapstead-upgrade-"), "data");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  expect(readdirSync(dataDir)).not.toContain("upgrade-backups");
});

test("the newest three copies are kept", () => {
  const dataDir = olderDatabase();
  mkdirSync(join(dataDir, "upgrade-backups"));
  for (const stamp of ["20250101T000000Z", "20250201T000000Z", "20250301T000000Z"]) writeFileSync(join(dataDir, "upgrade-backups", `mapstead-${stamp}-at-0000_init.db`), "old");
  writeFileSync(join(dataDir, "upgrade-backups", "notes.txt"), "the operator's own file stays");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  const left = copiesIn(dataDir);
  expect(left).toHaveLength(4);
  expect(left).toContain("notes.txt");
  expect(left).not.toContain("mapstead-20250101T000000Z-at-0000_init.db");
});

test("serve and other commands keep the copy too; a copy that cannot be made stops the upgrade with nothing changed", () => {
  const dataDir = olderDatabase();
  // Not a directory: the copy cannot be written.
  writeFileSync(join(dataDir, "upgrade-backups"), "");
  for (const args of [["migrate"], ["orgs", "list"], ["serve", "--port", "0"]]) {
    const r = runCli(dataDir, ...args);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`could not keep a copy of the database in ${join(dataDir, "upgrade-backups")} before upgrading it`);
    expect(r.err).toContain("nothing was changed");
  }
  const handle = openDatabase(dataDir);
  expect(migrationStatus(handle.sqlite).pending).toEqual([LAST]);
  handle.sqlite.close();
  const listed = runCli(olderDatabase(), "orgs", "list");
  expect(listed.code).toBe(0);
  expect(listed.err).toContain("kept a copy of the database as it was before the upgrade");
});

test("no command upgrades a database a running server uses: migrate and the rest refuse, naming it", async () => {
  const dataDir = olderDatabase();
  // A live process that passes for a Mapstead server (its command line says so), holding the lock.
  const server = Bun.spawn(["bash", "-c", "exec -a mapstead-old-server sleep 60"]);
  try {
    writeFileSync(join(dataDir, "server.lock"), JSON.stringify({ pid: server.pid, host: hostname(), port: 8080, started_at: new Date().toISOString() }) + "\n");
    for (const args of [["migrate"], ["orgs", "list"]]) {
      const r = runCli(dataDir, ...args);
      expect(r.code).toBe(1);
      expect(r.err).toContain(`needs 1 database migration(s) (${LAST}) that this binary brings, but a Mapstead server (pid ${server.pid}, port 8080) runs on it`);
    }
    const db = new Database(join(dataDir, "mapstead.db"), { readonly: true });
    expect(migrationStatus(db).pending).toEqual([LAST]);
    db.close();
  } finally {
    server.kill();
    await server.exited;
  }
  // Once it has stopped, the upgrade goes ahead.
  expect(runCli(dataDir, "migrate").code).toBe(0);
});

// A DATA_DIR/mapstead.db that is not a database (random bytes, a half-copied file): SQLite's own words
// ("file is not a database") name no file, and no permission or mount change helps. Serve, commands and
// the preflight name the file and say to restore it from a backup.
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { runCli } from "../support/cli";
import { tempDir } from "../support/temp";

function damaged(): string {
  const dataDir = join(tempDir("mapstead-damaged-"), "data");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "mapstead.db"), randomBytes(64 * 1024));
  return dataDir;
}

test("serve and commands exit 1 naming the damaged file and the backups to restore it from", () => {
  const dataDir = damaged();
  for (const args of [["serve", "--port", "0"], ["orgs", "list"]]) {
    const r = runCli(dataDir, ...args);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`the database ${join(dataDir, "mapstead.db")} is damaged (file is not a database)`);
    expect(r.err).toContain("restore the database from a backup");
    expect(r.err).toContain("Backups section");
    expect(r.err).toContain(join(dataDir, "upgrade-backups"));
  }
});

test("the preflight's sqlite check fails with the restore fix, not advice about a writable directory", () => {
  const dataDir = damaged();
  const r = runCli(dataDir, "preflight", "--json");
  expect(r.code).toBe(1);
  const checks = JSON.parse(r.out).checks as { id: string; status: string; message: string; fix: string }[];
  const sqlite = checks.find((c) => c.id === "sqlite")!;
  expect(sqlite.status).toBe("fail");
  expect(sqlite.message).toContain(`${join(dataDir, "mapstead.db")} is damaged`);
  expect(sqlite.fix).toContain("Backups section");
  expect(sqlite.fix).not.toContain("writable directory");
  expect(checks.find((c) => c.id === "data_dir")!.status).toBe("pass");
});

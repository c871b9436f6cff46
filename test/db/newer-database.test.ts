// A database a newer Mapstead upgraded: this binary refuses to work on it (serve, migrate and every
// command that opens it) and the preflight says why, instead of writing rows the newer schema expects
// to find company for.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { migrate, migrationStatus, NewerDatabaseError } from "../../src/db/migrate";
import { runCli } from "../support/cli";
import { tempDir } from "../support/temp";

function upgradedByNewer(): string {
  const dataDir = join(tempDir("mapstead-newer-"), "data");
  const handle = openDatabase(dataDir);
  migrate(handle.sqlite);
  handle.sqlite.query("INSERT INTO __mapstead_migrations (tag, applied_at) VALUES ('0099_from_the_future', ?)").run(Date.now());
  handle.sqlite.close();
  return dataDir;
}

test("migrate refuses a database with migrations it does not know, naming them", () => {
  const dataDir = upgradedByNewer();
  const handle = openDatabase(dataDir);
  expect(migrationStatus(handle.sqlite).unknown).toEqual(["0099_from_the_future"]);
  expect(() => migrate(handle.sqlite)).toThrow(NewerDatabaseError);
  handle.sqlite.close();
});

test("commands and serve exit 1 with the reason; the preflight fails its migrations check", () => {
  const dataDir = upgradedByNewer();
  for (const args of [["orgs", "list"], ["migrate"], ["serve", "--port", "0"]]) {
    const r = runCli(dataDir, ...args);
    expect(r.code).toBe(1);
    expect(r.err).toContain("this database was upgraded by a newer Mapstead (it has migration(s) 0099_from_the_future this binary does not know)");
  }
  const preflight = runCli(dataDir, "preflight", "--json");
  expect(preflight.code).toBe(1);
  const check = JSON.parse(preflight.out).checks.find((c: { id: string }) => c.id === "migrations");
  expect(check).toMatchObject({ status: "fail", message: expect.stringContaining("upgraded by a newer Mapstead") });
  // the copy to go back to is named, as serve's message names it
  expect(check.fix).toContain("DATA_DIR/upgrade-backups");
});

// Upgrading a data dir made before versions kept when they were first published: every version that was
// ready then stays readable at its versioned URL (a URL already handed out must not turn into a 404),
// while a version still processing waits for its first publish like any new one.
import { expect, test } from "bun:test";
import { databaseBefore } from "./database-before";
import { migrate } from "../../src/db/migrate";

test("0006 marks the versions that were ready as published", () => {
  // The database as the release before this migration left it.
  const db = databaseBefore("0006");
  db.exec("INSERT INTO orgs (id, slug, name, created_at) VALUES (1, 'acme', 'Acme', 0)");
  db.exec("INSERT INTO tilesets (id, org_id, slug, name, published_version, created_at, updated_at) VALUES (1, 1, 'roads', 'Roads', NULL, 0, 0)");
  db.exec(
    `INSERT INTO tileset_versions (tileset_id, version, state, created_at, updated_at) VALUES
     (1, 1, 'ready', 0, 1000), (1, 2, 'ready', 0, 2000), (1, 3, 'processing', 0, 3000), (1, 4, 'failed', 0, 4000)`,
  );

  expect(migrate(db)).toContain("0006_version_published_at");
  expect(db.query("SELECT version, published_at FROM tileset_versions ORDER BY version").all()).toEqual([
    { version: 1, published_at: 1000 },
    { version: 2, published_at: 2000 },
    { version: 3, published_at: null },
    { version: 4, published_at: null },
  ]);
});

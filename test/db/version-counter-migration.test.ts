// Upgrading a data dir made before styles counted their versions: each style's counter starts at its
// highest published version, so the next publish does not give out a number again.
import { expect, test } from "bun:test";
import { databaseBefore } from "./database-before";
import { migrate } from "../../src/db/migrate";

test("0003 sets each style's last_version from its versions", () => {
  // The database as the release before this migration left it.
  const db = databaseBefore("0003");
  db.exec("INSERT INTO orgs (id, slug, name, created_at) VALUES (1, 'acme', 'Acme', 0)");
  db.exec("INSERT INTO styles (id, org_id, slug, name, draft, created_at, updated_at) VALUES (1, 1, 'city', 'City', '{}', 0, 0), (2, 1, 'draft-only', 'D', '{}', 0, 0)");
  db.exec("INSERT INTO style_versions (style_id, version, style, created_at) VALUES (1, 1, '{}', 0), (1, 3, '{}', 0)");

  expect(migrate(db)).toContain("0003_version_numbers_outlive_deletes");
  expect(db.query("SELECT slug, last_version FROM styles ORDER BY id").all()).toEqual([
    { slug: "city", last_version: 3 },
    { slug: "draft-only", last_version: 0 },
  ]);
  expect(db.query("SELECT COUNT(*) AS n FROM retired_slugs").get()).toEqual({ n: 0 });
});

// A write and the change that announces it land in one SQLite transaction: when either fails, neither is
// kept (no change without its write, no write without its change), and a committed write has exactly one
// change_log row. The change_log insert is made to fail with a trigger, as a crash between the two would.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createOrg } from "../../../src/domain/orgs/service";
import type { Change } from "../../../src/domain/changes/types";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedTileset } from "../../routes/management/styles/helpers";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(() => t.close());

const changeRows = () => t.ctx.sqlite.query<{ change: string }, []>("SELECT change FROM change_log ORDER BY id").all().map((r) => JSON.parse(r.change) as Change);
const failChangeLog = () => t.ctx.sqlite.exec("CREATE TRIGGER fail_change_log BEFORE INSERT ON change_log BEGIN SELECT RAISE(ABORT, 'change_log unavailable'); END");
const healChangeLog = () => t.ctx.sqlite.exec("DROP TRIGGER fail_change_log");

test("the bus: a write that throws leaves no change row and tells no listener; a committed one has one row", () => {
  const heard: Change[] = [];
  t.services.changes.on((c) => heard.push(c));
  const change: Change = { kind: "style", owner: "acme", slug: "streets" };
  t.ctx.sqlite.exec("CREATE TABLE scratch (n INTEGER)");
  expect(() =>
    t.services.changes.commit(change, () => {
      t.ctx.sqlite.exec("INSERT INTO scratch VALUES (1)");
      throw new Error("the write failed halfway");
    }),
  ).toThrow("the write failed halfway");
  expect([changeRows(), heard, t.ctx.sqlite.query("SELECT n FROM scratch").all()]).toEqual([[], [], []]);

  expect(t.services.changes.commit(change, () => t.ctx.sqlite.exec("INSERT INTO scratch VALUES (2)") && 42)).toBe(42);
  expect([changeRows(), heard, t.ctx.sqlite.query("SELECT n FROM scratch").all()]).toEqual([[change], [change], [{ n: 2 }]]);
});

test("styles: when the change cannot be recorded the write is rolled back; each committed write records exactly one change", () => {
  const org = createOrg(t.ctx.db, { slug: "acme" });
  const styles = t.services.styles;
  styles.create(org, { slug: "streets", name: "Streets" });
  const before = changeRows().length;

  failChangeLog();
  expect(() => styles.update(org, "streets", { name: "Renamed" })).toThrow("change_log unavailable");
  expect(() => styles.publish(org, "streets")).toThrow("change_log unavailable");
  expect(styles.get(org, "streets")).toMatchObject({ name: "Streets", publishedVersion: null });
  expect(styles.versions(org, "streets")).toEqual([]);
  healChangeLog();

  styles.update(org, "streets", { name: "Renamed" });
  expect(styles.publish(org, "streets")).toEqual({ version: 1, created: true });
  expect(styles.get(org, "streets")).toMatchObject({ name: "Renamed", publishedVersion: 1 });
  const streets: Change = { kind: "style", owner: "acme", slug: "streets" };
  expect(changeRows().slice(before)).toEqual([streets, streets]);
});

test("tilesets: a publish whose change cannot be recorded is rolled back; a committed one records exactly one change", () => {
  const org = createOrg(t.ctx.db, { slug: "acme" });
  seedTileset(t.ctx, org.id, "world", { versions: 2, published: 1 });
  const tilesets = t.services.tilesets;

  failChangeLog();
  expect(() => tilesets.publish(org, "world", 2)).toThrow("change_log unavailable");
  expect(() => tilesets.unpublish(org, "world")).toThrow("change_log unavailable");
  expect(tilesets.get(org, "world")).toMatchObject({ published_version: 1 });
  healChangeLog();

  tilesets.publish(org, "world", 2);
  expect(tilesets.get(org, "world")).toMatchObject({ published_version: 2 });
  expect(changeRows()).toEqual([{ kind: "tileset", owner: "acme", slug: "world", published: 2 }]);
});

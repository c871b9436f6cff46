// The change bus on real SQLite files: local publishes reach listeners at once; another connection's
// changes (as from another process) arrive through the data_version watcher, own rows are not replayed,
// a rolled-back write leaves no row, and old rows are pruned.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { CHANGE_LOG_RETENTION_MS, createChangeBus } from "../../src/domain/changes/bus";
import type { Change } from "../../src/domain/changes/types";
import { silentLogger } from "../../src/log";
import { tempDir } from "../support/app";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function twoConnections() {
  const dir = tempDir("mapstead-bus-");
  const mine = openDatabase(dir).sqlite;
  migrate(mine);
  const other = new Database(join(dir, "mapstead.db"));
  other.exec("PRAGMA busy_timeout = 5000");
  cleanups.push(() => {
    other.close();
    mine.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { mine, other };
}

test("a local publish reaches listeners at once and is not replayed by the watcher", () => {
  const { mine } = twoConnections();
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 60_000 });
  cleanups.push(() => bus.close());
  const heard: Change[] = [];
  bus.on((c) => heard.push(c));
  bus.publish({ kind: "style", owner: "acme", slug: "streets" });
  expect(heard).toEqual([{ kind: "style", owner: "acme", slug: "streets" }]);
  bus.poll();
  expect(heard).toHaveLength(1);
});

test("another connection's changes are replayed in order by poll(), once", () => {
  const { mine, other } = twoConnections();
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 60_000 });
  cleanups.push(() => bus.close());
  const heard: Change[] = [];
  bus.on((c) => heard.push(c));
  const otherBus = createChangeBus(other, silentLogger);
  otherBus.publish({ kind: "tileset", owner: "acme", slug: "world" });
  otherBus.publish({ kind: "key", keyId: 7 });
  expect(heard).toEqual([]);
  bus.poll();
  expect(heard).toEqual([
    { kind: "tileset", owner: "acme", slug: "world" },
    { kind: "key", keyId: 7 },
  ]);
  bus.poll();
  expect(heard).toHaveLength(2);
});

test("the watcher brings another connection's change without anyone calling poll()", async () => {
  const { mine, other } = twoConnections();
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 20 });
  cleanups.push(() => bus.close());
  const heard: Change[] = [];
  bus.on((c) => heard.push(c));
  createChangeBus(other, silentLogger).publish({ kind: "fonts" });
  for (let i = 0; i < 100 && !heard.length; i++) await Bun.sleep(20);
  expect(heard).toEqual([{ kind: "fonts" }]);
});

test("a change published inside a rolled-back transaction leaves no row for other processes", () => {
  const { mine, other } = twoConnections();
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 60_000 });
  cleanups.push(() => bus.close());
  const heard: Change[] = [];
  bus.on((c) => heard.push(c));
  const otherBus = createChangeBus(other, silentLogger);
  expect(() =>
    other.transaction(() => {
      otherBus.publish({ kind: "style", owner: "acme", slug: "gone" });
      throw new Error("write failed");
    })(),
  ).toThrow("write failed");
  bus.poll();
  expect(heard).toEqual([]);
  expect(mine.query("SELECT COUNT(*) AS n FROM change_log").get()).toEqual({ n: 0 });
});

test("a listener that throws does not stop the others", () => {
  const { mine } = twoConnections();
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 60_000 });
  cleanups.push(() => bus.close());
  const heard: Change[] = [];
  bus.on(() => {
    throw new Error("broken cache");
  });
  bus.on((c) => heard.push(c));
  bus.publish({ kind: "fonts" });
  expect(heard).toEqual([{ kind: "fonts" }]);
});

test("rows older than the retention are pruned by the watcher; newer ones stay", () => {
  const { mine } = twoConnections();
  const old = Date.now() - CHANGE_LOG_RETENTION_MS - 1000;
  mine.query("INSERT INTO change_log (origin, change, created_at) VALUES ('old', '{\"kind\":\"fonts\"}', ?)").run(old);
  const bus = createChangeBus(mine, silentLogger, { intervalMs: 60_000, pruneEveryMs: 0 });
  cleanups.push(() => bus.close());
  bus.publish({ kind: "fonts" });
  bus.poll();
  expect(mine.query<{ origin: string }, []>("SELECT origin FROM change_log").all().map((r) => r.origin)).toEqual([expect.not.stringContaining("old")]);
});

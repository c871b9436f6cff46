// The published-content cache on a real change bus (real SQLite): a change of one tileset or style
// drops that id's stable and versioned entries and nothing else; a fonts change drops the glyph answers;
// entries of immutable things (sprite directories, font ranges) stay; evictions are told to their kind.
import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { createChangeBus } from "../../src/domain/changes/bus";
import { silentLogger } from "../../src/log";
import { createPublishedCache } from "../../src/read/published-cache";
import { tempDir } from "../support/app";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function cacheOnBus(opts: { maxBytes?: number } = {}) {
  const dir = tempDir("mapstead-published-");
  const { sqlite } = openDatabase(dir);
  migrate(sqlite);
  const bus = createChangeBus(sqlite, silentLogger, { intervalMs: 60_000 });
  cleanups.push(() => {
    bus.close();
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { bus, cache: createPublishedCache(bus, opts) };
}

test("a tileset change drops that tileset's stable and versioned entries and its tiles, nothing else", () => {
  const { bus, cache } = cacheOnBus();
  const archives = cache.slot<string>("tileset");
  const tiles = cache.slot<string>("tile");
  const styles = cache.slot<string>("style");
  archives.set("acme", "world", "", "stable", 10);
  archives.set("acme", "world@1", "", "v1", 10);
  archives.set("acme", "world@2", "", "v2", 10);
  archives.set("acme", "world-2@1", "", "other tileset", 10);
  archives.set("other", "world@1", "", "other owner", 10);
  tiles.set("acme", "world@1", "0/0/0", "tile", 10);
  tiles.set("acme", "world-2@1", "0/0/0", "other tile", 10);
  styles.set("acme", "world", "", "a style named like the tileset", 10);

  bus.publish({ kind: "tileset", owner: "acme", slug: "world" });

  expect([archives.get("acme", "world"), archives.get("acme", "world@1"), archives.get("acme", "world@2"), tiles.get("acme", "world@1", "0/0/0")]).toEqual([
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  expect([archives.get("acme", "world-2@1"), archives.get("other", "world@1"), tiles.get("acme", "world-2@1", "0/0/0"), styles.get("acme", "world")]).toEqual([
    "other tileset",
    "other owner",
    "other tile",
    "a style named like the tileset",
  ]);
});

test("a style change drops that style's entries; a fonts change drops glyph answers but not font ranges or sprites", () => {
  const { bus, cache } = cacheOnBus();
  const styles = cache.slot<string>("style");
  const glyphs = cache.slot<string>("glyphs");
  const ranges = cache.slot<string>("font-range");
  const sprites = cache.slot<string>("sprite");
  styles.set("acme", "streets", "", "stable", 10);
  styles.set("acme", "streets@3", "", "v3", 10);
  styles.set("acme", "roads", "", "roads", 10);
  glyphs.set(1, "0-255.pbf", "Noto Sans Regular", "answer", 10);
  ranges.set("fontkey", 0, "", "records", 10);
  sprites.set("sprites/1/v1", "sprite.png", "", "png", 10);

  bus.publish({ kind: "style", owner: "acme", slug: "streets" });
  expect([styles.get("acme", "streets"), styles.get("acme", "streets@3"), styles.get("acme", "roads")]).toEqual([undefined, undefined, "roads"]);

  bus.publish({ kind: "fonts" });
  expect([glyphs.get(1, "0-255.pbf", "Noto Sans Regular"), ranges.get("fontkey", 0), sprites.get("sprites/1/v1", "sprite.png")]).toEqual([undefined, "records", "png"]);
});

test("one byte budget for every kind; an evicted or dropped entry is told to its kind's listener", () => {
  const { bus, cache } = cacheOnBus({ maxBytes: 800 });
  const archives = cache.slot<string>("tileset");
  const tiles = cache.slot<string>("tile");
  const closed: string[] = [];
  archives.onEvict((v) => closed.push(v));
  archives.set("acme", "world@1", "", "archive 1", 100);
  for (let i = 0; i < 10; i++) tiles.set("acme", "roads@1", `0/0/${i}`, "tile", 100);
  expect(closed).toEqual(["archive 1"]);
  expect(cache.bytes).toBeLessThanOrEqual(800);
  archives.set("acme", "world@2", "", "archive 2", 100);
  bus.publish({ kind: "tileset", owner: "acme", slug: "world" });
  expect(closed).toEqual(["archive 1", "archive 2"]);
  // No entry may take more than an eighth of the budget.
  tiles.set("acme", "roads@1", "big", "big tile", 101);
  expect(tiles.get("acme", "roads@1", "big")).toBeUndefined();
});

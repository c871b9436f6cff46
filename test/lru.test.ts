import { expect, test } from "bun:test";
import { Lru } from "../src/lru";

test("entries expire after their time to live (autocomplete's one minute)", () => {
  let now = 0;
  const c = new Lru<string>({ ttlMs: 60_000, maxEntries: 10, now: () => now });
  c.set("a", "x", 1);
  now = 59_999;
  expect(c.get("a")).toBe("x");
  now = 60_000;
  expect(c.get("a")).toBeUndefined();
  expect(c.size).toBe(0);
  expect(c.bytes).toBe(0);
});

test("memory is bounded by entry count and bytes, least recently used first", () => {
  const c = new Lru<string>({ maxEntries: 3, maxBytes: 10 });
  c.set("a", "1", 1);
  c.set("b", "2", 1);
  c.set("c", "3", 1);
  expect(c.get("a")).toBe("1"); // a is now the most recently used
  c.set("d", "4", 1);
  expect(c.get("b")).toBeUndefined();
  expect([c.get("a"), c.get("c"), c.get("d")]).toEqual(["1", "3", "4"]);
  c.set("big", "12345678", 8);
  expect(c.size).toBeLessThanOrEqual(3);
  expect(c.bytes).toBeLessThanOrEqual(10);
  expect(c.get("big")).toBe("12345678");
  c.set("huge", "x".repeat(11), 11);
  expect(c.get("huge")).toBeUndefined();
});

test("a hit keeps an entry that would otherwise be the next to go", () => {
  const c = new Lru<number>({ maxEntries: 100 });
  for (let i = 0; i < 100; i++) c.set(`k${i}`, i);
  expect(c.get("k0")).toBe(0);
  for (let i = 100; i < 150; i++) c.set(`k${i}`, i);
  expect(c.get("k0")).toBe(0);
  expect(c.get("k1")).toBeUndefined();
  expect(c.get("k50")).toBeUndefined();
  expect(c.get("k51")).toBe(51);
  expect(c.size).toBe(100);
});

test("entries above maxEntryBytes are not kept, and replace an older value under the key", () => {
  const c = new Lru<string>({ maxBytes: 100, maxEntryBytes: 10 });
  c.set("a", "small", 5);
  c.set("a", "large", 11);
  expect(c.get("a")).toBeUndefined();
  expect(c.bytes).toBe(0);
});

test("replacing a value counts its bytes once", () => {
  const c = new Lru<string>({ maxBytes: 100 });
  c.set("a", "1", 40);
  c.set("a", "2", 30);
  expect(c.bytes).toBe(30);
  expect(c.get("a")).toBe("2");
});

test("an entry can be given an earlier expiry (never a later one than its time to live)", () => {
  let now = 0;
  const c = new Lru<string>({ ttlMs: 60_000, now: () => now });
  c.set("early", "x", 1, 10_000);
  c.set("late", "y", 1, 999_999);
  now = 10_000;
  expect(c.get("early")).toBeUndefined();
  expect(c.entry("late")).toEqual(expect.objectContaining({ value: "y", expiresAt: 60_000 }));
  now = 60_000;
  expect(c.get("late")).toBeUndefined();
});

test("without a time to live entries never expire", () => {
  let now = 0;
  const c = new Lru<string>({ now: () => now });
  c.set("a", "x");
  now = 1e15;
  expect(c.entry("a")).toEqual(expect.objectContaining({ value: "x", expiresAt: Infinity }));
});

test("evicted, expired, deleted and matched entries are told to onEvict; replaced and cleared ones are not", () => {
  let now = 0;
  const gone: string[] = [];
  const c = new Lru<string>({ maxEntries: 2, ttlMs: 100, now: () => now, onEvict: (key) => gone.push(key) });
  c.set("a", "1");
  c.set("a", "1'");
  c.set("b", "2");
  c.set("c", "3");
  expect(gone).toEqual(["a"]);
  c.delete("b");
  now = 100;
  expect(c.get("c")).toBeUndefined();
  c.set("x/1", "x");
  c.set("y/1", "y");
  c.deleteWhere((k) => k.startsWith("x/"));
  expect(gone).toEqual(["a", "b", "c", "x/1"]);
  c.clear();
  expect(gone).toHaveLength(4);
  expect(c.size).toBe(0);
});

test("order of use is exact: every hit makes its entry the most recent", () => {
  const c = new Lru<number>({ maxEntries: 4 });
  for (const k of ["a", "b", "c", "d"]) c.set(k, 0);
  // Used from the newest back to the oldest: d is now the least recently used.
  for (const k of ["c", "b", "a"]) c.get(k);
  c.set("e", 0);
  expect(c.get("d")).toBeUndefined();
  expect(["a", "b", "c", "e"].map((k) => c.get(k))).toEqual([0, 0, 0, 0]);
  // Replacing a value makes it the most recent too, without counting it twice.
  c.set("a", 1);
  c.set("f", 0);
  expect(c.get("b")).toBeUndefined();
  expect(c.get("a")).toBe(1);
  expect(c.size).toBe(4);
});

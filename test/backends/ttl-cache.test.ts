import { expect, test } from "bun:test";
import { TtlCache } from "../../src/backends/ttl-cache";

test("entries expire after their time to live (autocomplete's one minute)", () => {
  let now = 0;
  const c = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10, maxBytes: 1e6, sizeOf: (v) => v.length, now: () => now });
  c.set("a", "x");
  now = 59_999;
  expect(c.get("a")).toBe("x");
  now = 60_000;
  expect(c.get("a")).toBeUndefined();
  expect(c.size).toBe(0);
});

test("memory is bounded by entry count and bytes, least recently used first", () => {
  let now = 0;
  const c = new TtlCache<string>({ ttlMs: 1e9, maxEntries: 3, maxBytes: 10, sizeOf: (v) => v.length, now: () => now });
  c.set("a", "1");
  c.set("b", "2");
  c.set("c", "3");
  now = 1000;
  expect(c.get("a")).toBe("1"); // a is now the most recently used
  c.set("d", "4");
  expect(c.get("b")).toBeUndefined();
  expect([c.get("a"), c.get("c"), c.get("d")]).toEqual(["1", "3", "4"]);
  c.set("big", "12345678");
  expect(c.size).toBeLessThanOrEqual(3);
  expect(c.get("big")).toBe("12345678");
  c.set("huge", "x".repeat(11));
  expect(c.get("huge")).toBeUndefined();
});

test("an entry can be given an earlier expiry (never a later one than its time to live)", () => {
  let now = 0;
  const c = new TtlCache<string>({ ttlMs: 60_000, maxEntries: 10, maxBytes: 1e6, sizeOf: (v) => v.length, now: () => now });
  c.set("early", "x", 10_000);
  c.set("late", "y", 999_999);
  now = 10_000;
  expect(c.get("early")).toBeUndefined();
  expect(c.entry("late")).toEqual(expect.objectContaining({ value: "y", expiresAt: 60_000 }));
  now = 60_000;
  expect(c.get("late")).toBeUndefined();
});

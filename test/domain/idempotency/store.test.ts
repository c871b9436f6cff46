// The Idempotency-Key store on a real SQLite file, with a controllable clock for the seven-day retention.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { createIdempotencyStore, payloadHash, RETENTION_MS } from "../../../src/domain/idempotency/service";
import { silentLogger } from "../../../src/log";

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.close());

const rows = () => (t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM idempotency_records").get() as { n: number }).n;

test("records expire after seven days and are cleaned up; an expired key starts afresh", () => {
  let now = 1_000_000;
  const store = createIdempotencyStore(t.ctx.sqlite, silentLogger, { now: () => now });
  try {
    const h = payloadHash({ a: 1 });
    expect(store.begin("key:1", "k", h)).toEqual({ kind: "new" });
    store.complete("key:1", "k", 200, '{"ok":true}');
    now += RETENTION_MS - 1;
    expect(store.begin("key:1", "k", h)).toEqual({ kind: "replay", status: 200, body: '{"ok":true}' });
    expect(store.cleanup()).toBe(0);
    now += 1;
    // Expired: the same key may now carry a different payload.
    expect(store.begin("key:1", "k", payloadHash({ a: 2 }))).toEqual({ kind: "new" });
    store.complete("key:1", "k", 200, "{}");
    expect(store.begin("key:2", "other", h)).toEqual({ kind: "new" });
    store.complete("key:2", "other", 200, "{}");
    const before = rows();
    now += RETENTION_MS;
    expect(store.cleanup()).toBe(2);
    expect(rows()).toBe(before - 2);
  } finally {
    store.stop();
  }
});

test("a claim left in progress by a dead process does not block its key after a restart", () => {
  const a = createIdempotencyStore(t.ctx.sqlite, silentLogger);
  const h = payloadHash(["x"]);
  expect(a.begin("user:9", "crash", h)).toEqual({ kind: "new" });
  expect(() => a.begin("user:9", "crash", h)).toThrow("still being processed");
  a.stop();
  const b = createIdempotencyStore(t.ctx.sqlite, silentLogger);
  try {
    expect(b.begin("user:9", "crash", h)).toEqual({ kind: "new" });
  } finally {
    b.stop();
  }
});

test("payload hashes ignore key order but not values", () => {
  expect(payloadHash({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(payloadHash({ b: [1, { d: 3, c: 2 }], a: 1 }));
  expect(payloadHash({ a: 1 })).not.toBe(payloadHash({ a: 2 }));
  expect(payloadHash([1, 2])).not.toBe(payloadHash([2, 1]));
});

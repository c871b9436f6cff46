// The render queue is bounded: with one worker and a queue of one, a third simultaneous render is
// answered at once with 503 RENDER_BUSY and Retry-After (and is not billed); a render past
// RENDER_TIMEOUT_MS has its worker stopped and answers 503 RENDER_TIMEOUT.
import { afterAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey } from "../../support/seed";
import { buildWorld } from "./world";

const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
});

async function world(env: Record<string, string>) {
  const t = await makeTestApp(env);
  apps.push(t);
  return { t, w: await buildWorld(t) };
}

describe("a full queue", () => {
  test("answers 503 RENDER_BUSY with Retry-After at once, without billing it", async () => {
    const { t, w } = await world({ RENDER_WORKERS: "1", RENDER_QUEUE: "1" });
    const key = seedKey(t.ctx, w.orgId, ["static_maps"], { monthlyQuota: 100 }).secret;
    // Three different images at once: one renders, one waits, one is refused.
    const answers = await Promise.all([1, 2, 3].map((z) => t.fetch(`/static/v1/acme/world/0,0,${z}/300x300.png`, { headers: { "x-api-key": key } })));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 503]);
    const busy = answers.find((r) => r.status === 503)!;
    expect(busy.headers.get("retry-after")).toBe("2");
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("RENDER_BUSY");
    // Only the two images count.
    const after = await t.fetch("/static/v1/acme/world/0,0,1/300x300.png", { headers: { "x-api-key": key } });
    expect(after.status).toBe(200);
    expect(after.headers.get("x-quota-used")).toBe("3");
  });

  test("raster tiles are refused the same way", async () => {
    const { t } = await world({ RENDER_WORKERS: "1", RENDER_QUEUE: "0" });
    const answers = await Promise.all(["1/0/0", "1/1/0"].map((a) => t.fetch(`/styles/v1/acme/world/tiles/256/${a}.png`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 503]);
  });
});

describe("the time limit", () => {
  test("a render past RENDER_TIMEOUT_MS answers 503 RENDER_TIMEOUT and the service goes on", async () => {
    const { t, w } = await world({ RENDER_WORKERS: "1", RENDER_TIMEOUT_MS: "100" });
    const slow = await t.fetch("/static/v1/acme/world/0,0,3/1280x1280@2x.png", { headers: { "x-api-key": w.staticKey } });
    expect(slow.status).toBe(503);
    expect(slow.headers.get("retry-after")).toBe("2");
    const error = ((await slow.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("RENDER_TIMEOUT");
    expect(error.message).toContain("100 ms");
    // The stopped worker was replaced: the next request is answered (not left hanging).
    const next = await t.fetch("/static/v1/acme/world/0,0,2/1280x1280@2x.png", { headers: { "x-api-key": w.staticKey } });
    expect(next.status).toBe(503);
  });
});

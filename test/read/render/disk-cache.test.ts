// Images of versioned styles are kept on disk: after a restart they are served without drawing them
// again (proved by a second app whose every render would time out), and stable-style images are not.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../support/app";
import { DiskImageCache } from "../../../src/read/render/disk-cache";
import { buildWorld } from "./world";

const dataDir = tempDir("mapstead-render-disk-");
const apps: TestApp[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const cachedFiles = () => readdirSync(join(dataDir, "render-cache"), { recursive: true }).filter((f) => String(f).endsWith(".img")).length;

test("a versioned raster tile and static image survive a restart; stable ones are drawn again", async () => {
  const first = await makeTestApp({}, { dataDir });
  apps.push(first);
  const w = await buildWorld(first);
  const tile = await first.fetch("/styles/v1/acme/world@1/tiles/256/1/0/0.png");
  expect(tile.status).toBe(200);
  const bytes = new Uint8Array(await tile.arrayBuffer());
  const image = await first.fetch("/static/v1/acme/world@1/0,0,1/100x100.png", { headers: { "x-api-key": w.staticKey } });
  expect(image.status).toBe(200);
  expect((await first.fetch("/styles/v1/acme/world/tiles/256/1/1/0.png")).status).toBe(200);
  expect(cachedFiles()).toBe(2);
  await first.close();
  apps.pop();

  // One worker that cannot start within 100 ms: anything that has to be drawn answers 503.
  const second = await makeTestApp({ RENDER_WORKERS: "1", RENDER_TIMEOUT_MS: "100" }, { dataDir });
  apps.push(second);
  const again = await second.fetch("/styles/v1/acme/world@1/tiles/256/1/0/0.png");
  expect(again.status).toBe(200);
  expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
  expect((await second.fetch("/static/v1/acme/world@1/0,0,1/100x100.png", { headers: { "x-api-key": w.staticKey } })).status).toBe(200);
  expect((await second.fetch("/styles/v1/acme/world/tiles/256/1/1/0.png")).status).toBe(503);
});

test("the cache keeps to its budget by deleting the oldest files", async () => {
  const dir = join(tempDir("mapstead-render-trim-"), "cache");
  const cache = new DiskImageCache(dir, 10_000);
  for (let i = 0; i < 5; i++) {
    cache.set(`k${i}`, new Uint8Array(3000).fill(i));
    await Bun.sleep(5);
  }
  expect(await cache.get("k0")).toBeNull();
  expect(await cache.get("k4")).toEqual(new Uint8Array(3000).fill(4));
  const kept = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith(".img")).length;
  expect(kept * 3000).toBeLessThanOrEqual(10_000);
  rmSync(join(dir, ".."), { recursive: true, force: true });
});

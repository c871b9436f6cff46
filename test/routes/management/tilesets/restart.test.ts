// A restart never leaves a version `processing` forever: a graceful stop hands the job back to the
// queue, a crashed process's job is re-queued once its heartbeat goes stale, and a job interrupted
// too often is failed with a message.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { countries, countries50m, createTileset, upload, waitForProgress, waitForVersion } from "./fixtures";

const dirs: string[] = [];
const apps: TestApp[] = [];
afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function app(dataDir: string) {
  const a = await makeTestApp({}, { dataDir });
  apps.push(a);
  return a;
}

test("stopping the server mid-processing re-queues the job; the next start finishes it", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const a = await app(dir);
  const org = seedOrg(a.ctx, "acme");
  const session = await seedSession(a.ctx, { orgId: org.id });
  await createTileset(a, "acme", session.headers, { slug: "world" });
  await upload(a, "acme", "world", session.headers, JSON.stringify(await countries50m()), "?maxzoom=8");
  // Tiling has begun; most of the work (z7, z8) is still ahead, so the stop lands mid-processing.
  await waitForProgress(a, "acme", "world", 1, session.headers, 35);
  await a.close();
  apps.splice(apps.indexOf(a), 1);

  const db = new Database(join(dir, "mapstead.db"));
  expect(db.query("SELECT state FROM tileset_versions").get()).toEqual({ state: "queued" });
  expect(db.query("SELECT state, attempts FROM jobs").get()).toEqual({ state: "queued", attempts: 1 });
  db.close();
  expect(readdirSync(join(dir, "tilesets", "1")).filter((f) => f.includes(".tmp"))).toEqual([]);

  const b = await app(dir);
  const v = (await waitForVersion(b, "acme", "world", 1, session.headers, 60_000)) as any;
  expect(v.state).toBe("ready");
  expect(v.maxzoom).toBe(8);
  expect(v.stats.tiles).toBeGreaterThan(20_000);
  expect((await b.fetch("/tiles/v1/acme/world@1/0/0/0.mvt", { headers: session.headers })).status).toBe(200);
});

/** Leaves a version as a crashed process would: job running with a stale heartbeat, version processing. */
async function crashedJob(attempts: number) {
  const dir = tempDir();
  dirs.push(dir);
  const a = await app(dir);
  const org = seedOrg(a.ctx, "acme");
  const session = await seedSession(a.ctx, { orgId: org.id });
  await createTileset(a, "acme", session.headers, { slug: "c" });
  await a.close();
  apps.splice(apps.indexOf(a), 1);
  // The version and its job, as left by a process that claimed the job and then died.
  const db = new Database(join(dir, "mapstead.db"));
  await Bun.write(join(dir, "uploads", "crashed.upload"), JSON.stringify(countries()));
  const old = Date.now() - 60_000;
  db.query("INSERT INTO tileset_versions (tileset_id, version, state, progress, source_format, source_path, recipe, stats, warnings, created_at, updated_at) VALUES (1, 1, 'processing', 0.5, 'geojson', 'uploads/crashed.upload', '{\"maxzoom\":2}', '{}', '[]', ?, ?)").run(old, old);
  db.query("UPDATE tilesets SET last_version = 1").run();
  const versionId = (db.query("SELECT id FROM tileset_versions").get() as { id: number }).id;
  db.query("INSERT INTO jobs (kind, payload, state, attempts, created_at, started_at, heartbeat_at) VALUES ('tileset.process', ?, 'running', ?, ?, ?, ?)").run(JSON.stringify({ versionId }), attempts, old, old, old);
  db.close();
  return { dir, headers: session.headers };
}

test("a job whose process crashed is re-queued from its stale heartbeat and finished", async () => {
  const { dir, headers } = await crashedJob(1);
  const b = await app(dir);
  const v = (await waitForVersion(b, "acme", "c", 1, headers)) as any;
  expect(v.state).toBe("ready");
  expect(v.maxzoom).toBe(2);
  expect(b.ctx.sqlite.query("SELECT state, attempts FROM jobs").get()).toEqual({ state: "done", attempts: 2 });
});

test("a job interrupted three times is failed with a message instead of looping", async () => {
  const { dir, headers } = await crashedJob(3);
  const b = await app(dir);
  const v = (await waitForVersion(b, "acme", "c", 1, headers)) as any;
  expect(v.state).toBe("failed");
  expect(v.error).toContain("interrupted 3 times");
  expect(readdirSync(join(dir, "uploads"))).toEqual([]);
});

test("on start, uploads no version points at and half-written archives older than an hour are removed", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const { mkdirSync, writeFileSync, utimesSync, existsSync } = await import("node:fs");
  mkdirSync(join(dir, "uploads"), { recursive: true });
  mkdirSync(join(dir, "tilesets", "7"), { recursive: true });
  const stale = new Date(Date.now() - 2 * 3_600_000);
  for (const f of ["uploads/orphan.upload", "tilesets/7/v1.mbtiles.tmp-3"]) {
    writeFileSync(join(dir, f), "x");
    utimesSync(join(dir, f), stale, stale);
  }
  writeFileSync(join(dir, "uploads", "fresh.upload"), "x"); // maybe a CLI import copying right now
  await app(dir);
  expect(existsSync(join(dir, "uploads", "orphan.upload"))).toBe(false);
  expect(existsSync(join(dir, "tilesets", "7", "v1.mbtiles.tmp-3"))).toBe(false);
  expect(existsSync(join(dir, "uploads", "fresh.upload"))).toBe(true);
});

test("while running, an upload left half-written by a crash is swept too (here by the next upload)", async () => {
  const dir = tempDir();
  dirs.push(dir);
  const { mkdirSync, writeFileSync, utimesSync, existsSync } = await import("node:fs");
  const t = await app(dir);
  const org = seedOrg(t.ctx, "acme");
  const { headers } = await seedSession(t.ctx, { orgId: org.id });
  // what a process killed mid-body leaves, noticed only after start-up's sweep had run
  mkdirSync(join(dir, "uploads"), { recursive: true });
  writeFileSync(join(dir, "uploads", "crashed.upload"), "{\"type\":\"FeatureCollection\",\"features\":[");
  const stale = new Date(Date.now() - 2 * 3_600_000);
  utimesSync(join(dir, "uploads", "crashed.upload"), stale, stale);
  await createTileset(t, "acme", headers, { slug: "next" });
  expect((await upload(t, "acme", "next", headers, JSON.stringify(countries()))).status).toBe(202);
  expect(existsSync(join(dir, "uploads", "crashed.upload"))).toBe(false);
  expect((await waitForVersion(t, "acme", "next", 1, headers)).state).toBe("ready");
});

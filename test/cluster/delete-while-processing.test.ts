// A version deleted while the supervisor of the compiled binary (WORKERS=2) processes it stops being
// processed, whoever deleted it: the CLI (another process) or the API, which an HTTP worker answers;
// and a CLI import stops when the server deletes its version. (A job used to stop only when its own
// process deleted it.)
// The job ends, the supervisor holds none of its files open, and no temp file is left behind.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../../src/context";
import { tempDir } from "../support/app";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../support/binary";
import { seedKey, seedOrg } from "../support/seed";
import { onFreshConnection, openDataDir } from "./support";

let bin: RunningBinary;
let seed: AppContext;
let h: Record<string, string>;

beforeAll(async () => {
  await ensureBinary();
  bin = await startBinary({ env: { WORKERS: "2" } });
  seed = openDataDir(bin.dataDir);
  const org = seedOrg(seed, "acme");
  h = { "x-api-key": seedKey(seed, org.id, ["tilesets:write"]).secret };
}, 180_000);
afterAll(async () => {
  await bin?.stop("SIGKILL");
  await seed?.shutdown();
});

const call = (path: string, init: RequestInit = {}) => onFreshConnection(bin.baseUrl, path, init);

/**
 * One 40-degree square to zoom 16: some 50 million tiles at zoom 16 alone, so its processing runs far
 * longer than this test unless something stops it.
 */
const endless = JSON.stringify({
  type: "FeatureCollection",
  features: [{ type: "Feature", properties: {}, geometry: { type: "Polygon", coordinates: [[[0, 0], [40, 0], [40, 40], [0, 40], [0, 0]]] } }],
});

/** Creates the tileset, uploads the square and waits until the supervisor is writing its tiles. */
async function processing(slug: string): Promise<void> {
  expect((await call("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...h, "content-type": "application/json" }, body: JSON.stringify({ slug }) })).status).toBe(201);
  expect((await call(`/api/v1/orgs/acme/tilesets/${slug}/versions?maxzoom=16`, { method: "POST", headers: h, body: endless })).status).toBe(202);
  await untilTiling(slug);
  expect(openFiles().length).toBeGreaterThan(0);
}

/** Waits until version 1 of `slug` is being cut into tiles (by the supervisor or a CLI import). */
async function untilTiling(slug: string): Promise<void> {
  let stats: { phase: string | null; tiles: number } = { phase: null, tiles: 0 };
  for (let i = 0; i < 600 && !(stats.phase === "tiling" && stats.tiles > 0); i++) {
    await Bun.sleep(100);
    const a = await call(`/api/v1/orgs/acme/tilesets/${slug}/versions/1`, { headers: h });
    if (a.status === 200) stats = JSON.parse(a.body).stats;
  }
  expect(stats.phase).toBe("tiling");
  expect(runningJobs()).toBe(1);
}

function runningJobs(): number {
  const db = new Database(join(bin.dataDir, "mapstead.db"), { readonly: true });
  try {
    return (db.query("SELECT COUNT(*) AS n FROM jobs WHERE state = 'running'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Files under DATA_DIR/tilesets the supervisor holds open (deleted ones read "... (deleted)"). */
function openFiles(): string[] {
  const fds = `/proc/${bin.pid}/fd`;
  const out: string[] = [];
  for (const fd of readdirSync(fds)) {
    try {
      const target = readlinkSync(join(fds, fd));
      if (target.startsWith(join(bin.dataDir, "tilesets"))) out.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** Temp archives and their scratch files left in DATA_DIR/tilesets. */
function tempFiles(): string[] {
  const root = join(bin.dataDir, "tilesets");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) => readdirSync(join(root, d)).filter((f) => f.includes(".tmp-")).map((f) => `${d}/${f}`));
}

/** Waits (at most 30 s, against processing that would run for many minutes) until no job runs. */
async function untilNoJobRuns(): Promise<void> {
  for (let i = 0; i < 300 && runningJobs() > 0; i++) await Bun.sleep(100);
}

async function expectStopped(slug: string): Promise<void> {
  await untilNoJobRuns();
  expect(runningJobs()).toBe(0);
  // The job ended as done (its data is gone), not failed, and the processing thread with it.
  const db = new Database(join(bin.dataDir, "mapstead.db"), { readonly: true });
  try {
    expect(db.query("SELECT state FROM jobs ORDER BY id DESC LIMIT 1").get()).toEqual({ state: "done" });
  } finally {
    db.close();
  }
  let open = openFiles();
  // The thread closes its files as it ends, just before the job is marked done.
  for (let i = 0; i < 50 && open.length; i++) {
    await Bun.sleep(100);
    open = openFiles();
  }
  expect(open).toEqual([]);
  expect(tempFiles()).toEqual([]);
  expect(readdirSync(join(bin.dataDir, "uploads"))).toEqual([]);
  const stopped = (e: Record<string, unknown>) => e.msg === "tileset version deleted while processing; stopped" && e.tileset === slug;
  await bin.waitForLog(stopped);
  expect(bin.logs().filter(stopped)).toMatchObject([{ level: "info", org: "acme", version: 1 }]);
}

test("the CLI deleting the tileset stops the supervisor's processing of its version", async () => {
  await processing("lines");
  const r = await runBinary(["tilesets", "delete", "--org", "acme", "--slug", "lines"], { env: { DATA_DIR: bin.dataDir } });
  expect(r.exitCode).toBe(0);
  await expectStopped("lines");
  // The files taken away under the job are no internal error (it was logged as "disk I/O error").
  expect(bin.logs().filter((e) => e.level === "error")).toEqual([]);
}, 120_000);

test("the CLI deleting the version stops the supervisor's processing of it", async () => {
  await processing("roads");
  const r = await runBinary(["tilesets", "delete", "--org", "acme", "--slug", "roads", "--version", "1"], { env: { DATA_DIR: bin.dataDir } });
  expect(r.exitCode).toBe(0);
  await expectStopped("roads");
}, 120_000);

test("deleting the version over the API (answered by an HTTP worker) stops the supervisor's processing", async () => {
  await processing("squares");
  expect((await call("/api/v1/orgs/acme/tilesets/squares/versions/1", { method: "DELETE", headers: h })).status).toBe(204);
  await expectStopped("squares");
  // The tileset itself is still there, without versions.
  expect(JSON.parse((await call("/api/v1/orgs/acme/tilesets/squares/versions", { headers: h })).body).versions).toEqual([]);
}, 120_000);

test("the server deleting a version the CLI imports stops the import, which removes its files and says so", async () => {
  const file = join(tempDir(), "square.geojson");
  writeFileSync(file, endless);
  // Killed after 60 s: the import would run for many minutes if nothing stopped it.
  const imported = runBinary(["tilesets", "import", "--org", "acme", "--slug", "imported", "--create", "--maxzoom", "16", file], { env: { DATA_DIR: bin.dataDir }, timeoutMs: 60_000 });
  await untilTiling("imported");
  expect((await call("/api/v1/orgs/acme/tilesets/imported/versions/1", { method: "DELETE", headers: h })).status).toBe(204);
  const r = await imported;
  expect(r.exitCode).toBe(1);
  expect(r.stderr).toContain("version 1 of acme/imported was deleted while it was being imported");
  expect(runningJobs()).toBe(0);
  expect(tempFiles()).toEqual([]);
  expect(readdirSync(join(bin.dataDir, "uploads"))).toEqual([]);
}, 120_000);

// A ready version whose archive file is gone or damaged on disk (deleted by hand, a partial restore):
// clients are told the tileset cannot be read now (503, naming it, no path), the log names the file and
// the fix, and nothing answers 500 or blames DATA_DIR's permissions.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, truncateSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "../../../support/app";
import { publish, uploadReady } from "../../management/tilesets/fixtures";
import { makeTestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { createLogger } from "../../../../src/log";
import { runPreflight } from "../../../../src/domain/preflight/checks";
import { runCli } from "../../../support/cli";

let t: TestApp;
let headers: Record<string, string>;
const logLines: string[] = [];
beforeAll(async () => {
  t = await makeTestApp({}, { log: createLogger("info", (line) => logLines.push(line)) });
  headers = (await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "acme").id })).headers;
});
afterAll(() => t?.close());

const point = JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [7.45, 46.95] }, properties: { name: "Bern" } }] });

async function archiveOf(slug: string) {
  await uploadReady(t, headers, slug, point, "?maxzoom=3");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
  const row = t.ctx.sqlite.query<{ archive_path: string }, [string]>("SELECT v.archive_path FROM tileset_versions v JOIN tilesets s ON s.id = v.tileset_id WHERE s.slug = ?").get(slug)!;
  return join(t.dataDir, row.archive_path);
}

test("a deleted archive: TileJSON and tiles answer 503 naming the tileset, and the log names the file", async () => {
  const path = await archiveOf("gone");
  rmSync(path);
  for (const url of ["/tiles/v1/acme/gone.json", "/tiles/v1/acme/gone@1.json", "/tiles/v1/acme/gone@1/0/0/0.pbf"]) {
    const res = await t.fetch(url);
    expect(res.status).toBe(503);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.message).toBe("Tileset 'acme/gone@1' cannot be read: its archive is missing on this server (the server's log names the file and the fix)");
    expect(error.message).not.toContain(t.dataDir);
  }
  const line = logLines.map((l) => JSON.parse(l)).find((l) => l.msg === "tileset archive cannot be read");
  expect(line).toMatchObject({ level: "error", tileset: "acme/gone@1", missing: true });
  expect(join(t.dataDir, line.file)).toBe(path);
  expect(line.fix).toContain("from a backup");
  // The operator's health page says so too, naming the version and what to do.
  const health = (await (await t.fetch("/health/detailed")).json()) as { status: string; components: { storage: { status: string; detail: string; fix: string } } };
  expect(health.status).toBe("degraded");
  expect(health.components.storage.status).toBe("degraded");
  expect(health.components.storage.detail).toContain("1 ready tileset version(s) have no readable archive in DATA_DIR (acme/gone@1 published missing)");
  expect(health.components.storage.fix).toContain("from a backup");
  // And the preflight, which an operator runs after a restore (a failure: the published map answers 503).
  const ok = async () => ({ status: "ok" as const, detail: "stub" });
  const report = await runPreflight({ config: t.ctx.config, sqlite: t.ctx.sqlite, listening: true, probeGeocoder: ok, probeElevation: ok, probeRouter: ok });
  expect(report.checks.find((c) => c.id === "archives")).toMatchObject({ status: "fail", message: expect.stringContaining("(acme/gone@1 published missing)"), fix: expect.stringContaining("mapstead tilesets delete") });
  // The log's fix works as written for the published version: unpublish, then delete.
  const steps = [...(line.fix as string).matchAll(/mapstead (tilesets (?:unpublish|delete) [^()]*?)(?= \(|\)|$)/g)].map((m) => m[1]!.trim().split(" "));
  expect(steps.map((s) => s[1])).toEqual(["delete", "unpublish"]);
  for (const args of [steps[1]!, steps[0]!]) expect(runCli(t.dataDir, ...args)).toMatchObject({ code: 0 });
  expect((await t.fetch("/tiles/v1/acme/gone@1.json")).status).toBe(404);
});

test("a truncated archive is damaged, not an internal error", async () => {
  const path = await archiveOf("cut");
  truncateSync(path, Math.floor(statSync(path).size / 3));
  const res = await t.fetch("/tiles/v1/acme/cut@1/0/0/0.pbf");
  expect(res.status).toBe(503);
  expect(((await res.json()) as { error: { message: string } }).error.message).toContain("its archive is damaged");
  // Its header is intact, so only the failed open tells: /health/detailed names it from then on...
  const storage = async () => ((await (await t.fetch("/health/detailed")).json()) as { components: { storage: { status: string; detail: string } } }).components.storage;
  expect(await storage()).toMatchObject({ status: "degraded", detail: expect.stringContaining("(acme/cut@1 published damaged)") });
  // ...until the version is gone (or the file put back).
  expect(runCli(t.dataDir, "tilesets", "unpublish", "--org", "acme", "--slug", "cut").code).toBe(0);
  expect(runCli(t.dataDir, "tilesets", "delete", "--org", "acme", "--slug", "cut", "--version", "1").code).toBe(0);
  expect((await storage()).detail).not.toContain("acme/cut@1");
});

test("a stored tile that does not decode, or unzips past 32 MiB, is 503 for a client without gzip; gzip clients get it as stored", async () => {
  const path = await archiveOf("bad-tiles");
  const { Database } = await import("bun:sqlite");
  const { gzipSync } = await import("node:zlib");
  const db = new Database(path);
  const whole = gzipSync(Buffer.from("x".repeat(4000)));
  // z1 0/0 (row 1 in TMS): a truncated gzip; z1 1/0 (row 1): 40 MiB of zeros, gzipped to about 40 KB.
  db.run("INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (1, 0, 1, ?)", [whole.subarray(0, whole.length >> 1)]);
  db.run("INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (1, 1, 1, ?)", [gzipSync(Buffer.alloc(40 * 1024 * 1024))]);
  db.close();
  for (const tile of ["1/0/0", "1/1/0"]) {
    const plain = await t.fetch(`/tiles/v1/acme/bad-tiles@1/${tile}.mvt`, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(503);
    const { error } = (await plain.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("STORAGE_UNAVAILABLE");
    expect(error.message).toContain(`Tile ${tile} of 'acme/bad-tiles@1' cannot be decoded on this server`);
    const gzip = await t.fetch(`/tiles/v1/acme/bad-tiles@1/${tile}.mvt`, { headers: { "accept-encoding": "gzip" } });
    expect(gzip.status).toBe(200);
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
  }
});

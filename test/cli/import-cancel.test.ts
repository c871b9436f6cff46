// Ctrl-C (SIGINT) or SIGTERM during `mapstead tilesets import` cancels the import for good: the version
// fails (or the tileset --create made goes), its upload and scratch files go, and a server started on the
// data dir afterwards does not pick the job up and finish it. Deleting a version removes its scratch files.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../support/app";
import { runCli } from "../support/cli";

const MAIN = join(import.meta.dir, "../../src/main.ts");
let dir: string;
const data = () => join(dir, "data");
const cli = (...args: string[]) => runCli(data(), ...args);
const big = () => join(dir, "big.geojson");

/** Enough lines for an import to take several seconds. */
async function writeBigGeojson(path: string, n: number) {
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const x = -170 + ((i * 7919) % 34000) / 100;
    const y = -80 + ((i * 104729) % 16000) / 100;
    parts.push(`{"type":"Feature","properties":{"id":${i},"name":"feature ${i}"},"geometry":{"type":"LineString","coordinates":[[${x},${y}],[${x + 0.5},${y + 0.3}],[${x + 1},${y}]]}}`);
  }
  await Bun.write(path, `{"type":"FeatureCollection","features":[\n${parts.join(",\n")}\n]}\n`);
}

/** Every file under DATA_DIR/tilesets and DATA_DIR/uploads. */
function leftovers(): string[] {
  const out: string[] = [];
  for (const top of ["tilesets", "uploads"]) {
    const walk = (d: string) => {
      if (!existsSync(d)) return;
      for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : out.push(join(d, e.name).slice(data().length + 1));
    };
    walk(join(data(), top));
  }
  return out.sort();
}

/** Starts an import and waits until it is tiling (its scratch feature store has data). */
async function importUntilTiling(slug: string, ...extra: string[]) {
  const proc = Bun.spawn(["bun", MAIN, "tilesets", "import", "--org", "acme", "--slug", slug, big(), ...extra, "--data-dir", data(), "--public-url", "https://maps.example.com"], {
    env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const scratch = leftovers().filter((f) => f.endsWith(".features"));
    if (scratch.length && statSync(join(data(), scratch[0]!), { throwIfNoEntry: false })?.size) break;
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`the import did not start tiling: ${await new Response(proc.stderr).text()}`);
    await Bun.sleep(50);
  }
  const result = async () => ({ code: await proc.exited, out: await new Response(proc.stdout).text(), err: await new Response(proc.stderr).text() });
  return { proc, result };
}

beforeAll(async () => {
  dir = tempDir("mapstead-import-cancel-");
  await writeBigGeojson(big(), 150_000);
  await writeBigGeojson(join(dir, "small.geojson"), 10);
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("Ctrl-C cancels an import into an existing tileset: the version fails, its files go, a server does not finish it", async () => {
  expect(cli("tilesets", "create", "--org", "acme", "--slug", "kept").code).toBe(0);
  const { proc, result } = await importUntilTiling("kept", "--publish");
  proc.kill("SIGINT");
  const r = await result();
  expect(r.code).toBe(130);
  expect(r.err).toContain("mapstead tilesets: cancelled the import of big.geojson into acme/kept: version 1 is marked failed (cancelled from the command line (Ctrl-C)); its files are removed");
  expect(leftovers()).toEqual([]);
  const [row] = JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[];
  expect([row.slug, row.published_version, row.latest.state, row.latest.error]).toEqual(["kept", null, "failed", "cancelled from the command line (Ctrl-C)"]);

  // A server on the data dir, even once the job's heartbeat would have gone stale, leaves it alone.
  const server = await makeTestApp({}, { dataDir: data() });
  try {
    expect(server.services.tilesets.queue.requeueStale(Date.now() + 60_000)).toEqual([]);
    server.services.tilesets.startWorker();
    await Bun.sleep(1500);
  } finally {
    await server.close();
  }
  const [after] = JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[];
  expect(after.latest.state).toBe("failed");
  expect(leftovers()).toEqual([]);
}, 90_000);

test("SIGTERM cancels an import whose tileset --create made: the tileset goes with it", async () => {
  const { proc, result } = await importUntilTiling("made", "--create", "--publish");
  proc.kill("SIGTERM");
  const r = await result();
  expect(r.code).toBe(130);
  expect(r.err).toContain("mapstead tilesets: cancelled the import of big.geojson into acme/made: removed the tileset again, which this import had created; its files are removed");
  expect((JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).map((t) => t.slug)).not.toContain("made");
  expect(leftovers()).toEqual([]);
  // The same command runs again as if the first had never been.
  const again = cli("tilesets", "import", "--org", "acme", "--slug", "made", join(dir, "small.geojson"), "--create");
  expect(again.code).toBe(0);
  expect(again.out).toMatch(/Ready: acme\/made v\d/);
}, 90_000);

test("deleting a version an import was killed in the middle of removes its upload and scratch files", async () => {
  expect(cli("tilesets", "create", "--org", "acme", "--slug", "killed").code).toBe(0);
  const before = leftovers();
  const { proc, result } = await importUntilTiling("killed");
  proc.kill("SIGKILL");
  await result();
  const debris = leftovers().filter((f) => !before.includes(f));
  expect(debris.some((f) => f.endsWith(".features"))).toBe(true);
  expect(debris.some((f) => f.endsWith(".upload"))).toBe(true);
  const deleted = cli("tilesets", "delete", "--org", "acme", "--slug", "killed", "--version", "1");
  expect(deleted.code).toBe(0);
  expect(leftovers().filter((f) => !before.includes(f))).toEqual([]);
}, 90_000);

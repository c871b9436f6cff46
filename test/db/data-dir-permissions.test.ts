// DATA_DIR holds password hashes, key and session hashes and private archives: what Mapstead creates there
// must not be readable by every local user. Real processes from source, started under the common
// umask 022, so the test shows what the app does rather than what the test runner's umask happens to be.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { answersHealth, freePort, tempDir } from "../support/app";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const root = tempDir("mapstead-perms-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const UNDER_UMASK_022 = ["sh", "-c", 'umask 022 && exec "$0" "$@"', process.execPath, MAIN];
const env = (dataDir: string, extra: Record<string, string> = {}) => ({ ...process.env, NO_COLOR: "1", LOG_LEVEL: "error", DATA_DIR: dataDir, ...extra });

function cli(dataDir: string, ...args: string[]) {
  const r = Bun.spawnSync([...UNDER_UMASK_022, ...args], { env: env(dataDir), stdout: "pipe", stderr: "pipe" });
  expect(r.exitCode, r.stderr.toString()).toBe(0);
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Every file and directory under `dir` whose mode lets other users (not owner, not group) in. */
function worldAccessible(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((p) => (modeOf(join(dir, p)) & 0o007) !== 0).map((p) => `${p} ${modeOf(join(dir, p)).toString(8)}`);
}

describe("DATA_DIR permissions", () => {
  test("a command creates a missing DATA_DIR (and its parents) 0750 and writes the database and archives without world access", () => {
    const dataDir = join(root, "cli", "nested", "data");
    cli(dataDir, "migrate");
    expect(modeOf(join(root, "cli", "nested"))).toBe(0o750);
    expect(modeOf(dataDir)).toBe(0o750);
    expect(modeOf(join(dataDir, "mapstead.db"))).toBe(0o640);

    // A tileset import writes the upload, the archive and their directories.
    const point = join(root, "point.geojson");
    writeFileSync(point, JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", properties: { name: "x" }, geometry: { type: "Point", coordinates: [7.4, 46.9] } }] }));
    cli(dataDir, "orgs", "create", "--slug", "acme");
    cli(dataDir, "tilesets", "import", "--org", "acme", "--slug", "dot", point, "--create", "--maxzoom", "2");
    const files = readdirSync(dataDir, { recursive: true }) as string[];
    expect(files.some((f) => f.startsWith("tilesets"))).toBe(true);
    expect(worldAccessible(dataDir)).toEqual([]);
  }, 60_000);

  test("serve writes its database, WAL and setup token without world access, and leaves an operator's own directory as it was", async () => {
    const dataDir = join(root, "operator");
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755); // the operator chose this; Mapstead must not change it
    const port = freePort();
    const proc = Bun.spawn([...UNDER_UMASK_022, "serve"], { env: env(dataDir, { HOST: "127.0.0.1", PORT: String(port), WORKERS: "1", GEOCODER: "off" }), stdout: "ignore", stderr: "ignore" });
    try {
      expect(await answersHealth(port, 300)).toBe(true);
      expect(existsSync(join(dataDir, "setup-token"))).toBe(true);
      expect(existsSync(join(dataDir, "mapstead.db-wal"))).toBe(true);
      expect(modeOf(dataDir)).toBe(0o755);
      expect(worldAccessible(dataDir)).toEqual([]);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  }, 60_000);
});

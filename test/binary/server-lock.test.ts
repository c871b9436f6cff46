// One server per DATA_DIR: a second `serve` on the same data directory is refused while the first runs
// (each would keep its own rate limits and setup token), and a lock left by a server that died is taken
// over.
import { expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { runBinary, startBinary } from "../support/binary";
import { tempDir } from "../support/temp";

test("a second server on the same DATA_DIR is refused, naming the first; after it stops, one may start", async () => {
  const dataDir = join(tempDir("mapstead-lock-"), "data");
  const first = await startBinary({ dataDir });
  try {
    const second = await runBinary(["serve"], { env: { DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0" } });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`another Mapstead server (pid ${first.pid}, port ${first.port}`);
    expect(second.stderr).toContain(`serves DATA_DIR ${dataDir}`);
    // The first goes on serving.
    expect((await first.fetch("/health")).status).toBe(200);
  } finally {
    expect(await first.stop("SIGTERM")).toBe(0);
  }
  expect(existsSync(join(dataDir, "server.lock"))).toBe(false);
  const again = await startBinary({ dataDir });
  expect((await again.fetch("/health")).status).toBe(200);
  await again.stop("SIGTERM");
}, 120_000);

test("a lock whose server is gone (killed, or a pid another process now has) is taken over", async () => {
  const dataDir = join(tempDir("mapstead-lock-"), "data");
  const killed = await startBinary({ dataDir });
  await killed.stop("SIGKILL");
  expect(existsSync(join(dataDir, "server.lock"))).toBe(true);
  const after = await startBinary({ dataDir });
  expect((await after.fetch("/health")).status).toBe(200);
  await after.stop("SIGTERM");
  // A live process that is not Mapstead now has the lock's pid.
  const other = Bun.spawn(["sleep", "60"]);
  try {
    writeFileSync(join(dataDir, "server.lock"), JSON.stringify({ pid: other.pid, host: hostname(), port: 1, started_at: "then" }));
    const reused = await startBinary({ dataDir });
    expect((await reused.fetch("/health")).status).toBe(200);
    await reused.stop("SIGTERM");
  } finally {
    other.kill();
  }
}, 120_000);

test("a command without PUBLIC_URL prints the URLs of the server running on its DATA_DIR, and its own default once it stops", async () => {
  const dataDir = join(tempDir("mapstead-lock-"), "data");
  const cwd = tempDir("mapstead-lock-cwd-");
  const geojson = join(cwd, "points.geojson");
  await Bun.write(geojson, JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [7.9, 46.5] }, properties: {} }] }));
  const server = await startBinary({ dataDir });
  try {
    expect(server.port).not.toBe(8080);
    expect((await runBinary(["orgs", "create", "--slug", "acme"], { env: { DATA_DIR: dataDir }, cwd })).exitCode).toBe(0);
    const r = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "pts", "--create", geojson], { env: { DATA_DIR: dataDir }, cwd, timeoutMs: 60_000 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`TileJSON: http://localhost:${server.port}/tiles/v1/acme/pts@1.json`);
    // A PUBLIC_URL given to the command wins: the operator said where clients reach the server.
    const given = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "pts", geojson], { env: { DATA_DIR: dataDir, PUBLIC_URL: "https://maps.example.com" }, cwd, timeoutMs: 60_000 });
    expect(given.stdout).toContain("TileJSON: https://maps.example.com/tiles/v1/acme/pts@2.json");
    // The preflight judges the URL clients are sent to, the running server's, not its own default.
    // HOST as the command sees it (the default, 0.0.0.0) would warn of a localhost URL; the server listens on
    // 127.0.0.1, which the lock records.
    const preflight = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dataDir }, cwd });
    const urlCheck = (JSON.parse(preflight.stdout) as { checks: { id: string; message: string }[] }).checks.find((c) => c.id === "public_url");
    expect(urlCheck?.message).toBe(`Absolute URLs start with http://localhost:${server.port}`);
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
  const after = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "pts", geojson], { env: { DATA_DIR: dataDir }, cwd, timeoutMs: 60_000 });
  expect(after.stdout).toContain("TileJSON: http://localhost:8080/tiles/v1/acme/pts@3.json");
}, 180_000);

// The compiled binary processes uploads in its Worker thread (compiled in as its own entry point):
// `mapstead tilesets import` from the command line, then `mapstead serve` uploading over HTTP.
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { runBinary, startBinary, type RunningBinary } from "../../../support/binary";
import { countries } from "./fixtures";

const root = tempDir("mapstead-tilesets-bin-");
const dataDir = join(root, "data");
let running: RunningBinary | null = null;

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("the binary imports from the command line and processes uploads while serving", async () => {
  const file = join(root, "world.geojson");
  writeFileSync(file, JSON.stringify(countries()));
  expect((await runBinary(["orgs", "create", "--slug", "acme"], { env: { DATA_DIR: dataDir } })).exitCode).toBe(0);
  const imported = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "world", file, "--create", "--publish", "--maxzoom", "3"], { env: { DATA_DIR: dataDir }, timeoutMs: 60_000 });
  expect(imported.stderr).not.toContain("failed");
  expect(imported.exitCode).toBe(0);
  expect(imported.stdout).toContain("Ready: acme/world v1");

  running = await startBinary({ dataDir });
  const tj = (await (await running.fetch("/tiles/v1/acme/world.json")).json()) as { tiles: string[] };
  expect(tj.tiles[0]).toContain("/tiles/v1/acme/world@1/{z}/{x}/{y}.mvt");
  expect((await running.fetch("/tiles/v1/acme/world@1/3/4/2.mvt")).status).toBe(200);

  const key = await runBinary(["keys", "create", "--org", "acme", "--name", "loader", "--scopes", "tilesets:write", "--json"], { env: { DATA_DIR: dataDir } });
  const secret = (JSON.parse(key.stdout) as { secret: string }).secret;
  const up = await running.fetch("/api/v1/orgs/acme/tilesets/world/versions?maxzoom=2", { method: "POST", headers: { "x-api-key": secret }, body: JSON.stringify(countries()) });
  expect(up.status).toBe(202);
  let state = "queued";
  for (let i = 0; i < 300 && (state === "queued" || state === "processing"); i++) {
    await Bun.sleep(100);
    state = ((await (await running.fetch("/api/v1/orgs/acme/tilesets/world/versions/2", { headers: { "x-api-key": secret } })).json()) as { state: string }).state;
  }
  expect(state).toBe("ready");
}, 240_000);

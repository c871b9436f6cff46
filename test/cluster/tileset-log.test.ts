// The server log of the compiled binary (WORKERS=2) tells what happened to tilesets: a version
// processed by the supervisor becoming ready or failing on bad data, and every publish and unpublish,
// made through the API (answered by an HTTP worker) or by the CLI (another process). One line each,
// naming the version and nothing else of the caller or the data.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AppContext } from "../../src/context";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../support/binary";
import { seedKey, seedOrg } from "../support/seed";
import { onFreshConnection, openDataDir } from "./support";
import { countries } from "../routes/management/tilesets/fixtures";

let bin: RunningBinary;
let seed: AppContext;
let key: string;
let h: Record<string, string>;

beforeAll(async () => {
  await ensureBinary();
  bin = await startBinary({ env: { WORKERS: "2" } });
  seed = openDataDir(bin.dataDir);
  key = seedKey(seed, seedOrg(seed, "acme").id, ["tilesets:write"]).secret;
  h = { "x-api-key": key };
}, 180_000);
afterAll(async () => {
  await bin?.stop("SIGKILL");
  await seed?.shutdown();
});

const call = (path: string, init: RequestInit = {}) => onFreshConnection(bin.baseUrl, path, init);
const lines = (msg: string) => bin.logs().filter((e) => e.msg === msg);

async function processed(n: number): Promise<{ state: string; error: string | null }> {
  let v: { state: string; error: string | null } = { state: "queued", error: null };
  for (let i = 0; i < 600 && v.state !== "ready" && v.state !== "failed"; i++) {
    await Bun.sleep(100);
    v = JSON.parse((await call(`/api/v1/orgs/acme/tilesets/world/versions/${n}`, { headers: h })).body);
  }
  return v;
}

test("a version becoming ready is logged by the supervisor with its tiles and seconds", async () => {
  expect((await call("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...h, "content-type": "application/json" }, body: JSON.stringify({ slug: "world" }) })).status).toBe(201);
  expect((await call("/api/v1/orgs/acme/tilesets/world/versions?maxzoom=1&filename=world.geojson", { method: "POST", headers: h, body: JSON.stringify(countries()) })).status).toBe(202);
  expect((await processed(1)).state).toBe("ready");
  const line = await bin.waitForLog((e) => e.msg === "tileset version ready");
  expect(Object.keys(line).sort()).toEqual(["archive_format", "bytes", "features", "job_id", "level", "msg", "org", "seconds", "tiles", "tileset", "time", "version", "warnings"]);
  expect(line).toMatchObject({ level: "info", org: "acme", tileset: "world", version: 1, archive_format: "mbtiles" });
  expect(line.tiles as number).toBeGreaterThan(0);
  expect(line.features as number).toBeGreaterThan(0);
  expect(typeof line.seconds).toBe("number");
  expect(lines("tileset version processing")).toMatchObject([{ org: "acme", tileset: "world", version: 1, format: "geojson" }]);
}, 60_000);

test("a version failing on truncated JSON is logged at warn with the reason its uploader sees", async () => {
  const text = JSON.stringify(countries());
  expect((await call("/api/v1/orgs/acme/tilesets/world/versions?filename=world.geojson", { method: "POST", headers: h, body: text.slice(0, text.length / 2) })).status).toBe(202);
  const v = await processed(2);
  expect(v.state).toBe("failed");
  expect(v.error).toContain("truncated");
  const line = await bin.waitForLog((e) => e.msg === "tileset version failed");
  expect(line).toEqual({ time: expect.any(String), level: "warn", msg: "tileset version failed", org: "acme", tileset: "world", version: 2, job_id: expect.any(Number), error: v.error });
}, 60_000);

test("publishes and unpublishes through the API or the CLI get one line each in the server log", async () => {
  expect((await call("/api/v1/orgs/acme/tilesets/world/publish", { method: "POST", headers: { ...h, "content-type": "application/json" }, body: JSON.stringify({ version: 1 }) })).status).toBe(200);
  await bin.waitForLog((e) => e.msg === "tileset published");
  const cli = (...args: string[]) => runBinary(["tilesets", ...args, "--org", "acme", "--slug", "world"], { env: { DATA_DIR: bin.dataDir } });
  expect((await cli("unpublish")).exitCode).toBe(0);
  await bin.waitForLog((e) => e.msg === "tileset unpublished");
  expect((await cli("publish", "--version", "1")).exitCode).toBe(0);
  await bin.waitForLog(() => lines("tileset published").length === 2);
  expect(lines("tileset published")).toEqual([
    { time: expect.any(String), level: "info", msg: "tileset published", org: "acme", tileset: "world", version: 1 },
    { time: expect.any(String), level: "info", msg: "tileset published", org: "acme", tileset: "world", version: 1 },
  ]);
  expect(lines("tileset unpublished")).toEqual([{ time: expect.any(String), level: "info", msg: "tileset unpublished", org: "acme", tileset: "world" }]);
  // No line carries the caller's key.
  expect(bin.lines.some((l) => l.includes(key))).toBe(false);
}, 60_000);

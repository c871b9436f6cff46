// With one process (WORKERS=1) the server log tells what happened to tilesets too: processing started,
// ready (with tiles and seconds) or failed (at warn, with the reason the uploader sees), and every
// publish and unpublish made through the API. Lines name the version, never the caller.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../../../src/log";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { countries, createTileset, publish, upload, waitForVersion } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
const logged: Record<string, unknown>[] = [];
const lines = (msg: string) => logged.filter((e) => e.msg === msg);

beforeAll(async () => {
  t = await makeTestApp({}, { log: createLogger("info", (line) => logged.push(JSON.parse(line))) });
  headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "acme").id, ["tilesets:write"]).secret };
});
afterAll(() => t.close());

test("ready, failed, published and unpublished each get one line", async () => {
  await createTileset(t, "acme", headers, { slug: "world" });
  expect((await upload(t, "acme", "world", headers, JSON.stringify(countries()), "?maxzoom=1")).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "world", 1, headers)) as any).state).toBe("ready");
  const text = JSON.stringify(countries());
  expect((await upload(t, "acme", "world", headers, text.slice(0, text.length / 2), "?filename=world.geojson")).status).toBe(202);
  const failed = (await waitForVersion(t, "acme", "world", 2, headers)) as any;
  expect(failed.state).toBe("failed");
  expect((await publish(t, "acme", "world", 1, headers)).status).toBe(200);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/world/unpublish", { method: "POST", headers })).status).toBe(200);

  expect(lines("tileset version processing")).toMatchObject([{ version: 1 }, { version: 2 }]);
  const [ready] = lines("tileset version ready");
  expect(lines("tileset version ready")).toHaveLength(1);
  expect(ready).toMatchObject({ level: "info", org: "acme", tileset: "world", version: 1, archive_format: "mbtiles" });
  expect(ready!.tiles as number).toBeGreaterThan(0);
  expect(typeof ready!.seconds).toBe("number");
  expect(lines("tileset version failed")).toEqual([{ time: expect.any(String), level: "warn", msg: "tileset version failed", org: "acme", tileset: "world", version: 2, job_id: expect.any(Number), error: failed.error }]);
  expect(lines("tileset published")).toEqual([{ time: expect.any(String), level: "info", msg: "tileset published", org: "acme", tileset: "world", version: 1 }]);
  expect(lines("tileset unpublished")).toEqual([{ time: expect.any(String), level: "info", msg: "tileset unpublished", org: "acme", tileset: "world" }]);
  expect(logged.some((e) => JSON.stringify(e).includes(headers["x-api-key"]!))).toBe(false);
}, 60_000);

// The console's Elevation settings over HTTP: admins choose the DEM tileset embedded elevation samples
// (kept in the database, heard by every process through the change bus), see which backend answers and
// the DEM's coverage; ELEVATION_TILESET in the environment wins; bad choices are refused naming why.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { demMbtiles, ramp } from "../../../support/dem";
import { cities, createTileset, publish, upload, waitForVersion } from "../tilesets/fixtures";

const dataDir = tempDir("elevation-settings-");
const ALPS: [number, number, number, number] = [7, 46, 8, 47];
let t: TestApp;
let admin: Record<string, string>;
let member: Record<string, string>;
let key: Record<string, string>;

async function importDem(slug: string, height = ramp) {
  await createTileset(t, "acme", admin, { slug, attribution: `${slug} heights` });
  const path = join(dataDir, `${slug}.mbtiles`);
  demMbtiles(path, "terrarium", 8, ALPS, height, { declareEncoding: true });
  expect((await upload(t, "acme", slug, admin, new Uint8Array(readFileSync(path)))).status).toBe(202);
  expect((await waitForVersion(t, "acme", slug, 1, admin)).state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, admin)).status).toBe(200);
}

beforeAll(async () => {
  t = await makeTestApp({}, { dataDir });
  const org = seedOrg(t.ctx, "acme");
  admin = (await seedSession(t.ctx, { orgId: org.id, isAdmin: true })).headers;
  member = (await seedSession(t.ctx, { orgId: org.id, role: "owner" })).headers;
  key = { "x-api-key": seedKey(t.ctx, org.id, ["elevation"]).secret };
  await importDem("alps");
  await importDem("alps-high", (lon, lat) => ramp(lon, lat) + 500);
  await createTileset(t, "acme", admin, { slug: "roads" });
  expect((await upload(t, "acme", "roads", admin, JSON.stringify(await cities(20)), "?maxzoom=2")).status).toBe(202);
  expect((await waitForVersion(t, "acme", "roads", 1, admin)).state).toBe("ready");
  expect((await publish(t, "acme", "roads", 1, admin)).status).toBe(200);
  await createTileset(t, "acme", admin, { slug: "draft" });
});
afterAll(() => t.close());

const settings = (headers = admin) => t.fetch("/api/v1/elevation/settings", { headers });
const choose = (body: unknown, headers = admin) =>
  t.fetch("/api/v1/elevation/settings", { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) });
const height = async (app: TestApp, lon: number, lat: number) => app.fetch(`/elevation/v1/${lon},${lat}`, { headers: key });

describe("choosing the DEM in the console", () => {
  test("before a choice: no backend, the DEM tilesets offered, elevation 503", async () => {
    const res = await settings();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ mode: "auto", backend: "none", tileset: null, source: null, console_tileset: null, dem: null, problem: null });
    expect(body.choices.map((c: { tileset: string }) => c.tileset)).toEqual(["acme/alps", "acme/alps-high"]);
    expect(body.choices[0]).toMatchObject({ encoding: "terrarium", version: 1, minzoom: 8, maxzoom: 8, bounds: ALPS });
    expect((await height(t, 7.5, 46.5)).status).toBe(503);
  });

  test("an admin's choice answers elevation at once, with the DEM's coverage, zooms and the backend shown", async () => {
    const res = await choose({ tileset: "acme/alps" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ backend: "embedded", tileset: "acme/alps", source: "console", console_tileset: "acme/alps", problem: null });
    expect(body.dem).toMatchObject({ tileset: "acme/alps", version: 1, encoding: "terrarium", format: "png", minzoom: 8, maxzoom: 8, bounds: ALPS });
    expect(body.dem.bytes).toBeGreaterThan(0);
    const answer = await height(t, 7.5, 46.5);
    expect(answer.status).toBe(200);
    const json = await answer.json();
    expect(Math.abs(json.elevations[0].elevation - ramp(7.5, 46.5))).toBeLessThan(0.5);
    expect(json.attribution).toBe("alps heights");
    expect((await (await t.fetch("/health/detailed")).json()).components.elevation).toMatchObject({ status: "ok", backend: "embedded" });
  });

  test("another DEM replaces it (no stale cached heights); null clears it", async () => {
    expect((await choose({ tileset: "acme/alps-high" })).status).toBe(200);
    const json = await (await height(t, 7.5, 46.5)).json();
    expect(Math.abs(json.elevations[0].elevation - ramp(7.5, 46.5) - 500)).toBeLessThan(0.5);
    const cleared = await choose({ tileset: null });
    expect(await cleared.json()).toMatchObject({ backend: "none", tileset: null, console_tileset: null });
    expect((await height(t, 7.5, 46.5)).status).toBe(503);
  });

  test("the choice reaches another process on the same database (an HTTP worker) through the change bus", async () => {
    const worker = await makeTestApp({}, { dataDir });
    try {
      expect((await height(worker, 7.5, 46.5)).status).toBe(503);
      expect((await choose({ tileset: "acme/alps" })).status).toBe(200);
      worker.services.changes.poll();
      const answer = await height(worker, 7.5, 46.5);
      expect(answer.status).toBe(200);
      expect(Math.abs((await answer.json()).elevations[0].elevation - ramp(7.5, 46.5))).toBeLessThan(0.5);
    } finally {
      await worker.close();
    }
  });
});

describe("refused", () => {
  const refused = async (res: Response, status: number, code: string, pattern: RegExp) => {
    expect(res.status).toBe(status);
    const body = await res.json();
    expect(body.error.code).toBe(code);
    expect(body.error.message).toMatch(pattern);
  };

  test("only admin sessions: members 403, keys and anonymous callers 401", async () => {
    await refused(await settings(member), 403, "FORBIDDEN", /Only administrators/);
    await refused(await choose({ tileset: "acme/alps" }, member), 403, "FORBIDDEN", /Only administrators/);
    expect((await settings(key)).status).toBe(401);
    expect((await t.fetch("/api/v1/elevation/settings")).status).toBe(401);
  });

  test("bad names, unknown tilesets, vector and unpublished tilesets, bad bodies; the choice stays as it was", async () => {
    expect((await choose({ tileset: "acme/alps" })).status).toBe(200);
    await refused(await choose({ tileset: "alps" }), 400, "BAD_REQUEST", /tileset must be owner\/slug.*"alps"/);
    await refused(await choose({ tileset: "acme/../x" }), 400, "BAD_REQUEST", /tileset must be owner\/slug/);
    await refused(await choose({ tileset: "acme/nope" }), 404, "TILESET_NOT_FOUND", /acme\/nope does not exist/);
    await refused(await choose({ tileset: "acme/roads" }), 409, "CONFLICT", /acme\/roads is not a raster DEM \(its tiles are pbf/);
    await refused(await choose({ tileset: "acme/draft" }), 409, "CONFLICT", /acme\/draft has no published version; publish a ready version/);
    expect((await choose({ tileset: 7 })).status).toBe(400);
    expect((await choose({})).status).toBe(400);
    await refused(await choose({ tileset: "acme/alps", extra: 1 }), 400, "BAD_REQUEST", /Unknown body field.*'extra'/);
    expect((await choose("{not json")).status).toBe(400);
    expect(await (await settings()).json()).toMatchObject({ tileset: "acme/alps", source: "console" });
  });
});

describe("ELEVATION_TILESET in the environment", () => {
  test("wins over the console's choice, which is kept; choosing is 409 naming the setting", async () => {
    const pinned = await makeTestApp({ ELEVATION_TILESET: "acme/alps-high" }, { dataDir });
    try {
      const admin2 = (await seedSession(pinned.ctx, { isAdmin: true })).headers;
      const view = await (await pinned.fetch("/api/v1/elevation/settings", { headers: admin2 })).json();
      expect(view).toMatchObject({ backend: "embedded", tileset: "acme/alps-high", source: "env", console_tileset: "acme/alps" });
      const res = await pinned.fetch("/api/v1/elevation/settings", { method: "PUT", headers: { ...admin2, "content-type": "application/json" }, body: JSON.stringify({ tileset: "acme/alps" }) });
      expect(res.status).toBe(409);
      expect((await res.json()).error.message).toMatch(/ELEVATION_TILESET=acme\/alps-high is set in the server's environment and wins/);
      const json = await (await height(pinned, 7.5, 46.5)).json();
      expect(Math.abs(json.elevations[0].elevation - ramp(7.5, 46.5) - 500)).toBeLessThan(0.5);
    } finally {
      await pinned.close();
    }
  });

  test("ELEVATION=off: the console still shows the choice, and nothing answers", async () => {
    const off = await makeTestApp({ ELEVATION: "off" }, { dataDir });
    try {
      const admin2 = (await seedSession(off.ctx, { isAdmin: true })).headers;
      expect(await (await off.fetch("/api/v1/elevation/settings", { headers: admin2 })).json()).toMatchObject({ mode: "off", backend: "none", tileset: "acme/alps" });
      expect((await height(off, 7.5, 46.5)).status).toBe(503);
    } finally {
      await off.close();
    }
  });
});

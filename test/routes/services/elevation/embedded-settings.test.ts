// ELEVATION and ELEVATION_TILESET: validation at start-up, and which backend answers in each mode
// (auto prefers OpenTopoData when its URL is set, embedded forces the DEM, off answers 503).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../../../src/config";
import { elevationChoice } from "../../../../src/backends/elevation/select";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { demMbtiles, ramp } from "../../../support/dem";
import { startFakeOpenTopoData, fakeElevation, type FakeOpenTopoData } from "../../../support/fake-opentopodata";
import { createTileset, publish, upload, waitForVersion } from "../../management/tilesets/fixtures";

function refused(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe("settings", () => {
  test("ELEVATION defaults to auto; ELEVATION_TILESET parses owner/slug", () => {
    expect(loadConfig({}).elevation).toBe("auto");
    expect(loadConfig({ ELEVATION: "Embedded", ELEVATION_TILESET: "acme/srtm-30" })).toMatchObject({ elevation: "embedded", elevationTileset: { owner: "acme", slug: "srtm-30" } });
  });

  test("bad values and incomplete explicit modes are refused naming the setting", () => {
    expect(refused({ ELEVATION: "srtm" })).toMatchObject({ setting: "ELEVATION", message: expect.stringContaining("one of auto, opentopodata, embedded, off") });
    for (const bad of ["acme", "acme/srtm/v1", "Acme/srtm", "acme/", "../x"]) expect(refused({ ELEVATION_TILESET: bad }).setting).toBe("ELEVATION_TILESET");
    expect(refused({ ELEVATION: "opentopodata" }).message).toContain("needs ELEVATION_INTERNAL_URL");
    // Without ELEVATION_TILESET the DEM is the one an admin chooses in the console.
    expect(loadConfig({ ELEVATION: "embedded" })).toMatchObject({ elevation: "embedded", elevationTileset: null });
  });

  test("which backend each mode chooses", () => {
    const url = "http://opentopodata:5000/v1/srtm30m";
    const tileset = { owner: "acme", slug: "dem" };
    expect(elevationChoice({ elevation: "auto", elevationUrl: url, elevationTileset: tileset }).backend).toBe("opentopodata");
    expect(elevationChoice({ elevation: "auto", elevationUrl: null, elevationTileset: tileset }).backend).toBe("embedded");
    expect(elevationChoice({ elevation: "auto", elevationUrl: null, elevationTileset: null })).toEqual({ backend: "none", reason: "unset" });
    expect(elevationChoice({ elevation: "embedded", elevationUrl: url, elevationTileset: tileset }).backend).toBe("embedded");
    expect(elevationChoice({ elevation: "opentopodata", elevationUrl: url, elevationTileset: tileset }).backend).toBe("opentopodata");
    expect(elevationChoice({ elevation: "off", elevationUrl: url, elevationTileset: tileset })).toEqual({ backend: "none", reason: "off" });
  });
});

describe("each mode over HTTP", () => {
  let fake: FakeOpenTopoData;
  const dataDir = tempDir("elevation-modes-");
  const point = "/elevation/v1/7.5,46.5";

  beforeAll(async () => {
    fake = startFakeOpenTopoData();
    // One data directory with a published DEM, opened under each setting in turn.
    const t = await makeTestApp({}, { dataDir });
    const org = seedOrg(t.ctx, "acme");
    const admin = (await seedSession(t.ctx, { orgId: org.id })).headers;
    await createTileset(t, "acme", admin, { slug: "dem" });
    const path = join(dataDir, "dem-source.mbtiles");
    demMbtiles(path, "terrarium", 6, [7, 46, 8, 47], ramp, { declareEncoding: true });
    expect((await upload(t, "acme", "dem", admin, new Uint8Array(readFileSync(path)))).status).toBe(202);
    expect((await waitForVersion(t, "acme", "dem", 1, admin)).state).toBe("ready");
    expect((await publish(t, "acme", "dem", 1, admin)).status).toBe(200);
    await t.close();
  });
  afterAll(() => fake.stop());

  async function withMode(env: Record<string, string>, check: (t: TestApp, key: Record<string, string>) => Promise<void>) {
    const t = await makeTestApp(env, { dataDir });
    try {
      const org = t.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM orgs WHERE slug = 'acme'").get()!;
      await check(t, { "x-api-key": seedKey(t.ctx, org.id, ["elevation"]).secret });
    } finally {
      await t.close();
    }
  }
  const health = async (t: TestApp) => (await (await t.fetch("/health/detailed")).json()).components.elevation;

  test("auto with both set: OpenTopoData answers (its URL wins)", async () => {
    fake.reset();
    await withMode({ ELEVATION_INTERNAL_URL: fake.url, ELEVATION_TILESET: "acme/dem" }, async (t, key) => {
      const body = await (await t.fetch(point, { headers: key })).json();
      expect(body.elevations[0].elevation).toBe(fakeElevation(46.5, 7.5));
      expect(fake.calls.length).toBe(1);
      expect(await health(t)).toMatchObject({ status: "ok", backend: "opentopodata", detail: expect.stringMatching(/^OpenTopoData /) });
    });
  });

  test("embedded with both set: the DEM answers and OpenTopoData is never called", async () => {
    fake.reset();
    await withMode({ ELEVATION: "embedded", ELEVATION_INTERNAL_URL: fake.url, ELEVATION_TILESET: "acme/dem" }, async (t, key) => {
      const body = await (await t.fetch(point, { headers: key })).json();
      expect(Math.abs(body.elevations[0].elevation - ramp(7.5, 46.5))).toBeLessThan(0.5);
      // The tileset has no attribution of its own: the archive's metadata gives it.
      expect(body.attribution).toBe("Test DEM (CC0)");
      expect(fake.calls.length).toBe(0);
      expect((await health(t)).backend).toBe("embedded");
    });
  });

  test("off: 503 ELEVATION_NOT_CONFIGURED even with both set; health says not configured", async () => {
    fake.reset();
    await withMode({ ELEVATION: "off", ELEVATION_INTERNAL_URL: fake.url, ELEVATION_TILESET: "acme/dem" }, async (t, key) => {
      const res = await t.fetch(point, { headers: key });
      expect(res.status).toBe(503);
      expect((await res.json()).error.code).toBe("ELEVATION_NOT_CONFIGURED");
      expect(fake.calls.length).toBe(0);
      expect(await health(t)).toMatchObject({ status: "not_configured", backend: "none", detail: expect.stringContaining("ELEVATION=off") });
    });
  });

  test("auto with nothing set: 503, and the fix says no DEM tileset is chosen", async () => {
    await withMode({}, async (t, key) => {
      expect((await t.fetch(point, { headers: key })).status).toBe(503);
      expect(await health(t)).toMatchObject({ status: "not_configured", backend: "none", detail: expect.stringContaining("No DEM tileset chosen") });
      const check = (await (await t.fetch("/setup/preflight")).json()).checks.find((c: { id: string }) => c.id === "elevation");
      expect(check.fix).toContain("ELEVATION_TILESET=owner/slug");
    });
  });
});

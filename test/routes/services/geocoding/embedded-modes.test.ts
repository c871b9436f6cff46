// GEOCODER picks the backend: auto (Pelias when GEOCODER_INTERNAL_URL is set, else the embedded
// gazetteer), pelias, embedded, off. Health and preflight say which one answers, and the embedded one
// answers 503 with Retry-After while it is first built.
import { probeEmbeddedGeocoder } from "../../../../src/backends/geocoder/embedded/probe";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../../../src/config";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { startFakePelias, type FakePelias } from "../../../support/fake-pelias";
import { dataDirWithGazetteer } from "../../../backends/geocoder/embedded/fixtures";

let fake: FakePelias;
beforeAll(() => {
  fake = startFakePelias();
});
afterAll(() => fake.stop());

async function appWith(env: Record<string, string>, dataDir?: string) {
  const t = await makeTestApp(env, dataDir ? { dataDir } : {});
  const headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "modes").id, ["geocoding"]).secret };
  return { t, get: (path: string) => t.fetch(path, { headers }) };
}

const componentOf = async (t: TestApp) => (await (await t.fetch("/health/detailed")).json()).components.geocoder;
const preflightCheck = async (t: TestApp) => (await (await t.fetch("/setup/preflight")).json()).checks.find((c: { id: string }) => c.id === "geocoder");

describe("the GEOCODER setting", () => {
  test("resolves auto from GEOCODER_INTERNAL_URL; names the setting when wrong", () => {
    expect(loadConfig({}).geocoder).toBe("embedded");
    expect(loadConfig({ GEOCODER_INTERNAL_URL: "http://pelias:4000/v1" }).geocoder).toBe("pelias");
    expect(loadConfig({ GEOCODER: "EMBEDDED", GEOCODER_INTERNAL_URL: "http://pelias:4000/v1" }).geocoder).toBe("embedded");
    expect(loadConfig({ GEOCODER: "off" }).geocoder).toBe("off");
    expect(() => loadConfig({ GEOCODER: "pelias" })).toThrow(ConfigError);
    expect(() => loadConfig({ GEOCODER: "pelias" })).toThrow(/GEOCODER=pelias needs GEOCODER_INTERNAL_URL/);
    expect(() => loadConfig({ GEOCODER: "nominatim" })).toThrow(/GEOCODER="nominatim" is invalid: expected one of auto, pelias, embedded, off/);
  });

  test("auto with a URL asks Pelias; embedded ignores the URL and answers from the gazetteer", async () => {
    const pelias = await appWith({ GEOCODER_INTERNAL_URL: fake.url });
    const embedded = await appWith({ GEOCODER: "embedded", GEOCODER_INTERNAL_URL: fake.url }, await dataDirWithGazetteer());
    try {
      fake.reset();
      expect((await pelias.get("/geocoding/v1/forward?q=via-pelias")).status).toBe(200);
      expect(fake.calls).toHaveLength(1);
      const res = await embedded.get("/geocoding/v1/forward?q=zurich&limit=1");
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.features[0].properties).toMatchObject({ name: "Zürich", source: "geonames-cities1000" });
      expect(body.geocoding.attribution).toContain("GeoNames");
      expect(fake.calls).toHaveLength(1);
      expect((await componentOf(embedded.t)).detail).toContain("embedded gazetteer");
    } finally {
      await pelias.t.close();
      await embedded.t.close();
    }
  });

  test("off answers 503 GEOCODER_NOT_CONFIGURED everywhere, and health and preflight say how to turn it on", async () => {
    const { t, get } = await appWith({ GEOCODER: "off" });
    try {
      for (const path of ["/geocoding/v1/forward?q=x", "/geocoding/v1/reverse?lon=1&lat=2", "/geocoding/v1/autocomplete?text=x"]) {
        const res = await get(path);
        expect(res.status).toBe(503);
        expect((await res.json()).error.code).toBe("GEOCODER_NOT_CONFIGURED");
      }
      expect(await componentOf(t)).toMatchObject({ status: "not_configured", detail: expect.stringContaining("GEOCODER=off") });
      const check = await preflightCheck(t);
      expect(check.status).toBe("warn");
      expect(check.fix).toContain("GEOCODER=auto");
      expect(existsSync(join(t.dataDir, "gazetteer.sqlite"))).toBe(false);
    } finally {
      await t.close();
    }
  });
});

describe("first start of the embedded gazetteer", () => {
  test("503 GEOCODER_UNAVAILABLE with Retry-After while it builds, then answers; health follows", async () => {
    const { t, get } = await appWith({});
    try {
      expect(await componentOf(t)).toMatchObject({ status: "ok", detail: expect.stringContaining("not opened yet") });
      const early = await get("/geocoding/v1/forward?q=berlin");
      expect(early.status).toBe(503);
      expect(Number(early.headers.get("retry-after"))).toBeGreaterThan(0);
      const err = (await early.json()).error;
      expect(err.code).toBe("GEOCODER_UNAVAILABLE");
      expect(err.message).toContain("being built");
      expect(t.services.gazetteer.status().state).toBe("building");
      // The build runs on its own thread: meanwhile the request thread answers, and the health probe (its
      // answer above is cached for a while) says why geocoding waits.
      expect(await probeEmbeddedGeocoder(t.dataDir, t.services.gazetteer)).toMatchObject({ status: "degraded", detail: expect.stringContaining("being built") });
      expect((await get("/geocoding/v1/reverse?lon=13.4&lat=52.52")).status).toBe(503);
      // The build writes a temp file and renames it into place: no half-built gazetteer.sqlite meanwhile.
      expect(existsSync(join(t.dataDir, "gazetteer.sqlite"))).toBe(false);

      await t.services.gazetteer.start();
      expect(readdirSync(t.dataDir).filter((f) => f.includes(".building-"))).toEqual([]);
      const res = await get("/geocoding/v1/forward?q=berlin&limit=1");
      expect(res.status).toBe(200);
      expect((await res.json()).features[0].properties.name).toBe("Berlin");
    } finally {
      await t.close();
    }
  }, 120_000);

  test("health and preflight report the backend, the datasets and their sizes, and suggest an import", async () => {
    const { t, get } = await appWith({}, await dataDirWithGazetteer());
    try {
      expect((await get("/geocoding/v1/forward?q=x")).status).toBe(200);
      const c = await componentOf(t);
      expect(c.status).toBe("ok");
      expect(typeof c.latency_ms).toBe("number");
      expect(c.detail).toContain('sample search "london" answered "London, England, United Kingdom"');
      expect(c.detail).toMatch(/geonames-cities1000 135,\d{3}/);
      expect(c.detail).toMatch(/countries 2\d\d/);
      expect(c.detail).toMatch(/\d+ MiB/);
      expect(c.detail).toContain("mapstead gazetteer import allCountries.zip");
      const check = await preflightCheck(t);
      expect(check.status).toBe("pass");
      expect(check.message).toContain("embedded gazetteer");
    } finally {
      await t.close();
    }
  });
});

// The compiled executable geocodes air-gapped: on first start it builds the gazetteer from the data
// embedded in the binary (FTS5 and R*Tree in its own SQLite), then answers forward and reverse; the
// gazetteer CLI works from the binary too, and with several workers an API import runs as a job in the
// supervisor.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../../../support/binary";
import { geonameRow, VILLAGES_TSV, zipOf } from "../../../backends/geocoder/embedded/fixtures";

const root = tempDir("mapstead-gazetteer-bin-");
const dataDir = join(root, "data");
let running: RunningBinary | null = null;

beforeAll(async () => {
  await ensureBinary();
}, 180_000);
afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("first start builds the gazetteer in the background, then forward and reverse answer from it", async () => {
  const seeded = await makeTestApp({}, { dataDir });
  const secret = seedKey(seeded.ctx, seedOrg(seeded.ctx, "bin").id, ["geocoding"]).secret;
  await seeded.close();

  running = await startBinary({ dataDir });
  const built = await running.waitForLog((e) => e.msg === "embedded gazetteer built", 120_000);
  expect(built.ms).toBeGreaterThan(0);
  const headers = { "x-api-key": secret };
  const forward = await running.fetch("/geocoding/v1/forward?q=pariss&limit=1", { headers });
  expect(forward.status).toBe(200);
  const body = await forward.json();
  expect(body.features[0].properties).toMatchObject({ name: "Paris", country_code: "FR", source: "geonames-cities1000" });
  expect(body.geocoding.attribution).toContain("GeoNames (geonames.org), CC BY 4.0");
  // The region names embedded in the binary (iso3166-2-db) label the places and narrow "…, Missouri".
  const springfield = await (await running.fetch("/geocoding/v1/forward?q=Springfield%2C%20Missouri&limit=1", { headers })).json();
  expect(springfield.features[0].properties).toMatchObject({ name: "Springfield", region: "Missouri", region_a: "MO", country_code: "US" });
  const reverse = await (await running.fetch("/geocoding/v1/reverse?lon=13.4&lat=52.52", { headers })).json();
  // The nearest populated place to Berlin's centre is its Mitte district.
  expect(reverse.features[0].properties).toMatchObject({ name: "Mitte", layer: "neighbourhood", country_code: "DE" });
  expect(reverse.features[0].properties.distance).toBeLessThan(2);
  const health = await (await running.fetch("/health/detailed")).json();
  expect(health.components.geocoder.status).toBe("ok");
  expect(health.components.geocoder.detail).toContain("embedded gazetteer");
  expect(await running.stop()).toBe(0);
  running = null;
}, 180_000);

test("the gazetteer CLI of the binary imports a GeoNames zip into the same data dir", async () => {
  const file = join(root, "CH.zip");
  writeFileSync(file, zipOf({ "CH.txt": VILLAGES_TSV }));
  const imported = await runBinary(["gazetteer", "import", file, "--dataset", "swiss"], { env: { DATA_DIR: dataDir } });
  expect(imported.stderr).not.toContain("error");
  expect(imported.exitCode).toBe(0);
  expect(imported.stdout).toContain("into dataset swiss (add): 3 places");
  const status = await runBinary(["gazetteer", "status", "--json"], { env: { DATA_DIR: dataDir } });
  expect(JSON.parse(status.stdout).datasets.map((d: { name: string }) => d.name)).toEqual(["countries", "geonames-cities1000", "regions", "swiss"]);
}, 60_000);

test("with WORKERS=2, an API upload is imported by the supervisor's job runner and every worker answers from the new data", async () => {
  const seeded = await makeTestApp({}, { dataDir });
  const admin = (await seedSession(seeded.ctx, { isAdmin: true })).headers;
  const headers = { "x-api-key": seedKey(seeded.ctx, seedOrg(seeded.ctx, "cluster").id, ["geocoding"]).secret };
  await seeded.close();
  running = await startBinary({ dataDir, env: { WORKERS: "2" } });
  const body = geonameRow({ id: 9200001, name: "Clusterdorf", lat: 46.5, lon: 7.5, country: "CH", admin1: "BE", population: 300 }) + "\n";
  const res = await running.fetch("/api/v1/gazetteer/datasets?name=cluster&filename=clusterdorf.txt", { method: "POST", headers: admin, body });
  expect(res.status).toBe(202);
  const { status_url } = await res.json();
  let status: { state: string; places: number; error: string | null };
  for (;;) {
    status = await (await running.fetch(status_url, { headers: admin })).json();
    if (status.state === "done" || status.state === "failed") break;
    await Bun.sleep(100);
  }
  expect(status).toMatchObject({ state: "done", places: 1, error: null });
  // The workers hear of the import through the change bus; each connection may land on either.
  for (let i = 0; i < 6; i++) {
    const r = await running.fetch("/geocoding/v1/forward?q=clusterdorf&limit=1", { headers: { ...headers, connection: "close" } });
    expect((await r.json()).features[0].properties).toMatchObject({ name: "Clusterdorf", source: "cluster", region_a: "BE" });
  }
  expect(await running.stop()).toBe(0);
  running = null;
}, 180_000);

test("GEOCODER=pelias without GEOCODER_INTERNAL_URL refuses to start (exit 2) and says why", async () => {
  const r = await runBinary(["serve"], { env: { DATA_DIR: join(root, "other"), GEOCODER: "pelias" } });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain("GEOCODER=pelias needs GEOCODER_INTERNAL_URL");
}, 60_000);

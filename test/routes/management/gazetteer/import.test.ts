// Loading GeoNames dumps and point tilesets into the embedded gazetteer: the admin API (an upload or a
// tileset queued as a job, followed at its status URL) and the `mapstead gazetteer` CLI. Fixtures are a
// few GeoNames-format lines written and zipped here.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { alternateNameRow, dataDirWithGazetteer, geonameRow, VILLAGES_TSV, zipOf } from "../../../backends/geocoder/embedded/fixtures";
import { createTileset, publish, upload as uploadVersion, waitForVersion } from "../tilesets/fixtures";
import { createJobQueue } from "../../../../src/jobs/queue";
import { IMPORT_JOB } from "../../../../src/domain/gazetteer/imports";

let t: TestApp;
let admin: Record<string, string>;
let key: Record<string, string>;

beforeAll(async () => {
  t = await makeTestApp({}, { dataDir: await dataDirWithGazetteer() });
  admin = (await seedSession(t.ctx, { isAdmin: true })).headers;
  key = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "geo").id, ["geocoding"]).secret };
});
afterAll(() => t.close());

const upload = (body: BodyInit, query = "", headers: Record<string, string> = admin) => t.fetch(`/api/v1/gazetteer/datasets${query}`, { method: "POST", headers, body });
const search = async (q: string, extra = "") => (await (await t.fetch(`/geocoding/v1/forward?q=${encodeURIComponent(q)}${extra}`, { headers: key })).json()).features as { properties: Record<string, unknown> }[];
const datasets = async () => (await (await t.fetch("/api/v1/gazetteer/datasets", { headers: admin })).json()).datasets as { name: string; kind: string; places: number; names: number }[];

interface ImportStatus {
  id: number;
  state: string;
  progress: number;
  stage: "reading" | "indexing" | null;
  dataset: string | null;
  places: number;
  result: Record<string, unknown> | null;
  error: string | null;
  details: Record<string, unknown> | null;
}

/** The import a 202 answer queued, followed at its status URL until it is done or failed. */
async function finished(res: Response): Promise<ImportStatus> {
  expect(res.status).toBe(202);
  const body = (await res.json()) as { import: ImportStatus; status_url: string };
  expect(res.headers.get("location")).toBe(body.status_url);
  expect(body.status_url).toBe(`/api/v1/gazetteer/imports/${body.import.id}`);
  expect(["queued", "running"]).toContain(body.import.state);
  for (;;) {
    const status = (await (await t.fetch(body.status_url, { headers: admin })).json()) as ImportStatus;
    if (status.state === "done" || status.state === "failed") return status;
    await Bun.sleep(20);
  }
}

describe("POST /api/v1/gazetteer/datasets", () => {
  test("a zipped GeoNames dump is queued (202), imported by the job runner, and searchable once done, with its region in the label", async () => {
    expect(await search("hintertupfingen")).toEqual([]);
    const status = await finished(await upload(zipOf({ "CH.txt": VILLAGES_TSV, "readme.txt": "GeoNames readme, not data" }), "?name=swiss"));
    expect(status).toMatchObject({ state: "done", progress: 1, dataset: "swiss", places: 3, error: null });
    expect(status.result).toMatchObject({ dataset: "swiss", kind: "geonames", mode: "add", lines: 3, places: 3, skipped: 0 });
    // The answer cached before the import is not served again.
    const found = await search("hintertupfingen");
    expect(found[0]!.properties).toMatchObject({
      name: "Hintertupfingen",
      label: "Hintertupfingen, Canton of Zurich, Switzerland",
      region: "Canton of Zurich",
      region_a: "ZH",
      source: "swiss",
      gid: "swiss:locality:9100001",
      country_code: "CH",
    });
    expect((await search("hinter tupfingen"))[0]!.properties.name).toBe("Hintertupfingen");
    expect((await datasets()).find((d) => d.name === "swiss")).toMatchObject({ kind: "geonames", places: 3 });
    // The stored upload is gone once imported.
    expect(readdirSync(join(t.dataDir, "gazetteer-uploads"))).toEqual([]);
  });

  test("alternate names add languages to places already imported", async () => {
    const alt = [alternateNameRow(1, 9100001, "de", "Hinterdorf am See", true), alternateNameRow(2, 9100001, "link", "https://example.com/x"), alternateNameRow(3, 42, "de", "Nirgendwo")].join("\n");
    const status = await finished(await upload(alt, "?name=swiss-names"));
    expect(status.result).toMatchObject({ dataset: "swiss-names", kind: "alternate_names", names: 1, skipped: 2 });
    const de = await search("hinterdorf am see", "&language=de");
    expect(de[0]!.properties).toMatchObject({ name: "Hinterdorf am See", country: "Schweiz", gid: "swiss:locality:9100001" });
    expect((await search("hinterdorf am see"))[0]!.properties.name).toBe("Hintertupfingen");
  });

  test("replace makes the dataset exactly the new file; add keeps what is there", async () => {
    const only = geonameRow({ id: 9100003, name: "Obertupfingen", lat: 47.33, lon: 8.73, country: "CH", admin1: "ZH", population: 50 }) + "\n";
    expect((await finished(await upload(only, "?name=swiss&mode=add"))).state).toBe("done");
    expect((await datasets()).find((d) => d.name === "swiss")!.places).toBe(4);
    expect((await finished(await upload(only, "?name=swiss&mode=replace"))).state).toBe("done");
    expect((await datasets()).find((d) => d.name === "swiss")!.places).toBe(1);
    expect(await search("hintertupfingen")).toEqual([]);
    expect((await search("obertupfingen"))[0]!.properties.name).toBe("Obertupfingen");
  });

  test("multipart uploads take the file part and a name field", async () => {
    const form = new FormData();
    form.append("name", "multipart");
    form.append("file", new Blob([geonameRow({ id: 9100004, name: "Formdorf", lat: 46.1, lon: 7.1, country: "CH", population: 10 })]), "formdorf.txt");
    const status = await finished(await upload(form));
    expect(status).toMatchObject({ state: "done", dataset: "multipart" });
    expect((await search("formdorf"))[0]!.properties.source).toBe("multipart");
  });

  test("a bad line fails the import naming the file and line; nothing of the file is written", async () => {
    const before = await datasets();
    const bad = [geonameRow({ id: 9100005, name: "Gutdorf", lat: 46, lon: 7, country: "CH" }), geonameRow({ id: 9100006, name: "Schlechtdorf", lat: 123, lon: 7, country: "CH" })].join("\n");
    const failed = await finished(await upload(zipOf({ "bad.txt": bad }), "?name=swiss"));
    expect(failed).toMatchObject({ state: "failed", error: 'bad.txt line 2: latitude "123" is not a number from -90 to 90', details: { line: 2, entry: "bad.txt" }, result: null });
    expect(await datasets()).toEqual(before);
    expect(await search("gutdorf")).toEqual([]);

    const wrongShape = await finished(await upload("name,lat,lon\nBern,46.9,7.4\n", "?name=csv"));
    expect(wrongShape.error).toContain("line 1: has 1 tab-separated column(s)");
    expect((await finished(await upload(zipOf({ "notes.md": "no data" })))).error).toContain("holds no .txt dump");
    expect((await finished(await upload(zipOf({ "CH.txt": VILLAGES_TSV }).slice(0, 80)))).error).toContain("damaged or truncated");
    // Zip's signature followed by garbage: no entry can be read at all, which is damage, not a zip of other files.
    expect((await finished(await upload(new TextEncoder().encode("PK\u0003\u0004garbage")))).error).toContain("the zip archive is damaged or truncated (no file entries could be read)");
    expect(await datasets()).toEqual(before);
  });

  test("zip entries escaping the archive and zip bombs are refused; no upload is left behind", async () => {
    expect((await finished(await upload(zipOf({ "../../etc/cron.d/evil.txt": VILLAGES_TSV })))).error).toContain("points outside the archive");
    expect((await finished(await upload(zipOf({ "allCountries.txt": new Uint8Array(16 * 1024 * 1024) })))).error).toContain("zip bomb");
    expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
    expect(readdirSync(join(t.dataDir, "gazetteer-uploads"))).toEqual([]);
  });

  test("only admins; dataset names and modes are checked before the body is read", async () => {
    expect((await upload(VILLAGES_TSV, "", {})).status).toBe(401);
    expect((await upload(VILLAGES_TSV, "", key)).status).toBe(401);
    const user = (await seedSession(t.ctx, {})).headers;
    const forbidden = await upload(VILLAGES_TSV, "", user);
    expect(forbidden.status).toBe(403);
    expect((await t.fetch("/api/v1/gazetteer/datasets", { headers: user })).status).toBe(403);
    expect((await t.fetch("/api/v1/gazetteer/imports", { headers: user })).status).toBe(403);
    const badName = await upload(VILLAGES_TSV, "?name=Bad%20Name");
    expect(badName.status).toBe(400);
    expect((await badName.json()).error.details).toEqual({ parameter: "name" });
    const builtin = await upload(VILLAGES_TSV, "?name=geonames-cities1000");
    expect(builtin.status).toBe(400);
    expect((await builtin.json()).error.message).toContain("built in");
    const badMode = await upload(VILLAGES_TSV, "?mode=merge");
    expect(badMode.status).toBe(400);
    expect((await badMode.json()).error.message).toContain("mode must be replace or add");
  });

  test("409 IMPORT_IN_PROGRESS while another import is queued or running, from any process", async () => {
    // A job another process is running, as its row says.
    const queue = createJobQueue(t.ctx.sqlite);
    const other = queue.enqueue(IMPORT_JOB, { source: { type: "tileset", tileset: "x/y", name_field: "name" }, dataset: null, mode: "add" }, { running: true });
    try {
      const res = await upload(VILLAGES_TSV, "?name=second");
      expect(res.status).toBe(409);
      expect(res.headers.get("retry-after")).toBe("10");
      const err = (await res.json()).error;
      expect(err.code).toBe("IMPORT_IN_PROGRESS");
      expect(err.message).toContain(`/api/v1/gazetteer/imports/${other}`);
      expect((await t.fetch("/api/v1/gazetteer/datasets/swiss", { method: "DELETE", headers: admin })).status).toBe(409);
    } finally {
      queue.done(other);
    }
    expect(readdirSync(join(t.dataDir, "gazetteer-uploads"))).toEqual([]);
    expect((await finished(await upload(VILLAGES_TSV, "?name=second"))).state).toBe("done");
  });

  test("GET /imports lists the latest imports; GET /imports/{id} checks its id", async () => {
    const list = (await (await t.fetch("/api/v1/gazetteer/imports", { headers: admin })).json()).imports as ImportStatus[];
    expect(list.length).toBeGreaterThan(5);
    expect(list[0]!.id).toBeGreaterThan(list[1]!.id);
    expect(list.find((i) => i.dataset === "multipart")).toMatchObject({ state: "done", source: { type: "file", filename: "formdorf.txt" } });
    const missing = await t.fetch("/api/v1/gazetteer/imports/99999", { headers: admin });
    expect(missing.status).toBe(404);
    const bad = await t.fetch("/api/v1/gazetteer/imports/abc", { headers: admin });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details).toEqual({ parameter: "id" });
  });

  test("GET /search answers from the gazetteer for the console; q and limit are checked", async () => {
    const res = await t.fetch("/api/v1/gazetteer/search?q=obertupfingen&limit=1", { headers: admin });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.type).toBe("FeatureCollection");
    expect(body.features[0].properties).toMatchObject({ name: "Obertupfingen", source: "swiss", region_a: "ZH" });
    expect(body.attribution).toContain("GeoNames");
    for (const [query, parameter] of [["", "q"], [`?q=${"x".repeat(201)}`, "q"], ["?q=x&limit=0", "limit"], ["?q=x&limit=26", "limit"], ["?q=x&limit=two", "limit"]]) {
      const bad = await t.fetch(`/api/v1/gazetteer/search${query}`, { headers: admin });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.details).toEqual({ parameter });
    }
    expect((await t.fetch("/api/v1/gazetteer/search?q=x", { headers: key })).status).toBe(401);
  });

  test("GET lists the built-in and imported datasets with counts", async () => {
    const res = await t.fetch("/api/v1/gazetteer/datasets", { headers: admin });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ backend: "embedded", state: "ready" });
    expect(body.bytes).toBeGreaterThan(1024 * 1024);
    const byName = Object.fromEntries(body.datasets.map((d: { name: string }) => [d.name, d]));
    expect(byName["geonames-cities1000"]).toMatchObject({ kind: "builtin", attribution: "GeoNames (geonames.org), CC BY 4.0" });
    expect(byName["geonames-cities1000"].places).toBeGreaterThan(130_000);
    expect(byName.countries.places).toBeGreaterThan(240);
    expect(byName.regions.places).toBeGreaterThan(3000);
    expect(byName.regions.attribution).toContain("iso3166-2-db (MIT");
    expect(byName["swiss-names"]).toMatchObject({ kind: "alternate_names" });
  });

  test("DELETE removes an imported dataset and its places from answers; built-in ones stay", async () => {
    expect((await search("formdorf"))[0]!.properties.source).toBe("multipart");
    const res = await t.fetch("/api/v1/gazetteer/datasets/multipart", { method: "DELETE", headers: admin });
    expect(res.status).toBe(204);
    expect((await datasets()).map((d) => d.name)).not.toContain("multipart");
    expect((await search("formdorf")).map((f) => f.properties.source)).not.toContain("multipart");
    const again = await t.fetch("/api/v1/gazetteer/datasets/multipart", { method: "DELETE", headers: admin });
    expect(again.status).toBe(404);
    expect((await again.json()).error.code).toBe("DATASET_NOT_FOUND");
    const builtin = await t.fetch("/api/v1/gazetteer/datasets/regions", { method: "DELETE", headers: admin });
    expect(builtin.status).toBe(400);
    expect((await builtin.json()).error.message).toContain("built in and cannot be deleted");
    expect((await t.fetch("/api/v1/gazetteer/datasets/swiss", { method: "DELETE", headers: key })).status).toBe(401);
  });
});

describe("POST /api/v1/gazetteer/datasets/from-tileset", () => {
  const fromTileset = (body: unknown) => t.fetch("/api/v1/gazetteer/datasets/from-tileset", { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: JSON.stringify(body) });
  beforeAll(async () => {
    const owner = (await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "survey").id })).headers;
    await createTileset(t, "survey", owner, { slug: "huts", name: "Mountain huts", attribution: "Survey of huts" });
    const hut = (title: string, lon: number, lat: number, population?: number) => ({ type: "Feature", properties: { title, ...(population ? { population } : {}) }, geometry: { type: "Point", coordinates: [lon, lat] } });
    const fc = { type: "FeatureCollection", features: [hut("Glarner Hütte", 9.05, 46.95, 20), hut("Tödi Hütte", 8.92, 46.81)] };
    expect((await uploadVersion(t, "survey", "huts", owner, JSON.stringify(fc), "?filename=huts.geojson&maxzoom=12&layer=huts")).status).toBe(202);
    expect((await waitForVersion(t, "survey", "huts", 1, owner)).state).toBe("ready");
    expect((await publish(t, "survey", "huts", 1, owner)).status).toBe(200);
  }, 60_000);

  test("a point tileset's features become places by the chosen name field, as a job with progress", async () => {
    const status = await finished(await fromTileset({ tileset: "survey/huts", name_field: "title" }));
    expect(status).toMatchObject({ state: "done", progress: 1, dataset: "tileset-survey-huts", places: 2 });
    expect(status.result).toMatchObject({ kind: "tileset", places: 2 });
    const [hut] = await search("glarner hutte");
    expect(hut!.properties).toMatchObject({ name: "Glarner Hütte", layer: "venue", source: "tileset-survey-huts" });
    const body = await (await t.fetch("/geocoding/v1/forward?q=todi%20hutte", { headers: key })).json();
    expect(body.geocoding.attribution).toContain("Survey of huts");
  });

  test("the tileset, field, name and mode are checked before anything is queued", async () => {
    const wrongField = await fromTileset({ tileset: "survey/huts", name_field: "name" });
    expect(wrongField.status).toBe(400);
    const err = (await wrongField.json()).error;
    expect(err.details).toEqual({ parameter: "name_field" });
    expect(err.message).toContain('has no field "name"; its fields are title');
    const missing = await fromTileset({ tileset: "survey/nothing", name_field: "title" });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe("TILESET_NOT_FOUND");
    expect((await fromTileset({ tileset: "no-slash", name_field: "title" })).status).toBe(400);
    // A pinned version, or a path, is the tileset's fault (not the dataset name made from it).
    for (const tileset of ["survey/huts@1", "../.."]) {
      const bad = await fromTileset({ tileset, name_field: "title" });
      expect(bad.status).toBe(400);
      expect((await bad.json()).error).toMatchObject({ details: { parameter: "tileset" }, message: expect.stringContaining("must be owner/slug") });
    }
    expect((await fromTileset({ tileset: "survey/huts", name_field: "title", name: "Bad Name" })).status).toBe(400);
    expect((await fromTileset({ tileset: "survey/huts", name_field: "title", mode: "merge" })).status).toBe(400);
    expect((await fromTileset({ tileset: "survey/huts" })).status).toBe(400);
    const user = (await seedSession(t.ctx, {})).headers;
    expect((await t.fetch("/api/v1/gazetteer/datasets/from-tileset", { method: "POST", headers: { ...user, "content-type": "application/json" }, body: JSON.stringify({ tileset: "survey/huts", name_field: "title" }) })).status).toBe(403);
  });
});

describe("mapstead gazetteer (CLI)", () => {
  const MAIN = join(import.meta.dir, "../../../../src/main.ts");
  let dataDir: string;
  let files: string;
  beforeAll(async () => {
    dataDir = await dataDirWithGazetteer();
    files = tempDir("mapstead-gazetteer-cli-");
    writeFileSync(join(files, "CH.zip"), zipOf({ "CH.txt": VILLAGES_TSV }));
    writeFileSync(join(files, "bad.txt"), VILLAGES_TSV + "9100009\tOnly three\tcolumns\n");
    // A published point tileset in the same data dir, made the way a user makes one.
    const app = await makeTestApp({}, { dataDir });
    try {
      const owner = (await seedSession(app.ctx, { orgId: seedOrg(app.ctx, "acme").id })).headers;
      await createTileset(app, "acme", owner, { slug: "poi", name: "Points of interest", attribution: "Acme survey" });
      const point = (name: string | null, lon: number, lat: number) => ({ type: "Feature", properties: name ? { name, kind: "poi" } : { kind: "poi" }, geometry: { type: "Point", coordinates: [lon, lat] } });
      const fc = {
        type: "FeatureCollection",
        features: [
          point("Gazetteer Tower", 8.5417, 47.3769),
          point("Lakeside Kiosk", 8.5501, 47.3602),
          point(null, 8.56, 47.37),
          { type: "Feature", properties: { name: "Not A Point Street" }, geometry: { type: "LineString", coordinates: [[8.5, 47.3], [8.6, 47.4]] } },
        ],
      };
      const res = await uploadVersion(app, "acme", "poi", owner, JSON.stringify(fc), "?filename=poi.geojson&maxzoom=12&layer=poi");
      expect(res.status).toBe(202);
      expect((await waitForVersion(app, "acme", "poi", 1, owner)).state).toBe("ready");
      expect((await publish(app, "acme", "poi", 1, owner)).status).toBe(200);
    } finally {
      await app.close();
    }
  }, 60_000);
  const cli = (...args: string[]) => {
    const r = Bun.spawnSync(["bun", MAIN, "gazetteer", ...args, "--data-dir", dataDir], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };

  test("import with progress, then status lists the dataset", () => {
    const r = cli("import", join(files, "CH.zip"), "--dataset", "swiss", "--replace");
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/importing: 100% 3 lines, 3 places/);
    // After the last row, while it indexes and commits, the import says what it is doing.
    expect(r.err).toMatch(/importing: 100% 3 lines, 3 places, 4 names; building the indexes and typo keys/);
    expect(r.out).toContain("into dataset swiss (replace): 3 places");
    const status = cli("status", "--json");
    expect(status.code).toBe(0);
    const body = JSON.parse(status.out);
    expect(body.backend).toBe("embedded");
    expect(body.datasets.find((d: { name: string }) => d.name === "swiss")).toMatchObject({ kind: "geonames", places: 3 });
    expect(cli("status").out).toMatch(/swiss\s+geonames\s+3 places/);
  });

  test("admin1CodesASCII.txt adds regions, placed at their seat among the places already imported", async () => {
    // 2657895 (canton Zurich) has places in the built-in data; XX.99 has none and is skipped.
    writeFileSync(join(files, "admin1CodesASCII.txt"), ["CH.ZH\tChanton Züri\tChanton Zuri\t2657895", "XX.99\tNowhere\tNowhere\t1"].join("\n") + "\n");
    const r = cli("import", join(files, "admin1CodesASCII.txt"));
    expect(r.code).toBe(0);
    expect(r.out).toContain("into dataset admin1-codes (add): 1 places");
    expect(r.out).toContain("1 rows skipped (regions with no imported place to stand at)");
    const app = await makeTestApp({}, { dataDir });
    try {
      const k = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "regions").id, ["geocoding"]).secret };
      const [canton] = (await (await app.fetch("/geocoding/v1/forward?q=chanton%20zuri&limit=1", { headers: k })).json()).features;
      expect(canton.properties).toMatchObject({ name: "Chanton Züri", layer: "region", source: "admin1-codes", region: "Chanton Züri", region_a: "ZH", country_code: "CH" });
      // At Zurich, the canton's seat.
      expect(canton.geometry.coordinates[0]).toBeCloseTo(8.55, 1);
      expect(canton.geometry.coordinates[1]).toBeCloseTo(47.37, 1);
    } finally {
      await app.close();
    }
    const bad = join(files, "admin1-bad.txt");
    writeFileSync(bad, "ZH\tZurich\tZurich\t2657895\n");
    expect(cli("import", bad, "--dataset", "admin1-bad").err).toContain('admin1-bad.txt line 1: code "ZH" is not COUNTRY.ADMIN1 (as in US.IL)');
  });

  test("a running server hears of a CLI import through the change bus and drops its cached answers", async () => {
    const app = await makeTestApp({}, { dataDir: await dataDirWithGazetteer() });
    try {
      const headers = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "geo").id, ["geocoding"]).secret };
      const find = async () => (await (await app.fetch("/geocoding/v1/forward?q=hintertupfingen", { headers })).json()).features as { properties: { name: string } }[];
      expect(await find()).toEqual([]);
      const r = Bun.spawnSync(["bun", MAIN, "gazetteer", "import", join(files, "CH.zip"), "--dataset", "swiss", "--data-dir", app.dataDir], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
      expect(r.exitCode).toBe(0);
      // What the change bus watcher does on its next tick, without waiting for one.
      app.services.changes.poll();
      expect((await find())[0]!.properties.name).toBe("Hintertupfingen");
    } finally {
      await app.close();
    }
  });

  test("a point tileset's named features become places of their own dataset", async () => {
    const r = cli("import", "--tileset", "acme/poi", "--name-field", "name");
    expect(r.err).not.toContain("mapstead gazetteer:");
    expect(r.code).toBe(0);
    expect(r.out).toContain("into dataset tileset-acme-poi (add): 2 places");
    expect(r.err).toMatch(/2 features, 2 places, 2 names; building the indexes and typo keys/);
    // Without a terminal, a line per change of stage and then one every few seconds, not one per tile.
    expect(r.err.split("\n").filter((line) => line.startsWith("importing:")).length).toBeLessThanOrEqual(3);
    const t2 = await makeTestApp({}, { dataDir });
    try {
      const k = { "x-api-key": seedKey(t2.ctx, seedOrg(t2.ctx, "reader").id, ["geocoding"]).secret };
      const body = await (await t2.fetch("/geocoding/v1/forward?q=gazeteer%20tower", { headers: k })).json();
      const tower = body.features[0];
      expect(tower.properties).toMatchObject({ name: "Gazetteer Tower", layer: "venue", source: "tileset-acme-poi" });
      // Zoom 12 tiles with a 4096 extent keep points to a few metres.
      expect(tower.geometry.coordinates[0]).toBeCloseTo(8.5417, 3);
      expect(tower.geometry.coordinates[1]).toBeCloseTo(47.3769, 3);
      expect(body.geocoding.attribution).toContain("Acme survey");
    } finally {
      await t2.close();
    }
    const wrongField = cli("import", "--tileset", "acme/poi", "--name-field", "title");
    expect(wrongField.code).toBe(1);
    expect(wrongField.err).toContain('has no field "title"; its fields are');
    expect(cli("import", "--tileset", "acme/missing", "--name-field", "name").err).toContain("does not exist or has no published version");
    expect(cli("import", "--tileset", "acme/poi").code).toBe(2);
  }, 60_000);

  test("a bad file names the line and exits 1; usage errors exit 2", () => {
    const r = cli("import", join(files, "bad.txt"), "--dataset", "broken");
    expect(r.code).toBe(1);
    expect(r.err).toContain("bad.txt line 4: has 3 tab-separated columns; a GeoNames geoname row has 19");
    expect(JSON.parse(cli("status", "--json").out).datasets.map((d: { name: string }) => d.name)).not.toContain("broken");
    expect(cli("import").code).toBe(2);
    expect(cli("rebuild").code).toBe(2);
    expect(cli("import", join(files, "missing.zip")).code).toBe(1);
  });

  test("one import at a time with the API: the CLI refuses while an API import runs, and the API while the CLI imports", async () => {
    const app = await makeTestApp({}, { dataDir });
    try {
      const owner = (await seedSession(app.ctx, { isAdmin: true })).headers;
      // An API import another process is running, as its row says.
      const queue = createJobQueue(app.ctx.sqlite);
      const api = queue.enqueue(IMPORT_JOB, { source: { type: "tileset", tileset: "x/y", name_field: "name" }, dataset: null, mode: "add" }, { running: true });
      const refused = cli("import", join(files, "CH.zip"), "--dataset", "refused");
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`mapstead gazetteer: Gazetteer import ${api} is queued or running; wait for it to finish`);
      expect(JSON.parse(cli("status", "--json").out).datasets.map((d: { name: string }) => d.name)).not.toContain("refused");
      queue.done(api);

      // A dump big enough to still be importing while the API is asked.
      const big = join(files, "big.txt");
      writeFileSync(big, Array.from({ length: 150_000 }, (_, i) => geonameRow({ id: 20_000_000 + i, name: `Bigtown ${i}`, lat: (i % 170) - 85, lon: (i % 350) - 175, country: "CH" })).join("\n") + "\n");
      const proc = Bun.spawn(["bun", MAIN, "gazetteer", "import", big, "--dataset", "big", "--data-dir", dataDir], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
      const cliRow = () => app.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM jobs WHERE state = 'running' AND json_extract(payload, '$.cli')").get();
      while (!cliRow()) await Bun.sleep(10);
      const res = await app.fetch("/api/v1/gazetteer/datasets?name=during", { method: "POST", headers: owner, body: VILLAGES_TSV });
      expect(res.status).toBe(409);
      const err = (await res.json()).error;
      expect(err.code).toBe("IMPORT_IN_PROGRESS");
      expect(err.message).toContain(`/api/v1/gazetteer/imports/${cliRow()!.id}`);
      // While it runs, the import says what it is at: reading the file, then indexing after its last
      // row (a quiet while for a large file, with progress at 0.99); nothing once it is done.
      const id = cliRow()!.id;
      const stages: string[] = [];
      while (proc.exitCode === null) {
        const seen = (await (await app.fetch(`/api/v1/gazetteer/imports/${id}`, { headers: owner })).json()) as ImportStatus;
        if (seen.state === "running" && stages.at(-1) !== seen.stage) stages.push(String(seen.stage));
        await Bun.sleep(5);
      }
      expect(stages).toEqual(["reading", "indexing"]);
      expect(await proc.exited).toBe(0);
      // The CLI's turn shows among the imports, finished with its figures.
      const list = (await (await app.fetch("/api/v1/gazetteer/imports", { headers: owner })).json()).imports as ImportStatus[];
      expect(list[0]).toMatchObject({ state: "done", dataset: "big", places: 150_000, stage: null, source: { type: "file", filename: "big.txt" } });
    } finally {
      await app.close();
    }
  }, 120_000);

  test("kill -9 mid-import leaves the dataset as it was, and the next import need not wait for the dead one", async () => {
    const big = join(files, "big.txt");
    expect(cli("import", join(files, "CH.zip"), "--dataset", "kept", "--replace").code).toBe(0);
    const app = await makeTestApp({}, { dataDir });
    try {
      const proc = Bun.spawn(["bun", MAIN, "gazetteer", "import", big, "--dataset", "kept", "--replace", "--data-dir", dataDir], { env: { ...process.env, NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
      const cliRow = () => app.ctx.sqlite.query<{ id: number; payload: string }, []>("SELECT id, payload FROM jobs WHERE state = 'running' AND json_extract(payload, '$.cli')").get();
      // Killed once it has written some of the file's places.
      while (!(JSON.parse(cliRow()?.payload ?? "{}").counts?.places > 0)) await Bun.sleep(10);
      const id = cliRow()!.id;
      proc.kill("SIGKILL");
      await proc.exited;
      const k = { "x-api-key": seedKey(app.ctx, seedOrg(app.ctx, "killed").id, ["geocoding"]).secret };
      const kept = (await (await app.fetch("/api/v1/gazetteer/datasets", { headers: (await seedSession(app.ctx, { isAdmin: true })).headers })).json()).datasets.find((d: { name: string }) => d.name === "kept");
      expect(kept).toMatchObject({ places: 3 });
      expect((await (await app.fetch("/geocoding/v1/forward?q=bigtown%201", { headers: k })).json()).features.filter((f: { properties: { source: string } }) => f.properties.source === "kept")).toEqual([]);
      // Its row would keep beating no more: once stale, the next CLI import closes it and goes ahead.
      app.ctx.sqlite.query("UPDATE jobs SET heartbeat_at = heartbeat_at - 60000 WHERE id = ?").run(id);
      expect(cli("import", join(files, "CH.zip"), "--dataset", "kept").code).toBe(0);
      expect(app.ctx.sqlite.query("SELECT state, error FROM jobs WHERE id = ?").get(id)).toEqual({ state: "failed", error: expect.stringContaining("stopped before it finished") });
    } finally {
      await app.close();
    }
  }, 120_000);
});

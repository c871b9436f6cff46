// A gazetteer import writes for seconds (minutes for allCountries) on a thread of its own: a server of
// one process (WORKERS=1, as here, where imports run beside HTTP) keeps answering meanwhile, even while
// the import builds its indexes and commits, which is one long stretch of SQLite work.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { serveTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { dataDirWithGazetteer, geonameRow } from "../../../backends/geocoder/embedded/fixtures";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";

let t: TestApp;
beforeAll(async () => {
  t = await serveTestApp({}, { dataDir: await dataDirWithGazetteer() });
});
afterAll(() => t.close());

test("requests sent while an import indexes and commits are answered before it ends", async () => {
  const key = seedKey(t.ctx, seedOrg(t.ctx, "geo").id, ["geocoding"]).secret;
  const file = join(tempDir(), "large.txt");
  const rows = Array.from({ length: 200_000 }, (_, i) => geonameRow({ id: 70_000_000 + i, name: `Servedwhile ${i.toString(36)}`, lat: 46 + i / 1e6, lon: 8, country: "CH", population: i }));
  await Bun.write(file, rows.join("\n") + "\n");
  const events: string[] = [];
  let requests: Promise<unknown> | null = null;
  await importGeonamesFile(t.services.embeddedGazetteer()!, file, {
    dataset: "large",
    mode: "replace",
    onProgress: (p) => {
      if (p.stage !== "indexing" || requests) return;
      requests = Promise.all([
        fetch(`${t.baseUrl}/health`).then((r) => events.push(`health ${r.status}`)),
        fetch(`${t.baseUrl}/geocoding/v1/forward?q=zurich`, { headers: { "x-api-key": key } }).then((r) => events.push(`geocoding ${r.status}`)),
      ]);
    },
  });
  events.push("import done");
  await requests;
  expect(events.slice(0, 2).sort()).toEqual(["geocoding 200", "health 200"]);
  expect(events[2]).toBe("import done");
}, 60_000);

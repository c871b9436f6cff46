// The import reads and parses on a thread of its own and writes batch by batch: a bad line far into a
// file (after batches were written) still fails the whole import naming its line, with nothing written,
// and an import of many batches reports progress up to the whole file and writes every place.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { importGeonamesFile, InvalidGazetteerData, type ImportProgress } from "../../../../src/backends/geocoder/embedded/import-file";
import { gazetteerEachTest, geonameRow } from "./fixtures";

const t = gazetteerEachTest();

/** `count` places, about 110 bytes each: 30,000 of them are several of the thread's batches (a chunk of the file read each, 256-512 KiB). */
const rows = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => geonameRow({ id: 50_000_000 + i, name: `${prefix} ${i.toString(36)}`, lat: 47 + i / 1e5, lon: 8.5, country: "CH", admin1: "ZH", population: i, alternates: [`${prefix}alt${i}`] }));

test("a bad line after several written batches fails the import naming it; the dataset is as it was", async () => {
  const good = join(t.dataDir, "good.txt");
  await Bun.write(good, rows(100, "Kept").join("\n") + "\n");
  await importGeonamesFile(t.gazetteer, good, { dataset: "big", mode: "replace" });
  const lines = rows(30_000, "Dropped");
  lines[28_000] = lines[28_000]!.replace(/\t47\.\d+\t/, "\tnorth\t");
  const bad = join(t.dataDir, "bad.txt");
  await Bun.write(bad, lines.join("\n") + "\n");
  const failure = await importGeonamesFile(t.gazetteer, bad, { dataset: "big", mode: "replace" }).catch((err) => err);
  expect(failure).toBeInstanceOf(InvalidGazetteerData);
  expect(failure).toMatchObject({ line: 28_001, entry: "bad.txt" });
  expect(failure.message).toContain("bad.txt line 28001: latitude \"north\"");
  expect(t.gazetteer.status().datasets.find((d) => d.name === "big")).toMatchObject({ places: 100, names: 200 });
  expect((await t.gazetteer.geocoder.forward({ q: "dropped 1", limit: 1, language: "en" })).features).toEqual([]);
});

test("an import of many batches writes every place and reports progress up to the whole file", async () => {
  const file = join(t.dataDir, "many.txt");
  await Bun.write(file, "# a comment line\n" + rows(30_000, "Batchdorf").join("\n") + "\n");
  const reports: ImportProgress[] = [];
  const result = await importGeonamesFile(t.gazetteer, file, { dataset: "many", mode: "add", onProgress: (p) => reports.push(p) });
  expect(result).toMatchObject({ places: 30_000, names: 60_000, lines: 30_000 });
  const last = reports.at(-1)!;
  expect(last).toMatchObject({ bytesRead: Bun.file(file).size, totalBytes: Bun.file(file).size, lines: 30_000, places: 30_000, stage: "done" });
  // Every row read first, then one report as the indexes are built (the quiet part), then the commit's.
  expect(reports.map((r) => r.stage)).toEqual([...reports.slice(0, -2).map(() => "reading" as const), "indexing", "done"]);
  expect(reports.at(-2)).toMatchObject({ bytesRead: Bun.file(file).size, places: 30_000 });
  const [top] = (await t.gazetteer.geocoder.forward({ q: "batchdorfalt29999", limit: 1, language: "en" })).features;
  expect(top?.properties).toMatchObject({ name: `Batchdorf ${(29_999).toString(36)}`, source: "many" });
});

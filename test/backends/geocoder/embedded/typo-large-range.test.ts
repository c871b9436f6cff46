// Typo scans read the names sharing the query's first letters; in a large import a start like "new "
// holds more names than a scan reads. The typo must still be found, through the names sharing the
// query's first half (before, the scan read an arbitrary slice of the "new " names and missed it).
import { expect, test } from "bun:test";
import { join } from "node:path";
import { createGazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer, geonameRow } from "./fixtures";

test("a typo in the second half of a name is found even when its first four letters start 25,000 names", async () => {
  const dataDir = await dataDirWithGazetteer();
  const rows: string[] = [];
  // 25,000 "New <number-word>" places, more than one typo scan reads (20,000), all of lengths near the query's.
  for (let i = 0; i < 25_000; i++) rows.push(geonameRow({ id: 20_000_000 + i, name: `New ${(i * 7919).toString(36)}ab`, lat: 47, lon: 8.5, country: "CH", admin1: "ZH", population: 10 }));
  rows.push(geonameRow({ id: 30_000_000, name: "New Tarterville", lat: 47.1, lon: 8.6, country: "CH", admin1: "ZH", population: 5 }));
  const file = join(dataDir, "many-new.txt");
  await Bun.write(file, rows.join("\n") + "\n");
  const gazetteer = createGazetteer({ dataDir, log: silentLogger });
  try {
    await gazetteer.start();
    await importGeonamesFile(gazetteer, file, { dataset: "many-new", mode: "replace" });
    const typo = await gazetteer.geocoder.forward({ q: "new tartervile", limit: 3, language: "en" });
    expect(typo.features[0]?.properties.name).toBe("New Tarterville");
    const autocomplete = await gazetteer.geocoder.autocomplete({ text: "new tarterv", limit: 3, language: "en" });
    expect(autocomplete.features[0]?.properties.name).toBe("New Tarterville");
  } finally {
    gazetteer.close();
  }
}, 60_000);

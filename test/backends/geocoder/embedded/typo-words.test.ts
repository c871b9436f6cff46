// Typos in names of several words go by the typo table of their words: a typo in any one word (its
// first letters included) is found among the names holding a variant of the query's rarest word, even
// when the name starts with a word tens of thousands of names start with.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createGazetteer, type Gazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer, geonameRow } from "./fixtures";

let gazetteer: Gazetteer;
beforeAll(async () => {
  const dataDir = await dataDirWithGazetteer();
  const rows: string[] = [];
  // 25,000 "New <word>" places (more than one scan reads), and the few the queries look for.
  for (let i = 0; i < 25_000; i++) rows.push(geonameRow({ id: 20_000_000 + i, name: `New ${(i * 7919).toString(36)}ab`, lat: 47, lon: 8.5, country: "CH", admin1: "ZH", population: 10 }));
  rows.push(geonameRow({ id: 30_000_001, name: "New Trierville", lat: 47.1, lon: 8.6, country: "CH", admin1: "ZH", population: 5 }));
  rows.push(geonameRow({ id: 30_000_002, name: "Burtonsville Millet", lat: 47.2, lon: 8.7, country: "CH", admin1: "ZH", population: 7 }));
  rows.push(geonameRow({ id: 30_000_003, name: "Upper Quarndon Green", lat: 47.3, lon: 8.8, country: "CH", admin1: "ZH", population: 3 }));
  const file = join(dataDir, "many-new.txt");
  await Bun.write(file, rows.join("\n") + "\n");
  gazetteer = createGazetteer({ dataDir, log: silentLogger });
  await gazetteer.start();
  await importGeonamesFile(gazetteer, file, { dataset: "many-new", mode: "replace" });
}, 60_000);
afterAll(() => gazetteer.close());

const first = async (q: string, extra: { country?: string[] } = {}) => (await gazetteer.geocoder.forward({ q, limit: 3, language: "en", ...extra })).features[0]?.properties;

test("a typo in the second word of a name that starts like 25,000 others", async () => {
  expect(await first("new triervile")).toMatchObject({ name: "New Trierville", confidence: 0.57 });
  expect(await first("new tierville")).toMatchObject({ name: "New Trierville" });
});

test("a typo in the first letters of a word, which a scan by first letters cannot find", async () => {
  expect(await first("new trierwille")).toMatchObject({ name: "New Trierville" });
  expect(await first("burtonsville nillet")).toMatchObject({ name: "Burtonsville Millet" });
  expect(await first("vurtonsville millet")).toMatchObject({ name: "Burtonsville Millet" });
  expect(await first("upper kuarndon green")).toMatchObject({ name: "Upper Quarndon Green" });
});

test("a typo in a short common word is found through the other words", async () => {
  expect(await first("nwe trierville")).toMatchObject({ name: "New Trierville" });
});

test("filters still apply, and two typos in one name are within a long name's budget", async () => {
  expect(await first("new trierville", { country: ["US"] })).toBeUndefined();
  expect(await first("uper quarndon gren")).toMatchObject({ name: "Upper Quarndon Green" });
  // Too far from any name: nothing rather than a poor guess.
  expect(await first("new qqqqqqqq")).toBeUndefined();
});

test("autocomplete completes a name of several words with a typo in an earlier word", async () => {
  const [top] = (await gazetteer.geocoder.autocomplete({ text: "burtonsvile mil", limit: 3, language: "en" })).features;
  expect(top?.properties.name).toBe("Burtonsville Millet");
});

test("a word too long to be within its typo budget of any stored word is looked up as typed, not by its deletions", async () => {
  const { typoKeys } = await import("../../../../src/backends/geocoder/embedded/word-typos");
  // A 500-letter word would make about 125,000 two-letter deletions: a second of work per request.
  const long = "qwertyuiopasdfghjklzxcvbnm".repeat(20);
  expect(typoKeys(long, 2)).toEqual([]);
  expect(await first(long)).toBeUndefined();
  // Words up to the longest stored word plus the budget still get their keys.
  expect(typoKeys("trierville", 2)).toContain("trerville");
  expect(typoKeys("a".repeat(41), 2).length).toBeGreaterThan(0);
  expect(typoKeys("a".repeat(42), 2).length).toBeGreaterThan(0);
  expect(typoKeys("a".repeat(43), 2)).toEqual([]);
});

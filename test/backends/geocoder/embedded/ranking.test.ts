// Ranking against the built-in gazetteer, with the queries an outside review reproduced: the well-known
// place first (the state of California, London UK then London, Ontario), small namesakes after, while
// an exact name still beats a partial match of comparable weight; focus outweighs a distant country;
// confidence never rises down the list.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGazetteer, type Gazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import type { Place } from "../../../../src/backends/geocoder/types";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer } from "./fixtures";

let gazetteer: Gazetteer;
beforeAll(async () => {
  gazetteer = createGazetteer({ dataDir: await dataDirWithGazetteer(), log: silentLogger });
  await gazetteer.start();
}, 60_000);
afterAll(() => gazetteer.close());

const forward = async (q: string, limit = 5) => (await gazetteer.geocoder.forward({ q, limit, language: "en" })).features;
const labels = (features: Place[]) => features.map((f) => f.properties.label);
const confidences = (features: Place[]) => features.map((f) => f.properties.confidence!);

test("a state ranks above the small towns named after it", async () => {
  const [california] = await forward("california");
  expect(california!.properties).toMatchObject({ layer: "region", name: "California", region_a: "CA", country_code: "US", confidence: 1 });
  const [florida] = await forward("florida");
  expect(florida!.properties).toMatchObject({ layer: "region", name: "Florida", country_code: "US" });
  // The state of Victoria (5.6 million people in its places) right after the city of Victoria, British
  // Columbia (a provincial capital), before the capital of the Seychelles and Victoria, Texas.
  expect(labels(await forward("victoria", 4))).toEqual([
    "Victoria, British Columbia, Canada",
    "Victoria, Australia",
    "Victoria, La Rivière Anglaise, Seychelles",
    "Victoria, Texas, United States of America",
  ]);
});

test("a city ranks above the smaller region of its name, and a region far larger than the city above it", async () => {
  expect(labels(await forward("zurich", 2))).toEqual(["Zürich, Canton of Zurich, Switzerland", "Canton of Zurich, Switzerland"]);
  expect(labels(await forward("oklahoma", 2))).toEqual(["Oklahoma, United States of America", "Oklahoma City, Oklahoma, United States of America"]);
});

test("a county seat no longer outranks a city thirty times its size", async () => {
  expect(labels(await forward("london", 3))).toEqual(["London, England, United Kingdom", "London, Ontario, Canada", "London, Ohio, United States of America"]);
  // Cambridge, Maryland (12,000 people, a county seat) after the cities of 110,000 and more.
  expect(labels(await forward("cambridge", 4))).toEqual([
    "Cambridge, England, United Kingdom",
    "Cambridge, Ontario, Canada",
    "Cambridge, Massachusetts, United States of America",
    "Cambridge, Maryland, United States of America",
  ]);
  // A state capital still ranks above a county seat somewhat larger.
  expect((await forward("springfield", 1))[0]!.properties).toMatchObject({ region_a: "IL" });
});

test("an exact name beats a word of a larger place's name, and a name starting with the query's words beats smaller exact ones", async () => {
  // York (150,000 people) before New York City (8 million), whose name only holds the word.
  expect((await forward("york", 1))[0]!.properties.label).toBe("York, England, United Kingdom");
  // Victoria de Durango (520,000 people) before the exact Victorias of 25,000, after those of 65,000 and more.
  const victoria = await forward("victoria", 6);
  expect(victoria.map((f) => f.properties.label).slice(3, 6)).toEqual([
    "Victoria, Texas, United States of America",
    "Victoria de Durango, Durango, Mexico",
    "Victoria, CALABARZON, Philippines",
  ]);
  expect(confidences(victoria).slice(3)).toEqual([1, 0.9, 0.9]);
});

test("the city people call New York is New York City, and Washington is Washington, D.C.", async () => {
  const newYork = await forward("new york", 2);
  expect(labels(newYork)).toEqual(["New York City, New York, United States of America", "New York, United States of America"]);
  expect(confidences(newYork)).toEqual([1, 1]);
  expect(labels(await forward("washington", 3))).toEqual([
    "Washington, D.C., District of Columbia, United States of America",
    "Washington, United States of America",
    "Washington, England, United Kingdom",
  ]);
  // Oklahoma City is never called "Oklahoma": the state comes first.
  expect((await forward("oklahoma", 1))[0]!.properties).toMatchObject({ layer: "region", name: "Oklahoma" });
});

test("a bare ISO code finds the most important place of that code, and a number is no region's name", async () => {
  expect(labels(await forward("ca", 2))).toEqual(["Canada", "California, United States of America"]);
  expect((await forward("de", 1))[0]!.properties).toMatchObject({ layer: "country", country_code: "DE", confidence: 1 });
  // Burgenland's ISO 3166-2 code is AT-1: "1" matched it, and every other region numbered 1, exactly.
  for (const f of await forward("1")) expect(f.properties.layer).not.toBe("region");
  // The codes people write after a comma still name the region.
  expect((await forward("Springfield, IL", 1))[0]!.properties).toMatchObject({ region_a: "IL" });
});

test("autocomplete's focus outweighs a distant country: near Paris, Texas, 'par' is that Paris", async () => {
  // 15 km from Paris, Texas; Paraguay is 7,700 km away.
  const [top] = (await gazetteer.geocoder.autocomplete({ text: "par", limit: 3, language: "en", focus: { lon: -95.4, lat: 33.7 } })).features;
  expect(top!.properties).toMatchObject({ name: "Paris", region_a: "TX" });
  expect(top!.properties.distance).toBeLessThan(20);
});

test("features are listed in the order of their confidence", async () => {
  const frankfurt = await forward("frankfurt");
  expect(frankfurt[0]!.properties.name).toBe("Frankfurt am Main");
  for (const features of [frankfurt, await forward("washington", 10), await forward("victoria", 25), await forward("new york", 10)]) {
    const c = confidences(features);
    expect(c).toEqual([...c].sort((a, b) => b - a));
  }
});

test("a region imported from admin1CodesASCII.txt counts the people of its places, and ranks as the built-in one", async () => {
  const dataDir = await dataDirWithGazetteer();
  const file = join(dataDir, "admin1CodesASCII.txt");
  writeFileSync(file, "US.CA\tCalifornia\tCalifornia\t5332921\n");
  const own = createGazetteer({ dataDir, log: silentLogger });
  try {
    await own.start();
    await importGeonamesFile(own, file, { mode: "add" });
    // The same place as the built-in region (one geonameid), answered from the import.
    const [california] = (await own.geocoder.forward({ q: "california", limit: 1, language: "en" })).features;
    expect(california!.properties).toMatchObject({ layer: "region", source: "admin1-codes", country_code: "US" });
  } finally {
    own.close();
  }
}, 60_000);

test("Malta's region of Victoria (MT-45) is called Victoria, not its country's code", async () => {
  const [town] = await forward("Victoria, Malta", 1);
  expect(town!.properties).toMatchObject({ label: "Victoria, Victoria, Malta", region: "Victoria", region_a: "45" });
  // "mt" is Malta's code, no region's name.
  expect((await forward("mt", 1))[0]!.properties).toMatchObject({ layer: "country", name: "Malta" });
});

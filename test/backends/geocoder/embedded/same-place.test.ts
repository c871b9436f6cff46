// A GeoNames dump an operator imports overlaps the built-in data (itself GeoNames') and other dumps:
// the same geonameid, or the same country, is one place, answered once, from the dataset imported last.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createGazetteer, type Gazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { importGeonamesFile } from "../../../../src/backends/geocoder/embedded/import-file";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer, geonameRow } from "./fixtures";

const ZURICH = 2657896;
const WALLISELLEN = 2658060;
let gazetteer: Gazetteer;

beforeAll(async () => {
  const dataDir = await dataDirWithGazetteer();
  const rows = [
    geonameRow({ id: ZURICH, name: "Zürich", lat: 47.36667, lon: 8.55, fcode: "PPLA", country: "CH", admin1: "ZH", population: 341_730, alternates: ["Zurich"] }),
    geonameRow({ id: WALLISELLEN, name: "Walisellen", lat: 47.41459, lon: 8.59054, country: "CH", admin1: "ZH", population: 16_929 }),
    geonameRow({ id: 2658434, name: "Switzerland", lat: 47.00016, lon: 8.01427, fclass: "A", fcode: "PCLF", country: "CH", population: 8_516_543 }),
  ].join("\n");
  const file = join(dataDir, "ch.txt");
  await Bun.write(file, rows + "\n");
  gazetteer = createGazetteer({ dataDir, log: silentLogger });
  await gazetteer.start();
  await importGeonamesFile(gazetteer, file, { dataset: "ch", mode: "replace" });
  await importGeonamesFile(gazetteer, file, { dataset: "ch-again", mode: "replace" });
}, 60_000);
afterAll(() => gazetteer.close());

const gids = (features: { properties: { gid?: string } }[]) => features.map((f) => f.properties.gid ?? "");
const ofPlace = (id: number) => (gid: string) => gid.endsWith(`:${id}`);

test("forward and autocomplete answer a place in three datasets once, from the last import", async () => {
  const forward = gids((await gazetteer.geocoder.forward({ q: "zurich", limit: 10, language: "en" })).features);
  expect(forward.filter(ofPlace(ZURICH))).toEqual([`ch-again:locality:${ZURICH}`]);
  const walisellen = gids((await gazetteer.geocoder.forward({ q: "walisellen", limit: 10, language: "en" })).features);
  expect(walisellen.filter(ofPlace(WALLISELLEN))).toEqual([`ch-again:locality:${WALLISELLEN}`]);
  const typed = gids((await gazetteer.geocoder.autocomplete({ text: "walli", limit: 10, language: "en" })).features);
  expect(typed.filter(ofPlace(WALLISELLEN))).toHaveLength(1);
});

test("a country keyed by its code in the built-in data and by geonameid in a dump is one country", async () => {
  const answer = await gazetteer.geocoder.forward({ q: "switzerland", limit: 10, language: "en" });
  expect(answer.features.filter((f) => f.properties.layer === "country").map((f) => f.properties.country_code)).toEqual(["CH"]);
});

test("reverse answers the nearest places once each", async () => {
  const near = gids((await gazetteer.geocoder.reverse({ lon: 8.55, lat: 47.36667, limit: 5, language: "en" })).features);
  expect(near[0]).toBe(`ch-again:locality:${ZURICH}`);
  const ids = near.map((gid) => gid.split(":").at(-1));
  expect(new Set(ids).size).toBe(ids.length);
});

test("forward puts a place named exactly as asked before larger places whose names only start so", async () => {
  const dataDir = await dataDirWithGazetteer();
  const rows = Array.from({ length: 2000 }, (_, i) => geonameRow({ id: 9_000_000 + i, name: `Placename${i}`, lat: 46 + i / 10_000, lon: 7, country: "CH", population: i === 5 ? 5 : i * 1000 }));
  const file = join(dataDir, "placenames.txt");
  await Bun.write(file, rows.join("\n") + "\n");
  const own = createGazetteer({ dataDir, log: silentLogger });
  try {
    await own.start();
    await importGeonamesFile(own, file, { dataset: "placenames", mode: "replace" });
    const [first] = (await own.geocoder.forward({ q: "Placename5", limit: 25, language: "en" })).features;
    expect(first?.properties).toMatchObject({ name: "Placename5", confidence: 1 });
    // Still typing, the larger places come first.
    const [typed] = (await own.geocoder.autocomplete({ text: "Placename5", limit: 25, language: "en" })).features;
    expect(typed?.properties.name).not.toBe("Placename5");
  } finally {
    own.close();
  }
}, 60_000);

// The geocoding routes answered by the embedded gazetteer (no Pelias configured): forward with prefix,
// typo tolerance and population ranking; autocomplete with focus; reverse with distance; bbox, country
// and language filters; the same answer shape as the Pelias mapping, attributed to GeoNames.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { dataDirWithGazetteer } from "../../../backends/geocoder/embedded/fixtures";

let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await makeTestApp({}, { dataDir: await dataDirWithGazetteer() });
  headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "geo").id, ["geocoding"]).secret };
});
afterAll(() => t.close());

type Feature = { geometry: { coordinates: [number, number] }; properties: Record<string, string | number> };
async function places(path: string): Promise<{ status: number; features: Feature[]; body: { geocoding: { attribution: string; query: Record<string, unknown> } } }> {
  const res = await t.fetch(path, { headers });
  const body = await res.json();
  return { status: res.status, features: body.features ?? [], body };
}
const labels = (fs: Feature[]) => fs.map((f) => f.properties.label);

describe("forward", () => {
  test('"paris" ranks Paris, France first by population, with the contract\'s properties', async () => {
    const { status, features, body } = await places("/geocoding/v1/forward?q=paris");
    expect(status).toBe(200);
    expect(features.length).toBe(5);
    const paris = features[0]!;
    expect(paris.properties).toMatchObject({ name: "Paris", label: "Paris, Île-de-France, France", layer: "locality", locality: "Paris", country: "France", country_code: "FR", country_a: "FRA", confidence: 1 });
    expect(paris.properties.source).toBe("geonames-cities1000");
    expect(paris.properties.gid).toBe("geonames-cities1000:locality:2988507");
    expect(paris.geometry.coordinates[0]).toBeCloseTo(2.3488, 3);
    expect(paris.geometry.coordinates[1]).toBeCloseTo(48.8534, 3);
    // Every other Paris is an exact match too, but smaller.
    for (const f of features.slice(1)) expect(f.properties.name).toMatch(/^Paris/);
    expect(body.geocoding.attribution).toContain("GeoNames (geonames.org), CC BY 4.0");
    expect(body.geocoding.query).toEqual({ q: "paris", limit: 5, language: "en" });
  });

  test("the well-known place first, small namesakes after, confidence falling down the list", async () => {
    const top = async (q: string, limit = 2) => labels((await places(`/geocoding/v1/forward?q=${encodeURIComponent(q)}&limit=${limit}`)).features);
    expect(await top("california", 1)).toEqual(["California, United States of America"]);
    expect(await top("new york")).toEqual(["New York City, New York, United States of America", "New York, United States of America"]);
    expect(await top("london")).toEqual(["London, England, United Kingdom", "London, Ontario, Canada"]);
    const confidence = (await places("/geocoding/v1/forward?q=frankfurt&limit=5")).features.map((f) => f.properties.confidence as number);
    expect(confidence).toEqual([...confidence].sort((a, b) => b - a));
  });

  test("a prefix finds the big city first; accents and case do not matter", async () => {
    expect(labels((await places("/geocoding/v1/forward?q=lond&limit=1")).features)).toEqual(["London, England, United Kingdom"]);
    expect(labels((await places("/geocoding/v1/forward?q=SAO%20PAULO&limit=1")).features)).toEqual(["São Paulo, São Paulo, Brazil"]);
    expect(labels((await places("/geocoding/v1/forward?q=z%C3%BCrich&limit=1")).features)).toEqual(["Zürich, Canton of Zurich, Switzerland"]);
  });

  test("a name of several words is found inside longer names, with and without a filter", async () => {
    // "new york" starts New York City and East/West New York hold it: the substring lookup finds those
    // by the word "york" and keeps the names holding the whole query, not "York" or "New Yorker ...".
    const names = (await places("/geocoding/v1/forward?q=new%20york&limit=10")).features.map((f) => f.properties.name);
    expect(names).toEqual(expect.arrayContaining(["New York City", "East New York", "West New York"]));
    for (const name of names) expect(String(name).toLowerCase()).toContain("new york");
    const inUs = (await places("/geocoding/v1/forward?q=new%20york&country=US&limit=10")).features.map((f) => f.properties.name);
    expect(inUs).toEqual(expect.arrayContaining(["East New York", "West New York"]));
  });

  test("typos are tolerated: berln finds Berlin, tokio finds Tokyo", async () => {
    const berlin = (await places("/geocoding/v1/forward?q=berln&limit=3")).features;
    expect(berlin[0]!.properties).toMatchObject({ name: "Berlin", country_code: "DE" });
    expect(berlin[0]!.properties.confidence).toBeLessThan(1);
    expect((await places("/geocoding/v1/forward?q=tokio&limit=1")).features[0]!.properties).toMatchObject({ name: "Tokyo", country_code: "JP" });
    expect((await places("/geocoding/v1/forward?q=zzqxv&limit=3")).features).toEqual([]);
  });

  test("country filter (alpha-2 or alpha-3) and a trailing country name narrow the search", async () => {
    const us = (await places("/geocoding/v1/forward?q=paris&country=USA&limit=10")).features;
    expect(us.length).toBeGreaterThan(3);
    for (const f of us) expect(f.properties.country_code).toBe("US");
    const ca = (await places("/geocoding/v1/forward?q=london&country=ca&limit=1")).features;
    expect(ca[0]!.properties).toMatchObject({ name: "London", country_code: "CA" });
    const context = (await places("/geocoding/v1/forward?q=London%2C%20Canada&limit=1")).features;
    expect(context[0]!.properties).toMatchObject({ name: "London", country_code: "CA" });
  });

  test("built-in regions: results carry region and region_a; a region or its code after a comma picks the right place", async () => {
    const [springfield] = (await places("/geocoding/v1/forward?q=springfield&limit=1")).features;
    expect(springfield!.properties).toMatchObject({ name: "Springfield", region: "Illinois", region_a: "IL", country_code: "US" });
    for (const q of ["Springfield, Missouri", "Springfield, MO", "springfield, mo, usa"]) {
      const features = (await places(`/geocoding/v1/forward?q=${encodeURIComponent(q)}&limit=5`)).features;
      expect(features.length).toBeGreaterThan(0);
      for (const f of features) expect(f.properties).toMatchObject({ region: "Missouri", region_a: "MO", country_code: "US" });
    }
    expect((await places("/geocoding/v1/forward?q=Springfield%2C%20Ohio&limit=1")).features[0]!.properties).toMatchObject({ name: "Springfield", region_a: "OH" });
    // The region itself is a place, with its names in other languages.
    const [bavaria] = (await places("/geocoding/v1/forward?q=bayern&limit=1")).features;
    expect(bavaria!.properties).toMatchObject({ layer: "region", name: "Bavaria", region: "Bavaria", region_a: "BY", country_code: "DE", label: "Bavaria, Germany" });
    expect((await places("/geocoding/v1/forward?q=bayern&limit=1&language=de")).features[0]!.properties.name).toBe("Bayern");
    // A city outranks the region of the same name.
    expect((await places("/geocoding/v1/forward?q=zurich&limit=1")).features[0]!.properties).toMatchObject({ layer: "locality", region: "Canton of Zurich", region_a: "ZH" });
  });

  test("a big city's well-known other name finds it first, before small namesakes, prefixes and regions", async () => {
    // The built-in data names these cities in one form only (Rome, Munich, Genève...): local-names.json
    // gives them the other.
    const first = async (q: string) => (await places(`/geocoding/v1/forward?q=${encodeURIComponent(q)}&limit=5`)).features[0]?.properties;
    const cases: [string, string, string][] = [
      ["Roma", "Rome", "IT"],
      ["roma", "Rome", "IT"],
      ["Milano", "Milan", "IT"],
      ["München", "Munich", "DE"],
      ["MUNCHEN", "Munich", "DE"],
      ["Geneva", "Genève", "CH"],
      ["Genf", "Genève", "CH"],
      ["Wien", "Vienna", "AT"],
      ["Praha", "Prague", "CZ"],
      ["Moskva", "Moscow", "RU"],
      ["Lisboa", "Lisbon", "PT"],
      ["Köln", "Köln", "DE"],
      ["Cologne", "Köln", "DE"],
      ["Napoli", "Naples", "IT"],
      ["Warszawa", "Warsaw", "PL"],
      ["Den Haag", "The Hague", "NL"],
    ];
    for (const [q, name, country] of cases) expect({ q, ...(await first(q)) }).toMatchObject({ q, name, country_code: country, layer: "locality", confidence: 1 });
    // The canton and Geneva, Illinois still answer, after the city.
    const geneva = labels((await places("/geocoding/v1/forward?q=geneva&limit=5")).features);
    expect(geneva).toContain("Canton of Geneva, Switzerland");
    expect(geneva).toContain("Geneva, Illinois, United States of America");
    // The names people gave before still find the same places.
    expect((await first("Rome"))).toMatchObject({ name: "Rome", country_code: "IT" });
    expect((await first("Munich"))).toMatchObject({ name: "Munich", country_code: "DE" });
    expect((await first("Genève"))).toMatchObject({ name: "Genève", country_code: "CH" });
    // Other places named Roma are still there, after Rome.
    const roma = (await places("/geocoding/v1/forward?q=roma&limit=5")).features.map((f) => `${f.properties.name} ${f.properties.country_code}`);
    expect(roma).toEqual(expect.arrayContaining(["Roma US", "Roma AU"]));
    // Monaco is the country, not Munich (whose Italian name it is: only well-known names are added).
    expect(await first("Monaco")).toMatchObject({ layer: "country", country_code: "MC" });
  });

  test("bbox keeps only places inside it", async () => {
    // Around Paris, Texas.
    const { features } = await places("/geocoding/v1/forward?q=paris&bbox=-96,33,-95,34");
    expect(features.length).toBeGreaterThan(0);
    for (const f of features) {
      const [lon, lat] = f.geometry.coordinates;
      expect(lon).toBeGreaterThanOrEqual(-96);
      expect(lon).toBeLessThanOrEqual(-95);
      expect(lat).toBeGreaterThanOrEqual(33);
      expect(lat).toBeLessThanOrEqual(34);
    }
    expect((await places("/geocoding/v1/forward?q=paris&bbox=10,10,11,11")).features).toEqual([]);
  });

  test("language: country names are searchable and answered in the asked language", async () => {
    const de = (await places("/geocoding/v1/forward?q=frankreich&limit=1&language=de")).features[0]!;
    expect(de.properties).toMatchObject({ layer: "country", name: "Frankreich", country: "Frankreich", country_code: "FR", label: "Frankreich" });
    const paris = (await places("/geocoding/v1/forward?q=paris&limit=1&language=de")).features[0]!;
    expect(paris.properties.label).toBe("Paris, Île-de-France, Frankreich");
    const en = (await places("/geocoding/v1/forward?q=frankreich&limit=1")).features[0]!;
    expect(en.properties).toMatchObject({ name: "France", label: "France" });
  });

  test("bad input is still a 400 naming the parameter", async () => {
    const res = await t.fetch("/geocoding/v1/forward?q=paris&bbox=1,2,3", { headers });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("bbox");
    const punct = await places("/geocoding/v1/forward?q=%21%21%21");
    expect(punct.status).toBe(200);
    expect(punct.features).toEqual([]);
  });
});

describe("autocomplete", () => {
  test('"lond" completes to London, and focus brings the nearby London first with its distance', async () => {
    const plain = (await places("/geocoding/v1/autocomplete?text=lond&limit=3")).features;
    expect(plain[0]!.properties.label).toBe("London, England, United Kingdom");
    expect(plain[0]!.properties.distance).toBeUndefined();
    const focused = (await places("/geocoding/v1/autocomplete?text=lond&limit=3&focus.lon=-81.25&focus.lat=42.98")).features;
    expect(focused[0]!.properties).toMatchObject({ name: "London", country_code: "CA" });
    expect(focused[0]!.properties.distance as number).toBeLessThan(10);
    expect(labels(focused)).toContain("London, England, United Kingdom");
  });

  test("autocomplete still completes prefixes, and a big city's other name completes to it", async () => {
    const names = (await places("/geocoding/v1/autocomplete?text=m%C3%BCnch&limit=5")).features.map((f) => f.properties.name);
    expect(names).toEqual(expect.arrayContaining(["Münchenstein"]));
    expect((await places("/geocoding/v1/autocomplete?text=M%C3%BCnchen&limit=1")).features[0]!.properties).toMatchObject({ name: "Munich", country_code: "DE" });
    expect((await places("/geocoding/v1/autocomplete?text=milan&limit=1")).features[0]!.properties).toMatchObject({ name: "Milan", country_code: "IT" });
  });

  test("a typo in the typed prefix still completes", async () => {
    const features = (await places("/geocoding/v1/autocomplete?text=amsterdm&limit=1")).features;
    expect(features[0]!.properties.name).toBe("Amsterdam");
  });
});

describe("reverse", () => {
  test("the nearest place with its distance in km", async () => {
    const { status, features, body } = await places("/geocoding/v1/reverse?lon=2.35&lat=48.86&limit=3");
    expect(status).toBe(200);
    expect(features).toHaveLength(3);
    expect(features[0]!.properties).toMatchObject({ name: "Paris", country_code: "FR" });
    const d = features.map((f) => f.properties.distance as number);
    expect(d[0]).toBeGreaterThan(0.5);
    expect(d[0]).toBeLessThan(1);
    expect([...d].sort((a, b) => a - b)).toEqual(d);
    for (const f of features) expect(f.properties.layer).not.toBe("country");
    expect(body.geocoding.query).toEqual({ lon: 2.35, lat: 48.86, limit: 3, language: "en" });
  });

  test("works across the antimeridian and far from any place", async () => {
    const fiji = (await places("/geocoding/v1/reverse?lon=-179.99&lat=-16.5")).features;
    expect(fiji[0]!.properties.country_code).toBe("FJ");
    const ocean = (await places("/geocoding/v1/reverse?lon=-140&lat=-50")).features;
    expect(ocean).toHaveLength(1);
    expect(ocean[0]!.properties.distance as number).toBeGreaterThan(1000);
  });
});

describe("batch", () => {
  test("runs forward and reverse jobs against the gazetteer", async () => {
    const res = await t.fetch("/geocoding/v1/batch", {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ queries: [{ type: "forward", q: "berlin", limit: 1 }, { type: "reverse", lon: 13.4, lat: 52.52 }] }),
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.summary).toEqual({ total: 2, succeeded: 2, failed: 0 });
    expect(body.batch[0].result.features[0].properties.name).toBe("Berlin");
    expect(body.batch[1].result.features[0].properties.country_code).toBe("DE");
  });
});

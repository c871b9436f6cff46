// Reverse geocoding reads the point index band by band: at random points (cities, oceans, poles, both
// sides of the antimeridian) its nearest place must be the one a scan of every place finds.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { createGazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { distanceKm } from "../../../../src/backends/geocoder/embedded/search";
import { GAZETTEER_FILE } from "../../../../src/backends/geocoder/embedded/store";
import { silentLogger } from "../../../../src/log";
import { dataDirWithGazetteer } from "./fixtures";

test("the nearest place is the one a full scan finds, anywhere on Earth", async () => {
  const dataDir = await dataDirWithGazetteer();
  const db = new Database(join(dataDir, GAZETTEER_FILE), { readonly: true });
  const all = db.query<{ lon: number; lat: number }, []>("SELECT lon, lat FROM places WHERE layer NOT IN ('country', 'macroregion', 'region')").all();
  db.close();
  const gazetteer = createGazetteer({ dataDir, log: silentLogger });
  try {
    await gazetteer.start();
    let seed = 42;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const points: [number, number][] = [[179.99, -16.5], [-179.99, 65], [0, 89.9], [0, -89.9], [-140, -50], [2.35, 48.86]];
    for (let i = 0; i < 60; i++) points.push([random() * 360 - 180, random() * 180 - 90]);
    for (const [lon, lat] of points) {
      const nearest = Math.min(...all.map((p) => distanceKm(lon, lat, p.lon, p.lat)));
      const [first] = (await gazetteer.geocoder.reverse({ lon, lat, limit: 1, language: "en" })).features;
      expect({ lon, lat, km: first!.properties.distance }).toEqual({ lon, lat, km: Math.round(nearest * 1000) / 1000 });
    }
  } finally {
    gazetteer.close();
  }
}, 60_000);

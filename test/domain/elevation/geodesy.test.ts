// Resampling a path on the sphere: between antipodal points (no single great circle) the samples still
// lie as far along as their distances say, on one great circle, instead of bunching at the ends.
import { expect, test } from "bun:test";
import { distanceM, resample } from "../../../src/domain/elevation/geodesy";

test("antipodal ends: pole to pole along the pole's meridian, half the equator northwards over the pole", () => {
  for (const [from, to] of [
    [{ lon: 0, lat: 90 }, { lon: 0, lat: -90 }],
    [{ lon: 0, lat: 0 }, { lon: 180, lat: 0 }],
    [{ lon: 10, lat: -90 }, { lon: 10, lat: 90 }],
    [{ lon: -30, lat: 20 }, { lon: 150, lat: -20 }],
  ]) {
    const { points, distances } = resample([from!, to!], 9);
    points.forEach((p, i) => expect(Math.abs(distanceM(from!, p) - distances[i]!)).toBeLessThan(1));
    // Consecutive samples are an eighth of the way apart: no jump across the sphere in the middle.
    for (let i = 1; i < points.length; i++) expect(Math.abs(distanceM(points[i - 1]!, points[i]!) - distances.at(-1)! / 8)).toBeLessThan(1);
  }
  const meridian = resample([{ lon: 0, lat: 90 }, { lon: 0, lat: -90 }], 5).points;
  expect(meridian.map((p) => [Math.round(Math.abs(p.lon)), Math.round(p.lat)])).toEqual([[0, 90], [0, 45], [0, 0], [0, -45], [0, -90]]);
});

// Web Mercator metres back to degrees: the world's edge (20037508.342789244 m, as GDAL writes it) must
// come back as ±180°, not a hair past it through rounding, which the position check refuses.
import { expect, test } from "bun:test";
import { unproject } from "../../src/tiles/readers/mercator";

test("the antimeridian is ±180°", () => {
  // The exact edge comes back as 180.00000000000003 through rounding.
  expect(unproject(-20037508.342789244, 0)[0]).toBe(-180);
  expect(unproject(20037508.342789244, 0)[0]).toBe(180);
  expect(unproject(20037508.34278925, 0)[0]).toBe(180);
});

test("a longitude truly past the edge is left for the check to refuse", () => {
  expect(unproject(20037508.342789244 + 1000, 0)[0]).toBeGreaterThan(180.008);
  expect(unproject(1113194.9079327357, 0)[0]).toBeCloseTo(10, 9);
});

// Where polygon labels go (src/render/polylabel.ts): the pole of inaccessibility to within half a pixel.
// The coarse grid it replaced was up to a pixel or more off, which moved collision boxes: a small island's
// label then missed the next label's box by a fraction of a pixel and showed, cut off at the map's edge.
import { expect, test } from "bun:test";
import { labelPoint } from "../../../src/render/polylabel";

const distance = (p: [number, number] | null, q: [number, number]) => Math.hypot(p![0] - q[0], p![1] - q[1]);

test("a right triangle's label sits on its incentre, the point farthest from its sides", () => {
  // Legs 90 and 70: the incircle's radius is (a + b - c) / 2 and its centre (r, r).
  const r = (90 + 70 - Math.hypot(90, 70)) / 2;
  expect(distance(labelPoint([[0, 0, 90, 0, 0, 70, 0, 0]]), [r, r])).toBeLessThan(0.5);
});

test("a hole pushes the label away from it; a ring of no area has none", () => {
  // A 100 px square with a 60 px hole in the middle: the farthest points are in the band's corners, on
  // the diagonal where the outer edges and the hole's corner are equally far: x = 20 sqrt2 / (1 + sqrt2).
  const square = [0, 0, 100, 0, 100, 100, 0, 100, 0, 0];
  const hole = [20, 20, 20, 80, 80, 80, 80, 20, 20, 20];
  const x = (20 * Math.SQRT2) / (1 + Math.SQRT2);
  const p = labelPoint([square, hole]);
  const corners: [number, number][] = [[x, x], [100 - x, x], [x, 100 - x], [100 - x, 100 - x]];
  expect(Math.min(...corners.map((c) => distance(p, c)))).toBeLessThan(0.5);
  expect(labelPoint([[0, 0, 50, 0, 100, 0, 0, 0]])).toBeNull();
});

// The tiler decides from DensityGrid whether a tile's subtree fits in memory, so its figure must never be
// below the text of the features that really reach into a box, and must not count far-away features.
import { expect, test } from "bun:test";
import { COARSEST, DensityGrid, FINEST } from "../../src/tiles/density-grid";
import type { UnitBox } from "../../src/tiles/feature-store";

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

const intersects = (a: UnitBox, b: UnitBox) => a[2] >= b[0] && a[0] <= b[2] && a[3] >= b[1] && a[1] <= b[3];

test("the figure for a box is at least the text of every feature reaching into it", () => {
  const rnd = random(3);
  const grid = new DensityGrid();
  const features: { box: UnitBox; chars: number }[] = [];
  for (let i = 0; i < 5000; i++) {
    const size = rnd() ** 3 / 2 ** COARSEST; // mostly small, some as large as a coarsest cell
    const x = rnd() * (1 - size);
    const y = rnd() * (1 - size);
    const box: UnitBox = [x, y, x + size * rnd(), y + size];
    const chars = 1 + Math.floor(rnd() * 1000);
    grid.add(box, chars);
    features.push({ box, chars });
  }
  grid.seal();
  for (let i = 0; i < 300; i++) {
    const z = Math.floor(rnd() * 13);
    const n = 2 ** z;
    const tx = Math.floor(rnd() * n);
    const ty = Math.floor(rnd() * n);
    const pad = (4 / 256) / n;
    const box: UnitBox = [tx / n - pad, ty / n - pad, (tx + 1) / n + pad, (ty + 1) / n + pad];
    const exact = features.filter((f) => intersects(f.box, box)).reduce((sum, f) => sum + f.chars, 0);
    expect(grid.charsIn(box)).toBeGreaterThanOrEqual(exact);
  }
});

test("a feature counts once however many cells the box covers, and not in boxes far from it", () => {
  const grid = new DensityGrid();
  const cell = 1 / 2 ** FINEST;
  grid.add([0.5, 0.5, 0.5 + cell * 0.9, 0.5 + cell * 0.9], 100);
  grid.add([0.25, 0.25, 0.25 + 1 / 2 ** COARSEST, 0.25 + 1 / 2 ** COARSEST], 7);
  grid.seal();
  expect(grid.charsIn([0, 0, 1, 1])).toBe(107);
  expect(grid.charsIn([0.5, 0.5, 0.5 + cell / 2, 0.5 + cell / 2])).toBe(100);
  expect(grid.charsIn([0.9, 0.9, 0.95, 0.95])).toBe(0);
  expect(grid.charsIn([0.5 - 3 * cell, 0.1, 0.5 - 2 * cell, 0.2])).toBe(0);
});

test("features larger than a coarsest cell are left to the caller", () => {
  const big: UnitBox = [0.1, 0.1, 0.1 + 2 / 2 ** COARSEST, 0.2];
  expect(DensityGrid.holds(big)).toBe(false);
  expect(DensityGrid.holds([0.1, 0.1, 0.1 + 1 / 2 ** COARSEST, 0.1])).toBe(true);
  expect(() => new DensityGrid().add(big, 1)).toThrow();
});

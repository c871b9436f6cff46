// Point thinning settles zooms deepest first, each zoom choosing among the points of the zoom below. It
// must give every point the same first zoom as the rule it stands for, applied zoom by zoom from the top:
// a cell showing no point yet shows its most important one (ties: the earliest).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FeatureStore } from "../../src/tiles/feature-store";

const dir = mkdtempSync(join(tmpdir(), "mapstead-thin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

interface Point {
  x: number;
  y: number;
  importance: number;
}

/** The rule, zoom by zoom from the top: the first zoom of every point. */
function reference(points: Point[], minzoom: number, maxzoom: number, spacing: number): number[] {
  const first = points.map(() => maxzoom);
  for (let z = minzoom; z < maxzoom; z++) {
    const cells = (256 * 2 ** z) / spacing;
    const cellOf = (p: Point) => `${Math.floor(p.x * cells)}/${Math.floor(p.y * cells)}`;
    const shown = new Set(points.filter((_, i) => first[i]! < maxzoom).map(cellOf));
    const best = new Map<string, number>();
    points.forEach((p, i) => {
      const cell = cellOf(p);
      if (shown.has(cell)) return;
      const b = best.get(cell);
      if (b === undefined || p.importance > points[b]!.importance) best.set(cell, i);
    });
    for (const i of best.values()) first[i] = z;
  }
  return first;
}

for (const spacing of [1, 3]) {
  test(`every point's first zoom follows the top-down rule (spacing ${spacing} px)`, () => {
    const rnd = random(spacing);
    const points: Point[] = [];
    // Clumps of points a few pixels apart at the deep zooms, with few distinct importances (many ties).
    for (let c = 0; c < 40; c++) {
      const cx = 0.1 + rnd() * 0.8;
      const cy = 0.1 + rnd() * 0.8;
      for (let i = 0; i < 100; i++) points.push({ x: cx + (rnd() - 0.5) * 1e-3, y: cy + (rnd() - 0.5) * 1e-3, importance: Math.floor(rnd() * 4) });
    }
    const store = new FeatureStore(join(dir, `thin-${spacing}.sqlite`));
    try {
      points.forEach((p, i) => store.add(0, { type: "Point", coordinates: [0, 0] }, { i }, [p.x, p.y, p.x, p.y], null, p.importance, [p.x, p.y]));
      store.sealed();
      store.thinPoints(0, 2, 12, spacing, () => {});
      store.index();
      const expected = reference(points, 2, 12, spacing);
      const shownAt = (z: number) =>
        store
          .tileFeatures(0, z, [0, 0, 1, 1], Infinity)
          .features.map((f) => (JSON.parse(f.properties) as { i: number }).i)
          .sort((a, b) => a - b);
      for (let z = 2; z <= 12; z++) expect(shownAt(z)).toEqual(expected.flatMap((first, i) => (first <= z ? [i] : [])));
      // The rule thins for real here: the top zoom shows a point per cell a clump touches (at most 4), the deepest every point.
      expect(shownAt(2).length).toBeLessThanOrEqual(40 * 4);
      expect(shownAt(12).length).toBe(points.length);
    } finally {
      store.remove();
    }
  });
}

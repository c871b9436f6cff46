import { describe, expect, test } from "bun:test";
import type { DemTile } from "../../../src/tiles/dem/encoding";
import { sampleDem } from "../../../src/tiles/dem/sample";
import { lonLatOfPixel } from "../../support/dem";

describe("bilinear sampling of DEM tiles", () => {
  // Four pixel centres 0, 100 / 200, 300: a quarter of the way east and half way south is 125 m.
  const one: DemTile = { size: 2, heights: Float32Array.from([0, 100, 200, 300]) };

  test("between pixel centres of one tile: exact bilinear weights, not the nearest pixel", async () => {
    const [lon, lat] = lonLatOfPixel(0.25, 0.5, 0, 2);
    expect(await sampleDem(lon, lat, 0, () => one)).toBeCloseTo(125, 6);
    const [lon2, lat2] = lonLatOfPixel(1, 1, 0, 2);
    expect(await sampleDem(lon2, lat2, 0, () => one)).toBeCloseTo(300, 6);
  });

  test("across tile edges: the four pixels come from four tiles", async () => {
    const tiles: Record<string, DemTile> = {
      "0/0": { size: 1, heights: Float32Array.from([0]) },
      "1/0": { size: 1, heights: Float32Array.from([100]) },
      "0/1": { size: 1, heights: Float32Array.from([200]) },
      "1/1": { size: 1, heights: Float32Array.from([300]) },
    };
    const [lon, lat] = lonLatOfPixel(0.25, 0.5, 1, 1);
    expect(await sampleDem(lon, lat, 1, (x, y) => tiles[`${x}/${y}`] ?? null)).toBeCloseTo(125, 6);
  });

  test("a missing neighbour tile is no data, not a guess", async () => {
    const [lon, lat] = lonLatOfPixel(0.25, 0.5, 1, 1);
    expect(await sampleDem(lon, lat, 1, (x, y) => (x === 0 && y === 0 ? { size: 1, heights: Float32Array.from([5]) } : null))).toBeNull();
  });
});

describe("pixels without data (NaN: marked in the tile, or in a tile the archive lacks)", () => {
  // 0, 100 / 200, NaN: the south-east pixel has no data.
  const holed: DemTile = { size: 2, heights: Float32Array.from([0, 100, 200, NaN]) };

  test("a point in a pixel with data blends only the neighbours that have data, never a filler", async () => {
    // A quarter of the way east, a quarter south, in the north-west pixel: the weights of 0, 100 and
    // 200 are 9/16, 3/16 and 3/16 of the 15/16 that have data: (0 + 300 + 600) / 15 = 60 m.
    const [lon, lat] = lonLatOfPixel(0.25, 0.25, 0, 2);
    expect(await sampleDem(lon, lat, 0, () => holed)).toBeCloseTo(60, 6);
    // Just inside the north-east pixel, next to the hole: still a blend of heights that exist.
    const [lon2, lat2] = lonLatOfPixel(0.6, 0.4, 0, 2);
    const h = (await sampleDem(lon2, lat2, 0, () => holed))!;
    expect(h).toBeGreaterThan(0);
    expect(h).toBeLessThan(200);
  });

  test("a point in a pixel without data has no height, however close the pixels with data", async () => {
    const [lon, lat] = lonLatOfPixel(0.5, 0.5, 0, 2);
    expect(await sampleDem(lon, lat, 0, () => holed)).toBeNull();
    const [lon2, lat2] = lonLatOfPixel(1, 1, 0, 2);
    expect(await sampleDem(lon2, lat2, 0, () => holed)).toBeNull();
  });

  test("a missing neighbour tile drops out like a marked pixel: the point's own tile answers", async () => {
    // Three quarters of the way from pixel (0,0) to (1,0), which lies in the missing tile: pixel (0,0)
    // is not the point's own (that is (1,0)), so no data; a quarter of the way, the own pixel answers.
    const present = (x: number, y: number) => (x === 0 && y === 0 ? { size: 1, heights: Float32Array.from([5]) } : null);
    const [lon, lat] = lonLatOfPixel(0.25, 0, 1, 1);
    expect(await sampleDem(lon, lat, 1, present)).toBe(5);
    const [lon2, lat2] = lonLatOfPixel(0.75, 0, 1, 1);
    expect(await sampleDem(lon2, lat2, 1, present)).toBeNull();
  });

  test("with data everywhere the answer is the plain bilinear blend, as before", async () => {
    const [lon, lat] = lonLatOfPixel(0.25, 0.5, 0, 2);
    const plain = (0 * 0.75 + 100 * 0.25) * 0.5 + (200 * 0.75 + 300 * 0.25) * 0.5;
    expect(await sampleDem(lon, lat, 0, () => ({ size: 2, heights: Float32Array.from([0, 100, 200, 300]) }))).toBeCloseTo(plain, 9);
  });
});

describe("the edges of the world (lat ±90, lon ±180)", () => {
  // z1, four tiles of 4 px: pixel (gx, gy) of the 8 x 8 world holds 100 * gy + gx, so an answer names the pixels it read.
  const world = (x: number, y: number): DemTile | null =>
    x < 0 || y < 0 || x > 1 || y > 1 ? null : { size: 4, heights: Float32Array.from({ length: 16 }, (_, i) => 100 * (y * 4 + Math.floor(i / 4)) + x * 4 + (i % 4)) };
  const asked: string[] = [];
  const tileAt = (x: number, y: number) => (asked.push(`${x}/${y}`), world(x, y));
  const WORLD_BOUNDS = [-180, -85.0511287798066, 180, 85.0511287798066] as const;

  test("beyond Web Mercator's edge the outermost row answers, south and north alike, and no tile outside the grid is asked for", async () => {
    asked.length = 0;
    const cases: [number, number, number][] = [
      [-180, -90, 700], // bottom row (7), first column
      [180, -90, 707], // bottom row, last column
      [0, -90, 703.5], // bottom row, between columns 3 and 4
      [-180, 90, 0], // top row (0), first column
      [180, 90, 7],
      [0, 90, 3.5],
      [-180, 0, 350], // between rows 3 and 4 (tiles 0/0 and 0/1), first column
      [180, 0, 357],
    ];
    for (const bounds of [undefined, WORLD_BOUNDS])
      for (const [lon, lat, height] of cases) expect({ lon, lat, bounds, h: await sampleDem(lon, lat, 1, tileAt, bounds) }).toEqual({ lon, lat, bounds, h: height });
    expect(asked.filter((a) => !/^[01]\/[01]$/.test(a))).toEqual([]);
  });
});

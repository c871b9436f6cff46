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

// MapLibre's color-relief per DEM pixel: colours of the ramp's stops blended linearly in 8-bit
// premultiplied RGBA, clamped beyond the end stops, times the layer's opacity; stops packed like the DEM.
import { describe, expect, test } from "bun:test";
import { colorRamp, colorReliefPixels } from "../../../src/render/color-relief-ramp";

const black = { r: 0, g: 0, b: 0, a: 1 };
const red = { r: 1, g: 0, b: 0, a: 1 };
/** white at half alpha, premultiplied as the style spec's Color holds it */
const halfWhite = { r: 0.5, g: 0.5, b: 0.5, a: 0.5 };

const ramp = colorRamp(
  [
    { elevation: 0, color: black },
    { elevation: 1000, color: red },
    { elevation: 2000, color: halfWhite },
  ],
  "terrarium",
);

/** Straight-alpha RGBA of each height. */
const colours = (heights: number[], opacity = 1) => {
  const rgba = colorReliefPixels(Float32Array.from(heights), ramp, opacity);
  return heights.map((_, i) => [...rgba.subarray(i * 4, i * 4 + 4)]);
};

describe("color-relief ramp", () => {
  test("stops take their colours; between them the blend is linear", () => {
    expect(colours([0, 1000, 500])).toEqual([
      [0, 0, 0, 255],
      [255, 0, 0, 255],
      [128, 0, 0, 255],
    ]);
  });

  test("below the first stop and above the last the end colours hold", () => {
    expect(colours([-500, 9000])).toEqual([
      [0, 0, 0, 255],
      [255, 255, 255, 128],
    ]);
  });

  test("blends in premultiplied colour, as the ramp texture holds it: red fades into translucent white without darkening", () => {
    // halfway: premultiplied (255 + 128) / 2 = 191.5 red over alpha (255 + 128) / 2 = 191.5, so straight red stays 255
    const [r, g, b, a] = colours([1500])[0]!;
    expect(a).toBe(192);
    expect(r).toBe(255);
    expect(g).toBe(Math.round((64 / 191.5) * 255));
    expect(b).toBe(g);
  });

  test("opacity scales the alpha only", () => {
    expect(colours([1000], 0.5)).toEqual([[255, 0, 0, 128]]);
  });

  test("no-data heights count as 0 m", () => {
    expect(colours([NaN])).toEqual([[0, 0, 0, 255]]);
  });

  test("stop elevations are packed in the DEM's encoding: Mapbox's 0.1 m steps, Terrarium's 1/256 m", () => {
    expect(colorRamp([{ elevation: 12.34, color: black }, { elevation: 20, color: red }], "mapbox").elevations[0]).toBeCloseTo(12.3, 6);
    expect(colorRamp([{ elevation: 12.34, color: black }, { elevation: 20, color: red }], "terrarium").elevations[0]).toBeCloseTo(Math.round(12.34 * 256) / 256, 6);
  });
});

// MapLibre's standard hillshade on synthetic DEMs: slopes facing the light lit, slopes facing away
// shaded, flat ground and exaggeration 0 transparent, the light turning with the map in "viewport".
import { describe, expect, test } from "bun:test";
import { hillshadeDerivatives, shadeHillshade, type DemGrid, type HillshadePaint } from "../../../src/render/hillshade-shade";

const SIZE = 16;

/** A padded (SIZE+2)^2 grid of heights from f(x, y) in pixels (x east, y south). */
function grid(f: (x: number, y: number) => number, z = 12): DemGrid {
  const stride = SIZE + 2;
  const padded = new Float32Array(stride * stride);
  for (let y = 0; y < stride; y++) for (let x = 0; x < stride; x++) padded[y * stride + x] = f(x - 1, y - 1);
  return { size: SIZE, padded, z, north: 46.1, south: 46 };
}

const DEFAULTS: HillshadePaint = {
  intensity: 0.5,
  direction: (335 * Math.PI) / 180,
  shadow: [0, 0, 0, 1],
  highlight: [1, 1, 1, 1],
  accent: [0, 0, 0, 1],
};

/** [grey 0-255, alpha 0-255] of the centre pixel. */
function centre(rgba: Uint8Array): [number, number] {
  const o = ((SIZE / 2) * SIZE + SIZE / 2) * 4;
  return [rgba[o]!, rgba[o + 3]!];
}

// a 16-px tile at z12 has pixels about 425 m wide at 46°N: 300 m a pixel is a steep hillside
const risingSouth = grid((_, y) => 300 * y);
const risingNorth = grid((_, y) => -300 * y);

describe("standard hillshade", () => {
  test("a slope facing the light (north-west, from 335°) is lighter than one facing away", () => {
    const [towardGrey, towardAlpha] = centre(shadeHillshade(risingSouth, DEFAULTS));
    const [awayGrey, awayAlpha] = centre(shadeHillshade(risingNorth, DEFAULTS));
    expect(towardAlpha).toBeGreaterThan(50);
    expect(awayAlpha).toBeGreaterThan(50);
    // premultiplied light over a background: the lit side adds white, the shaded side black
    expect(towardGrey).toBeGreaterThan(160);
    expect(awayGrey).toBeLessThan(40);
  });

  test("flat ground is transparent", () => {
    const flat = shadeHillshade(grid(() => 1234), DEFAULTS);
    expect(flat.every((v) => v === 0)).toBe(true);
  });

  test("exaggeration 0 draws nothing; more exaggeration draws the slope stronger", () => {
    expect(shadeHillshade(risingSouth, { ...DEFAULTS, intensity: 0 }).every((v) => v === 0)).toBe(true);
    const weak = centre(shadeHillshade(risingSouth, { ...DEFAULTS, intensity: 0.2 }))[1];
    const strong = centre(shadeHillshade(risingSouth, { ...DEFAULTS, intensity: 0.9 }))[1];
    expect(strong).toBeGreaterThan(weak);
  });

  test("turning the light half way round swaps lit and shaded sides", () => {
    const turned = { ...DEFAULTS, direction: DEFAULTS.direction + Math.PI };
    expect(centre(shadeHillshade(risingSouth, turned))[0]).toBeLessThan(40);
    expect(centre(shadeHillshade(risingNorth, turned))[0]).toBeGreaterThan(160);
  });

  test("derivatives as MapLibre's prepare pass stores them: scaled by zoom, in steps of 8/255, clamped", () => {
    // 1 m per pixel east at z15 (no exaggeration): the kernel gives 8 m, per 2^(28.2562-15)/16 m
    const gentle = hillshadeDerivatives(grid((x) => x, 15));
    const exact = (8 * SIZE) / 2 ** (28.2562 - 15);
    expect(Math.abs(gentle.dx[0]! - exact)).toBeLessThanOrEqual(4 / 255);
    expect((gentle.dx[0]! * 255) / 8).toBeCloseTo(Math.round((gentle.dx[0]! * 255) / 8), 4);
    expect(gentle.dy[0]).toBeCloseTo(0, 5);
    // a cliff saturates at about +4
    expect(hillshadeDerivatives(grid((x) => 1e5 * x, 15)).dx[0]).toBeCloseTo((127 * 8) / 255, 5);
  });
});

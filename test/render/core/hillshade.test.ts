// MapLibre's hillshade methods on synthetic DEMs: slopes facing the light lit, slopes facing away
// shaded, flat ground and exaggeration 0 transparent (but for the Lambert methods, which light flat
// ground by the light's altitude), the light turning with the map in "viewport".
import { describe, expect, test } from "bun:test";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { renderMap } from "../../../src/render";
import { encodeDemTile } from "../../../src/tiles/dem/encoding";
import { count, pixels, resources } from "./fixtures";
import { hillshadeDerivatives, shadeHillshade, type DemGrid, type HillshadeLight, type HillshadePaint } from "../../../src/render/hillshade-shade";

const SIZE = 16;

/** A padded (SIZE+2)^2 grid of heights from f(x, y) in pixels (x east, y south). */
function grid(f: (x: number, y: number) => number, z = 12): DemGrid {
  const stride = SIZE + 2;
  const padded = new Float32Array(stride * stride);
  for (let y = 0; y < stride; y++) for (let x = 0; x < stride; x++) padded[y * stride + x] = f(x - 1, y - 1);
  return { size: SIZE, padded, z, north: 46.1, south: 46 };
}

const LIGHT: HillshadeLight = { direction: (335 * Math.PI) / 180, altitude: Math.PI / 4, shadow: [0, 0, 0, 1], highlight: [1, 1, 1, 1] };
const DEFAULTS: HillshadePaint = { method: "standard", intensity: 0.5, accent: [0, 0, 0, 1], lights: [LIGHT] };

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
    const turned = { ...DEFAULTS, lights: [{ ...LIGHT, direction: LIGHT.direction + Math.PI }] };
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

describe("the other hillshade methods, as MapLibre's shader computes them", () => {
  const withMethod = (method: HillshadePaint["method"], lights = [LIGHT]) => ({ ...DEFAULTS, method, lights });

  test("every method lights the slope facing the light and shades the one facing away", () => {
    for (const method of ["basic", "combined", "igor", "multidirectional"] as const) {
      const [towardGrey, towardAlpha] = centre(shadeHillshade(risingSouth, withMethod(method)));
      const [awayGrey, awayAlpha] = centre(shadeHillshade(risingNorth, withMethod(method)));
      // "combined" mixes shadow into the lit side too, by the angle between the light and the slope
      expect({ method, lighter: towardGrey > awayGrey + 100, drawn: towardAlpha > 50 && awayAlpha > 50 }).toEqual({ method, lighter: true, drawn: true });
      expect({ method, shaded: awayGrey < 40 }).toEqual({ method, shaded: true });
    }
  });

  test("basic: flat ground under a light 45° up is half-way lit (2 sin 45° - 1 of the highlight)", () => {
    expect(centre(shadeHillshade(grid(() => 1234), withMethod("basic")))).toEqual([255, Math.round((2 * Math.SQRT1_2 - 1) * 255)]);
  });

  test("combined and igor: flat ground is transparent", () => {
    expect(shadeHillshade(grid(() => 1234), withMethod("combined")).every((v) => v === 0)).toBe(true);
    expect(shadeHillshade(grid(() => 1234), withMethod("igor")).every((v) => v === 0)).toBe(true);
  });

  test("multidirectional: each light adds its share; two lights at noon over flat ground give half of each highlight", () => {
    const noon = (highlight: HillshadeLight["highlight"]): HillshadeLight => ({ ...LIGHT, altitude: Math.PI / 2, highlight });
    const rgba = shadeHillshade(grid(() => 1234), withMethod("multidirectional", [noon([1, 0, 0, 1]), noon([0, 0, 1, 1])]));
    const o = ((SIZE / 2) * SIZE + SIZE / 2) * 4;
    expect([...rgba.subarray(o, o + 4)]).toEqual([128, 0, 128, 255]);
  });
});

describe("big DEM tiles under a big view", () => {
  test("are halved before shading, so one render stays bounded, and still shade their slopes", async () => {
    // 1100-px tiles, every one ramps rising to the south-east, 300 m a pixel (16 tiles under a
    // 1280x1280 view: 16 Mi pixels and more, over the budget)
    const size = 1100;
    const heights = new Float32Array(size * size);
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) heights[y * size + x] = ((x + y) % 64) * 300;
    const tile = encodeDemTile(heights, size, "terrarium");
    const res = await resources({ dem: { d: { tile: () => tile, encoding: "terrarium", tileSize: 512, maxzoom: 4 } } });
    const style = {
      version: 8,
      sources: { d: { type: "raster-dem" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#808080" } },
        { id: "h", type: "hillshade", source: "d" },
      ],
    } as unknown as StyleSpecification;
    const p = pixels(await renderMap(style, { center: [0, 0], zoom: 4, bearing: 0, width: 1280, height: 1280, pixelRatio: 1 }, res));
    // the light comes from 335°: the ramps rising to the south-east face it, most of the view is lit
    expect(count(p, (px) => px[0] > 128 + 20)).toBeGreaterThan(1280 * 1280 * 0.5);
  });
});

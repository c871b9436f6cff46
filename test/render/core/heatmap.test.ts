// MapLibre's heatmap: Gaussian kernels summed into a quarter-size density buffer, coloured through a
// 256-entry ramp of heatmap-color; and the layer drawn by the renderer with its filter and zoom range.
import { describe, expect, test } from "bun:test";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { renderMap } from "../../../src/render";
import { addKernel, colorizeDensity, densityGrid, GAUSS_COEF, heatmapRamp, kernelReach, kernelValue, ZERO, type DensityGrid } from "../../../src/render/heatmap-density";
import { pixels, point, resources } from "./fixtures";

/** A grid of 1 sample per CSS px (a 4x4-px view at @4 would do the same; 256 px at @1 gives 64). */
const unitGrid = (size = 64): DensityGrid => ({ width: size, height: size, scaleX: 1, scaleY: 1, data: new Float32Array(size * size) });
const at = (g: DensityGrid, i: number, j: number) => g.data[j * g.width + i]!;

describe("heatmap kernel", () => {
  test("one point: the peak at its centre, falling off to nothing at reach * radius", () => {
    const g = unitGrid();
    // sample centres sit at half pixels: the point on sample (32, 32)
    addKernel(g, 32.5, 32.5, 10, 1);
    expect(at(g, 32, 32)).toBeCloseTo(GAUSS_COEF, 6);
    expect(at(g, 37, 32)).toBeCloseTo(GAUSS_COEF * Math.exp(-4.5 * 0.25), 6);
    expect(at(g, 32, 27)).toBeCloseTo(at(g, 37, 32), 6);
    // monotone away from the centre
    for (let i = 32; i < 63; i++) expect(at(g, i + 1, 32)).toBeLessThanOrEqual(at(g, i, 32));
    const reach = kernelReach(GAUSS_COEF) * 10;
    expect(reach).toBeGreaterThan(10);
    expect(reach).toBeLessThan(20);
    // the kernel falls to ZERO exactly at reach, and the quad ends there
    expect(kernelValue(GAUSS_COEF, 10, reach)).toBeCloseTo(ZERO, 9);
    const last = Math.floor(32 + reach);
    expect(at(g, last, 32)).toBeGreaterThan(ZERO * 0.99);
    expect(at(g, last + 1, 32)).toBe(0);
    expect(at(g, 32, last + 1)).toBe(0);
    // a square quad: its corner holds a little beyond reach on the diagonal, below ZERO
    expect(at(g, last, last)).toBeGreaterThan(0);
    expect(at(g, last, last)).toBeLessThan(ZERO);
  });

  test("two close points add up", () => {
    const one = unitGrid();
    addKernel(one, 30.5, 32.5, 10, 1);
    const two = unitGrid();
    addKernel(two, 30.5, 32.5, 10, 1);
    addKernel(two, 34.5, 32.5, 10, 1);
    // between them each contributes its value 2 px away
    expect(at(two, 32, 32)).toBeCloseTo(2 * at(one, 32, 32), 6);
    expect(at(two, 32, 32)).toBeGreaterThan(at(one, 30, 32));
  });

  test("weight times intensity scales it and widens its reach", () => {
    const base = unitGrid();
    addKernel(base, 32.5, 32.5, 10, 1);
    const heavy = unitGrid();
    addKernel(heavy, 32.5, 32.5, 10, 3);
    expect(at(heavy, 32, 32)).toBeCloseTo(3 * at(base, 32, 32), 6);
    expect(at(heavy, 38, 35)).toBeCloseTo(3 * at(base, 38, 35), 6);
    expect(kernelReach(3 * GAUSS_COEF)).toBeGreaterThan(kernelReach(GAUSS_COEF));
  });

  test("a peak not above ZERO, or no radius, draws nothing (the shader's quad has no area)", () => {
    const g = unitGrid();
    addKernel(g, 32.5, 32.5, 10, 0);
    addKernel(g, 32.5, 32.5, 10, ZERO / GAUSS_COEF / 2);
    addKernel(g, 32.5, 32.5, 0, 1);
    expect(g.data.every((v) => v === 0)).toBe(true);
  });

  test("the buffer is a quarter of the drawing buffer, truncated", () => {
    expect(densityGrid(512, 256, 1)).toMatchObject({ width: 128, height: 64, scaleX: 0.25, scaleY: 0.25 });
    expect(densityGrid(512, 256, 2)).toMatchObject({ width: 256, height: 128, scaleX: 0.5, scaleY: 0.5 });
    expect(densityGrid(10, 7, 1)).toMatchObject({ width: 2, height: 1, scaleX: 0.2, scaleY: 1 / 7 });
    expect(densityGrid(3, 100, 1)).toBeNull();
  });
});

describe("heatmap colour ramp", () => {
  // transparent below, then blue to red: premultiplied as the style spec's colours are
  const colorAt = (d: number) => (d < 0.5 ? { r: 0, g: 0, b: d * 2, a: d * 2 } : { r: (d - 0.5) * 2, g: 0, b: 1 - (d - 0.5) * 2, a: 1 });
  const ramp = heatmapRamp(colorAt);

  test("256 entries at densities i / 255, premultiplied bytes, a transparent one all zero", () => {
    expect(ramp.length).toBe(256 * 4);
    expect([...ramp.subarray(0, 4)]).toEqual([0, 0, 0, 0]);
    const alpha64 = Math.round((64 / 255) * 2 * 255);
    expect([...ramp.subarray(64 * 4, 64 * 4 + 4)]).toEqual([0, 0, alpha64, alpha64]);
    expect([...ramp.subarray(255 * 4)]).toEqual([255, 0, 0, 255]);
  });

  test("density maps through the ramp, times the opacity", () => {
    const g = { width: 1, height: 1, scaleX: 1, scaleY: 1, data: Float32Array.of(0) };
    const colour = (density: number, opacity = 1) => {
      g.data[0] = density;
      return [...colorizeDensity(g, ramp, opacity, 1, 1)];
    };
    expect(colour(0)).toEqual([0, 0, 0, 0]);
    expect(colour(1)).toEqual([255, 0, 0, 255]);
    expect(colour(5)).toEqual([255, 0, 0, 255]);
    expect(colour(1, 0.5)).toEqual([128, 0, 0, 128]);
    // t = 0.25 falls halfway between entries 63 and 64 (t * 256 - 0.5 = 63.5)
    const half = Math.round((ramp[63 * 4 + 3]! + ramp[64 * 4 + 3]!) / 2);
    expect(colour(0.25)).toEqual([0, 0, half, half]);
  });

  test("the density is stretched over the view with linear filtering", () => {
    // two samples across, eight pixels: the edges hold their sample, between them a blend
    const g = { width: 2, height: 1, scaleX: 0.25, scaleY: 0.25, data: Float32Array.of(0, 1) };
    const px = colorizeDensity(g, ramp, 1, 8, 1);
    const red = Array.from({ length: 8 }, (_, i) => px[i * 4]!);
    expect(red[0]).toBe(0);
    expect(red[1]).toBe(0);
    expect(red[7]).toBe(255);
    for (let i = 0; i < 7; i++) expect(red[i + 1]!).toBeGreaterThanOrEqual(red[i]!);
  });
});

describe("heatmap layer", () => {
  const DEG = 256 / 11.25; // px per degree near the equator at zoom 4
  const data: GeoJSON.FeatureCollection = {
    type: "FeatureCollection",
    features: [point(-2, 0, { kind: "a" }), point(-1.8, 0.1, { kind: "a" }), point(2, 0, { kind: "b" })],
  };
  const render = async (paint: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
    const style = {
      version: 8,
      sources: { o: { type: "geojson" } },
      layers: [
        { id: "bg", type: "background", paint: { "background-color": "#000000" } },
        { id: "heat", type: "heatmap", source: "o", paint: { "heatmap-radius": 20, ...paint }, ...extra },
      ],
    } as unknown as StyleSpecification;
    return pixels(await renderMap(style, { center: [0, 0], zoom: 4, bearing: 0, width: 256, height: 256, pixelRatio: 1 }, await resources({ geojson: { o: data } })));
  };
  const brightness = (px: [number, number, number, number]) => px[0] + px[1] + px[2];

  test("points glow with the default ramp, more where two overlap; nothing far from them", async () => {
    const p = await render({});
    const pair = brightness(p.at(Math.round(128 - 1.9 * DEG), 128));
    const single = brightness(p.at(Math.round(128 + 2 * DEG), 128));
    expect(single).toBeGreaterThan(60);
    expect(pair).toBeGreaterThan(single);
    expect(brightness(p.at(128, 20))).toBe(0);
    expect(brightness(p.at(128, 128))).toBe(0);
  });

  test("the filter, minzoom and opacity are honoured", async () => {
    const filtered = await render({}, { filter: ["==", ["get", "kind"], "a"] });
    expect(brightness(filtered.at(Math.round(128 + 2 * DEG), 128))).toBe(0);
    expect(brightness(filtered.at(Math.round(128 - 1.9 * DEG), 128))).toBeGreaterThan(60);
    const hidden = await render({}, { minzoom: 5 });
    expect(brightness(hidden.at(Math.round(128 - 1.9 * DEG), 128))).toBe(0);
    const none = await render({ "heatmap-opacity": 0 });
    expect(brightness(none.at(Math.round(128 - 1.9 * DEG), 128))).toBe(0);
  });
});

// MapLibre's hillshade, per DEM pixel, as its two shaders compute it (maplibre-gl 6.17,
// hillshade_prepare and hillshade): a slope from the 3x3 Sobel kernel, kept in 8-bit like the prepare
// pass's texture, then lit by the layer's method. The result is straight-alpha RGBA the size of the tile.

/** Premultiplied RGBA in 0..1, as MapLibre's Color holds it. */
export type PremultipliedColor = [number, number, number, number];

export type HillshadeMethod = "standard" | "basic" | "combined" | "igor" | "multidirectional";

export interface HillshadeLight {
  /** where the light comes from, radians clockwise from north (the map bearing added for the "viewport" anchor) */
  direction: number;
  /** radians above the horizon (unused by "standard" and "igor") */
  altitude: number;
  shadow: PremultipliedColor;
  highlight: PremultipliedColor;
}

export interface HillshadePaint {
  method: HillshadeMethod;
  /** hillshade-exaggeration, 0..1 */
  intensity: number;
  /** "standard" only */
  accent: PremultipliedColor;
  /** at least one; every method but "multidirectional" uses the first */
  lights: HillshadeLight[];
}

export interface DemGrid {
  /** the tile's width and height in pixels */
  size: number;
  /** (size+2)^2 heights in metres row by row from the north-west, with a 1-px border from the neighbours */
  padded: Float32Array;
  /** the tile's zoom */
  z: number;
  /** latitudes (degrees) of the tile's north and south edges */
  north: number;
  south: number;
}

/** log2 of the Earth's circumference in metres at the equator: MapLibre's log2 world width for Mercator. */
const LOG2_WORLD_WIDTH = 25.2562;

/**
 * Per pixel, the slope (dz/dx eastwards, dz/dy southwards) as MapLibre's prepare pass leaves it: scaled
 * by the zoom-dependent exaggeration that flattens low zooms less, then stored in 8 bits (steps of 8/255,
 * clamped to about +-4), which quantizes gentle slopes the same way.
 */
export function hillshadeDerivatives(grid: DemGrid): { dx: Float32Array; dy: Float32Array } {
  const { size, padded, z } = grid;
  const stride = size + 2;
  const exaggerationFactor = z < 2 ? 0.4 : z < 4.5 ? 0.35 : 0.3;
  const exaggeration = z < 15 ? (z - 15) * exaggerationFactor : 0;
  // 3 is log2 of the kernel's weight 8; the tile size turns metres per world into metres per pixel
  const scale = size / 2 ** (exaggeration + (3 + LOG2_WORLD_WIDTH - z));
  const dx = new Float32Array(size * size);
  const dy = new Float32Array(size * size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const o = (y + 1) * stride + x + 1;
      const a = padded[o - stride - 1]!, b = padded[o - stride]!, c = padded[o - stride + 1]!;
      const d = padded[o - 1]!, f = padded[o + 1]!;
      const g = padded[o + stride - 1]!, h = padded[o + stride]!, i = padded[o + stride + 1]!;
      dx[y * size + x] = quantize((c + f + f + i - (a + d + d + g)) * scale);
      dy[y * size + x] = quantize((g + h + h + i - (a + b + b + c)) * scale);
    }
  }
  return { dx, dy };
}

/** A derivative through the prepare pass's 8-bit channel: stored as d/8 + 128/255, clamped to 0..1. */
function quantize(d: number): number {
  const stored = Math.round(Math.min(1, Math.max(0, d / 8 + 128 / 255)) * 255);
  return ((stored - 128) * 8) / 255;
}

/** The shaded tile as straight-alpha RGBA, size x size. */
export function shadeHillshade(grid: DemGrid, paint: HillshadePaint): Uint8Array {
  const { size } = grid;
  const { dx, dy } = hillshadeDerivatives(grid);
  const rgba = new Uint8Array(size * size * 4);
  if (paint.intensity === 0) return rgba;
  const shadePixel = METHODS[paint.method] ?? standard;
  const px = [0, 0, 0, 0];
  for (let y = 0; y < size; y++) {
    // the shader interpolates latitude linearly down the tile, at the pixel's centre
    const lat = grid.north + (grid.south - grid.north) * ((y + 0.5) / size);
    const scaleFactor = Math.cos((lat * Math.PI) / 180);
    for (let x = 0; x < size; x++) {
      const i = y * size + x;
      shadePixel(dx[i]! / scaleFactor, dy[i]! / scaleFactor, paint, px);
      writeStraight(rgba, i * 4, px);
    }
  }
  return rgba;
}

type ShadePixel = (derivX: number, derivY: number, paint: HillshadePaint, out: number[]) => void;

const standard: ShadePixel = (derivX, derivY, paint, out) => {
  const { shadow, highlight, direction } = paint.lights[0]!;
  const strength = Math.min(1, Math.max(0, paint.intensity * 2));
  const azimuth = direction + Math.PI;
  const base = 1.875 - paint.intensity * 1.75;
  const maxValue = 0.5 * Math.PI;
  const slope = Math.atan(0.625 * Math.hypot(derivX, derivY));
  const aspect = aspectOf(derivX, derivY);
  const scaledSlope = paint.intensity !== 0.5 ? ((base ** slope - 1) / (base ** maxValue - 1)) * maxValue : slope;
  const accent = (1 - Math.cos(scaledSlope)) * strength;
  const shade = Math.abs(mod((aspect + azimuth) / Math.PI + 0.5, 2) - 1);
  const shadeStrength = Math.sin(scaledSlope) * strength;
  for (let k = 0; k < 4; k++) out[k] = (shadow[k]! * (1 - shade) + highlight[k]! * shade) * shadeStrength;
  const shadeAlpha = out[3]!;
  for (let k = 0; k < 4; k++) out[k] = paint.accent[k]! * accent * (1 - shadeAlpha) + out[k]!;
};

/** The cosine of the angle between the surface normal and a light (GDAL's gdaldem formula). */
function incidence(derivX: number, derivY: number, light: HillshadeLight): number {
  const azimuth = light.direction + Math.PI;
  const cosAlt = Math.cos(light.altitude);
  const sinAlt = Math.sin(light.altitude);
  return (sinAlt - (derivY * Math.cos(azimuth) * cosAlt - derivX * Math.sin(azimuth) * cosAlt)) / Math.sqrt(1 + derivX * derivX + derivY * derivY);
}

/** The light's highlight above half lit, its shadow below, stronger further from half, times `weight`, added to `out`. */
function addLambert(shade: number, light: HillshadeLight, weight: number, out: number[]): void {
  for (let k = 0; k < 4; k++) out[k] = out[k]! + (shade > 0.5 ? light.highlight[k]! * (2 * shade - 1) : light.shadow[k]! * (1 - 2 * shade)) * weight;
}

const basic: ShadePixel = (derivX, derivY, paint, out) => {
  const e = paint.intensity * 2;
  out.fill(0);
  addLambert(clamp01(incidence(derivX * e, derivY * e, paint.lights[0]!)), paint.lights[0]!, 1, out);
};

const multidirectional: ShadePixel = (derivX, derivY, paint, out) => {
  const e = paint.intensity * 2;
  out.fill(0);
  // each light's share: the shader divides by its number of lights
  for (const light of paint.lights) addLambert(clamp01(incidence(derivX * e, derivY * e, light)), light, 1 / paint.lights.length, out);
};

const combined: ShadePixel = (derivX, derivY, paint, out) => {
  const e = paint.intensity * 2;
  const light = paint.lights[0]!;
  // rounding can carry the cosine a hair past 1, where acos has no value
  const cosine = Math.min(1, Math.max(-1, incidence(derivX * e, derivY * e, light)));
  const angle = Math.min(Math.PI / 2, Math.max(0, Math.acos(cosine)));
  const steepness = Math.atan(Math.hypot(derivX * e, derivY * e));
  const shade = (angle * steepness * 4) / Math.PI / Math.PI;
  const lit = ((Math.PI / 2 - angle) * steepness * 4) / Math.PI / Math.PI;
  for (let k = 0; k < 4; k++) out[k] = light.shadow[k]! * shade + light.highlight[k]! * lit;
};

const igor: ShadePixel = (derivX, derivY, paint, out) => {
  const e = paint.intensity * 2;
  const light = paint.lights[0]!;
  const x = derivX * e;
  const y = derivY * e;
  const slopeStrength = (Math.atan(Math.hypot(x, y)) * 2) / Math.PI;
  const aspectStrength = 1 - Math.abs(mod((aspectOf(x, y) + light.direction + Math.PI) / Math.PI + 0.5, 2) - 1);
  for (let k = 0; k < 4; k++) out[k] = light.shadow[k]! * slopeStrength * aspectStrength + light.highlight[k]! * slopeStrength * (1 - aspectStrength);
};

const METHODS: Record<HillshadeMethod, ShadePixel> = { standard, basic, combined, igor, multidirectional };

/** The shader's get_aspect. */
const aspectOf = (derivX: number, derivY: number) => (derivX !== 0 ? Math.atan2(derivY, -derivX) : (Math.PI / 2) * (derivY > 0 ? 1 : -1));

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/** GLSL mod: the result has the sign of the divisor. */
const mod = (a: number, b: number) => a - b * Math.floor(a / b);

function writeStraight(rgba: Uint8Array, o: number, premultiplied: number[]): void {
  const alpha = Math.min(1, Math.max(0, premultiplied[3]!));
  if (alpha <= 0) return;
  for (let k = 0; k < 3; k++) rgba[o + k] = Math.round(Math.min(1, Math.max(0, premultiplied[k]! / alpha)) * 255);
  rgba[o + 3] = Math.round(alpha * 255);
}

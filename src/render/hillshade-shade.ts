// MapLibre's "standard" hillshade, per DEM pixel, as its two shaders compute it (maplibre-gl 6.17,
// hillshade_prepare and hillshade): a slope from the 3x3 Sobel kernel, kept in 8-bit like the prepare
// pass's texture, then lit by one light. The result is straight-alpha RGBA the size of the tile.

/** Premultiplied RGBA in 0..1, as MapLibre's Color holds it. */
export type PremultipliedColor = [number, number, number, number];

export interface HillshadePaint {
  /** hillshade-exaggeration, 0..1 */
  intensity: number;
  /** where the light comes from, radians clockwise from north (the map bearing added for the "viewport" anchor) */
  direction: number;
  shadow: PremultipliedColor;
  highlight: PremultipliedColor;
  accent: PremultipliedColor;
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
  const strength = Math.min(1, Math.max(0, paint.intensity * 2));
  if (strength === 0) return rgba;
  const azimuth = paint.direction + Math.PI;
  const base = 1.875 - paint.intensity * 1.75;
  const maxValue = 0.5 * Math.PI;
  const px = [0, 0, 0, 0];
  for (let y = 0; y < size; y++) {
    // the shader interpolates latitude linearly down the tile, at the pixel's centre
    const lat = grid.north + (grid.south - grid.north) * ((y + 0.5) / size);
    const scaleFactor = Math.cos((lat * Math.PI) / 180);
    for (let x = 0; x < size; x++) {
      const i = y * size + x;
      const derivX = dx[i]! / scaleFactor;
      const derivY = dy[i]! / scaleFactor;
      const slope = Math.atan(0.625 * Math.hypot(derivX, derivY));
      const aspect = derivX !== 0 ? Math.atan2(derivY, -derivX) : (Math.PI / 2) * (derivY > 0 ? 1 : -1);
      const scaledSlope = paint.intensity !== 0.5 ? ((base ** slope - 1) / (base ** maxValue - 1)) * maxValue : slope;
      const accent = (1 - Math.cos(scaledSlope)) * strength;
      const shade = Math.abs(mod((aspect + azimuth) / Math.PI + 0.5, 2) - 1);
      const shadeStrength = Math.sin(scaledSlope) * strength;
      for (let k = 0; k < 4; k++) {
        const shadeColor = (paint.shadow[k]! * (1 - shade) + paint.highlight[k]! * shade) * shadeStrength;
        px[k] = shadeColor;
      }
      const shadeAlpha = px[3]!;
      for (let k = 0; k < 4; k++) px[k] = paint.accent[k]! * accent * (1 - shadeAlpha) + px[k]!;
      writeStraight(rgba, i * 4, px);
    }
  }
  return rgba;
}

/** GLSL mod: the result has the sign of the divisor. */
const mod = (a: number, b: number) => a - b * Math.floor(a / b);

function writeStraight(rgba: Uint8Array, o: number, premultiplied: number[]): void {
  const alpha = Math.min(1, Math.max(0, premultiplied[3]!));
  if (alpha <= 0) return;
  for (let k = 0; k < 3; k++) rgba[o + k] = Math.round(Math.min(1, Math.max(0, premultiplied[k]! / alpha)) * 255);
  rgba[o + 3] = Math.round(alpha * 255);
}

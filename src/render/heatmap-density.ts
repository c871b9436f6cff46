// Heatmap density and colouring as MapLibre GL JS 6.17 draws them (heatmap shaders, draw_heatmap.ts):
// every point adds a Gaussian kernel into a float density buffer a quarter of the drawing buffer's size,
// which is then stretched over the view (linear filtering) and looked up in a 256-entry colour ramp.

/** The shaders' 1/sqrt(2*pi): the kernel's peak at weight * intensity 1. */
export const GAUSS_COEF = 0.3989422804014327;

/** The density below which the shader's quad ends (ZERO in heatmap.vertex.glsl). */
export const ZERO = 1 / 255 / 16;

/** MapLibre renders the density at a quarter of the drawing buffer's width and height. */
const DOWNSAMPLE = 4;

export interface DensityGrid {
  /** samples across and down */
  width: number;
  height: number;
  /** grid samples per CSS px, across and down (the buffer's size is truncated, so the two may differ) */
  scaleX: number;
  scaleY: number;
  /** density at each sample, row by row from the top */
  data: Float32Array;
}

/**
 * The density buffer of a view of `width` x `height` CSS px drawn at `pixelRatio`: truncated to whole
 * samples as WebGL truncates the framebuffer's size; null where it would have no samples.
 */
export function densityGrid(width: number, height: number, pixelRatio: number): DensityGrid | null {
  const deviceWidth = Math.round(width * pixelRatio);
  const deviceHeight = Math.round(height * pixelRatio);
  const gridWidth = Math.floor(deviceWidth / DOWNSAMPLE);
  const gridHeight = Math.floor(deviceHeight / DOWNSAMPLE);
  if (gridWidth < 1 || gridHeight < 1) return null;
  return { width: gridWidth, height: gridHeight, scaleX: gridWidth / width, scaleY: gridHeight / height, data: new Float32Array(gridWidth * gridHeight) };
}

/**
 * How far the kernel reaches, in radii: where weight * intensity * GAUSS_COEF * exp(-4.5 d^2) falls to
 * ZERO (the shader's S). NaN or 0 where the peak itself is not above ZERO: the shader's quad then has no
 * area (or NaN corners) and draws nothing.
 */
export function kernelReach(amplitude: number): number {
  return Math.sqrt(-2 * Math.log(ZERO / amplitude)) / 3;
}

/** The kernel's value `distance` CSS px from its point. */
export function kernelValue(amplitude: number, radius: number, distance: number): number {
  const d = distance / radius;
  return amplitude * Math.exp(-0.5 * 3 * 3 * d * d);
}

/**
 * Adds one point's kernel, additively as MapLibre blends (ONE, ONE): a square quad `reach * radius` CSS
 * px to each side of the point, `weightTimesIntensity * GAUSS_COEF * exp(-4.5 (d / radius)^2)` at
 * each sample centre inside it.
 */
export function addKernel(grid: DensityGrid, x: number, y: number, radius: number, weightTimesIntensity: number): void {
  const amplitude = weightTimesIntensity * GAUSS_COEF;
  if (!(amplitude > ZERO) || !(radius > 0)) return;
  const half = kernelReach(amplitude) * radius;
  // samples whose centres ((i + 0.5) / scale) fall inside the quad
  const fromX = Math.max(0, Math.ceil((x - half) * grid.scaleX - 0.5));
  const toX = Math.min(grid.width - 1, Math.floor((x + half) * grid.scaleX - 0.5));
  const fromY = Math.max(0, Math.ceil((y - half) * grid.scaleY - 0.5));
  const toY = Math.min(grid.height - 1, Math.floor((y + half) * grid.scaleY - 0.5));
  const k = -4.5 / (radius * radius);
  for (let j = fromY; j <= toY; j++) {
    const dy = (j + 0.5) / grid.scaleY - y;
    const row = j * grid.width;
    for (let i = fromX; i <= toX; i++) {
      const dx = (i + 0.5) / grid.scaleX - x;
      grid.data[row + i]! += amplitude * Math.exp(k * (dx * dx + dy * dy));
    }
  }
}

/** A colour as the style spec evaluates it: r, g, b premultiplied by a, all 0..1. */
export interface PremultipliedColor {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** Entries in the colour ramp texture. */
export const RAMP_SIZE = 256;

/**
 * The colour ramp texture: entry i is `colorAt(i / 255)`, as MapLibre makes it: stored straight
 * (RGBAImage.setPixel, a transparent colour as 0, 0, 0, 0 where 0 / 0 is stored as 0), then
 * premultiplied in 8 bits as the texture is uploaded.
 */
export function heatmapRamp(colorAt: (density: number) => PremultipliedColor): Uint8Array {
  const ramp = new Uint8Array(RAMP_SIZE * 4);
  for (let i = 0; i < RAMP_SIZE; i++) {
    const c = colorAt(i / (RAMP_SIZE - 1));
    const alpha = Math.round(c.a * 255);
    const straight = [c.r, c.g, c.b].map((v) => Math.round((v * 255) / c.a) || 0);
    for (let k = 0; k < 3; k++) ramp[i * 4 + k] = Math.round((straight[k]! * alpha) / 255);
    ramp[i * 4 + 3] = alpha;
  }
  return ramp;
}

/**
 * The heatmap over the view's `deviceWidth` x `deviceHeight` pixels, as MapLibre's heatmapTexture shader
 * draws it: the density sampled at each pixel's centre (bilinear, edges clamped), looked up in the ramp
 * (bilinear between entries, t = 0 and 1 at the first and last entry's outer edge, clamped), times the
 * opacity; premultiplied RGBA bytes.
 */
export function colorizeDensity(grid: DensityGrid, ramp: Uint8Array, opacity: number, deviceWidth: number, deviceHeight: number): Uint8Array {
  const out = new Uint8ClampedArray(deviceWidth * deviceHeight * 4);
  const { width: gw, height: gh, data } = grid;
  const stepX = gw / deviceWidth;
  const stepY = gh / deviceHeight;
  const k = opacity;
  for (let py = 0; py < deviceHeight; py++) {
    const v = (py + 0.5) * stepY - 0.5;
    const y0 = Math.floor(v);
    const fy = v - y0;
    const ya = Math.max(0, y0) * gw;
    const yb = Math.min(gh - 1, y0 + 1) * gw;
    for (let px = 0; px < deviceWidth; px++) {
      const u = (px + 0.5) * stepX - 0.5;
      const x0 = Math.floor(u);
      const fx = u - x0;
      const xa = Math.max(0, x0);
      const xb = Math.min(gw - 1, x0 + 1);
      const t = (data[ya + xa]! * (1 - fx) + data[ya + xb]! * fx) * (1 - fy) + (data[yb + xa]! * (1 - fx) + data[yb + xb]! * fx) * fy;
      const s = Math.min(RAMP_SIZE - 1, Math.max(0, t * RAMP_SIZE - 0.5));
      const i0 = Math.floor(s);
      const i1 = Math.min(RAMP_SIZE - 1, i0 + 1);
      const f = s - i0;
      const a = i0 * 4;
      const b = i1 * 4;
      const o = (py * deviceWidth + px) * 4;
      out[o] = (ramp[a]! * (1 - f) + ramp[b]! * f) * k;
      out[o + 1] = (ramp[a + 1]! * (1 - f) + ramp[b + 1]! * f) * k;
      out[o + 2] = (ramp[a + 2]! * (1 - f) + ramp[b + 2]! * f) * k;
      out[o + 3] = (ramp[a + 3]! * (1 - f) + ramp[b + 3]! * f) * k;
    }
  }
  return new Uint8Array(out.buffer);
}

// raster-hue-rotate, -saturation, -contrast and -brightness-min/-max, as MapLibre's raster shader applies
// them (maplibre-gl 6.17: draw_raster's spinWeights, saturationFactor, contrastFactor and the fragment
// shader), per pixel of a tile's straight-alpha RGBA.

export interface RasterColour {
  spin: [number, number, number];
  saturation: number;
  contrast: number;
  brightnessLow: number;
  brightnessHigh: number;
}

/** The adjustment of the layer's paint values; null when they change nothing (the defaults). */
export function rasterColour(hueRotate: number, saturation: number, contrast: number, brightnessMin: number, brightnessMax: number): RasterColour | null {
  if (hueRotate === 0 && saturation === 0 && contrast === 0 && brightnessMin === 0 && brightnessMax === 1) return null;
  const angle = (hueRotate * Math.PI) / 180;
  const s = Math.sin(angle);
  const c = Math.cos(angle);
  return {
    spin: [(2 * c + 1) / 3, (-Math.sqrt(3) * s - c + 1) / 3, (Math.sqrt(3) * s - c + 1) / 3],
    saturation: saturation > 0 ? 1 - 1 / (1.001 - saturation) : -saturation,
    contrast: contrast > 0 ? 1 / (1 - contrast) : 1 + contrast,
    brightnessLow: brightnessMin,
    brightnessHigh: brightnessMax,
  };
}

/** A copy of straight-alpha RGBA with the adjustment applied to every pixel's colour. */
export function applyRasterColour(rgba: Uint8Array, adjust: RasterColour): Uint8Array {
  const out = new Uint8ClampedArray(rgba.length);
  const [w0, w1, w2] = adjust.spin;
  const { saturation, contrast, brightnessLow, brightnessHigh } = adjust;
  for (let o = 0; o < rgba.length; o += 4) {
    const r = rgba[o]! / 255;
    const g = rgba[o + 1]! / 255;
    const b = rgba[o + 2]! / 255;
    // spin: rgb . (w0, w1, w2), rgb . (w2, w0, w1), rgb . (w1, w2, w0)
    let sr = r * w0 + g * w1 + b * w2;
    let sg = r * w2 + g * w0 + b * w1;
    let sb = r * w1 + g * w2 + b * w0;
    // saturation pulls toward the average of the colour before the spin, as the shader computes it
    const average = (r + g + b) / 3;
    sr += (average - sr) * saturation;
    sg += (average - sg) * saturation;
    sb += (average - sb) * saturation;
    sr = (sr - 0.5) * contrast + 0.5;
    sg = (sg - 0.5) * contrast + 0.5;
    sb = (sb - 0.5) * contrast + 0.5;
    // mix(low, high, rgb)
    out[o] = (brightnessLow + (brightnessHigh - brightnessLow) * sr) * 255;
    out[o + 1] = (brightnessLow + (brightnessHigh - brightnessLow) * sg) * 255;
    out[o + 2] = (brightnessLow + (brightnessHigh - brightnessLow) * sb) * 255;
    out[o + 3] = rgba[o + 3]!;
  }
  return new Uint8Array(out.buffer);
}

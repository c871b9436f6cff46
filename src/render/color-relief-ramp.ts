// MapLibre's color-relief per DEM pixel (maplibre-gl 6.17, color_relief_style_layer.ts and the colorRelief
// shader): the colour expression is evaluated only at its stops into a ramp texture; each pixel finds its
// pair of stops by binary search and takes the texture's linear blend of their 8-bit premultiplied colours.
import type { DemEncoding } from "../tiles/dem/encoding";

export interface ColorRamp {
  /** ascending elevations (metres) of the stops, at least two */
  elevations: number[];
  /** premultiplied RGBA bytes per stop, as the ramp texture holds them */
  colors: Uint8Array;
}

/** A premultiplied colour in 0..1 (r, g, b already times a), as the style spec's Color holds it. */
export interface StopColor {
  r: number;
  g: number;
  b: number;
  a: number;
}

/**
 * The ramp texture of stops: colours stored as RGBAImage.setPixel rounds them (straight bytes) and then
 * premultiplied in bytes on upload; elevations packed in the DEM's own encoding (rounded to its step).
 */
export function colorRamp(stops: { elevation: number; color: StopColor }[], encoding: DemEncoding): ColorRamp {
  const colors = new Uint8Array(stops.length * 4);
  stops.forEach(({ color }, i) => {
    const alpha = Math.round(color.a * 255);
    const straight = [color.r, color.g, color.b].map((v) => (color.a > 0 ? Math.round((v * 255) / color.a) : 0));
    for (let k = 0; k < 3; k++) colors[i * 4 + k] = Math.round((straight[k]! * alpha) / 255);
    colors[i * 4 + 3] = alpha;
  });
  return { elevations: stops.map((s) => packedElevation(s.elevation, encoding)), colors };
}

/** An elevation as the DEM's encoding can hold it: MapLibre packs the ramp's stops into the same RGB. */
function packedElevation(h: number, encoding: DemEncoding): number {
  const [step, shift] = encoding === "terrarium" ? [1 / 256, 32768] : [0.1, 10000];
  return Math.round((h + shift) / step) * step - shift;
}

/**
 * The colour of each height (metres; NaN, no data, counts as 0 m as the tile's PNG draws it) as
 * straight-alpha RGBA, times `opacity`.
 */
export function colorReliefPixels(heights: Float32Array, ramp: ColorRamp, opacity: number): Uint8Array {
  const { elevations, colors } = ramp;
  const n = elevations.length;
  const rgba = new Uint8Array(heights.length * 4);
  for (let i = 0; i < heights.length; i++) {
    const el = Number.isNaN(heights[i]!) ? 0 : heights[i]!;
    // the shader's binary search: l and r = l + 1 end either side of el (clamped at the ends)
    let l = 0;
    let r = n - 1;
    while (r - l > 1) {
      const m = (r + l) >> 1;
      if (el < elevations[m]!) r = m;
      else l = m;
    }
    const span = elevations[r]! - elevations[l]!;
    // the texture coordinate (l + t + 0.5) / n, linearly filtered and clamped to the edge texels
    const u = Math.min(n - 1, Math.max(0, l + (span > 0 ? (el - elevations[l]!) / span : 0)));
    const i0 = Math.min(n - 2, Math.floor(u));
    const w = u - i0;
    const alpha = (opacity * (colors[i0 * 4 + 3]! * (1 - w) + colors[i0 * 4 + 7]! * w)) / 255;
    if (alpha <= 0) continue;
    for (let k = 0; k < 3; k++) {
      const premultiplied = (opacity * (colors[i0 * 4 + k]! * (1 - w) + colors[i0 * 4 + 4 + k]! * w)) / 255;
      rgba[i * 4 + k] = Math.round(Math.min(1, premultiplied / alpha) * 255);
    }
    rgba[i * 4 + 3] = Math.round(Math.min(1, alpha) * 255);
  }
  return rgba;
}

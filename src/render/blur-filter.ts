// A Gaussian blur as an SVG filter def, for what resvg draws blurred (line-blur, text-halo-blur on turned
// glyphs): one def per sigma, shared by every layer of a render.
import type { SvgDocument } from "./svg";
import { n } from "./svg";

/**
 * A Gaussian blur filter over the whole view: its region in view units, since a straight horizontal
 * line has a bounding box of no height, and a region relative to it (the default) would blur nothing.
 */
export function blurFilter(svg: SvgDocument, sigma: number): string {
  const m = Math.ceil(sigma * 3);
  return svg.defOnce(
    `blur:${n(sigma)}`,
    (id) => `<filter id="${id}" filterUnits="userSpaceOnUse" x="${-m}" y="${-m}" width="${svg.width + 2 * m}" height="${svg.height + 2 * m}"><feGaussianBlur stdDeviation="${n(sigma)}"/></filter>`,
  );
}

// The render's pixels: resvg draws the SVG body, and the upright label text (SvgDocument.textRuns) is laid
// on as cached glyph masks at its place in the drawing order, as are whole-view images layers computed. Body drawn after a text run (overlays on
// top of labels, later layers' icons) is rasterized on its own and laid over, so the order of the style
// holds. Everything stays premultiplied, as resvg gives it, until the end.
import type { RgbaImage } from "../sprites/png";
import { rasterizePremultiplied, unpremultiply } from "../sprites/rasterize";
import { glyphMask, quantize } from "./glyph-masks";
import type { MaskGlyph, SvgDocument } from "./svg";

/** Straight-alpha RGBA of the document at `pixelRatio` (resvg must be ready). */
export function composeImage(svg: SvgDocument, pixelRatio: number): RgbaImage {
  const runs = svg.textRuns;
  const image = rasterizePremultiplied(svg.slice(0, runs[0]?.at ?? svg.body.length), pixelRatio);
  runs.forEach((run, i) => {
    if (run.pixels) {
      // made at the view's size times the pixel ratio, as resvg draws the body
      if (run.pixels.length !== image.data.length) throw new Error(`a layer image of ${run.pixels.length / 4} pixels for a render of ${image.width}x${image.height}`);
      over(image, { width: image.width, height: image.height, data: run.pixels });
    }
    else drawGlyphs(image, run.glyphs, pixelRatio);
    const to = runs[i + 1]?.at ?? svg.body.length;
    if (to > run.at) over(image, rasterizePremultiplied(svg.slice(run.at, to), pixelRatio));
  });
  unpremultiply(image.data);
  return image;
}

function drawGlyphs(image: RgbaImage, glyphs: MaskGlyph[], pixelRatio: number): void {
  for (const g of glyphs) {
    if (g.color[3] <= 0) continue;
    const [x, fx] = pixelAndFraction(g.x * pixelRatio);
    const [y, fy] = pixelAndFraction(g.y * pixelRatio);
    const mask = glyphMask(g.font, g.glyphIndex, quantize(g.size * pixelRatio), fx, fy, quantize(g.halo * pixelRatio), quantize(g.blur * pixelRatio));
    if (mask.width) blit(image, mask.alpha, mask.width, mask.height, x + mask.left, y + mask.top, g.color);
  }
}

/** The pixel a coordinate falls in and its offset there, rounded to the mask grid. */
function pixelAndFraction(v: number): [number, number] {
  let pixel = Math.floor(v);
  let fraction = quantize(v - pixel);
  if (fraction >= 1) {
    pixel += 1;
    fraction = 0;
  }
  return [pixel, fraction];
}

/** Source-over of one colour through a coverage mask whose top-left pixel lands at (x0, y0). */
function blit(image: RgbaImage, alpha: Uint8Array, width: number, height: number, x0: number, y0: number, color: MaskGlyph["color"]): void {
  const [r, g, b, a] = color;
  const data = image.data;
  const fromX = Math.max(0, -x0);
  const toX = Math.min(width, image.width - x0);
  const fromY = Math.max(0, -y0);
  const toY = Math.min(height, image.height - y0);
  const k = a / 255;
  for (let my = fromY; my < toY; my++) {
    for (let mx = fromX; mx < toX; mx++) {
      const m = alpha[my * width + mx]!;
      if (m === 0) continue;
      const sa = m * k;
      const keep = 1 - sa;
      const o = ((y0 + my) * image.width + x0 + mx) * 4;
      data[o] = Math.round(r * sa + data[o]! * keep);
      data[o + 1] = Math.round(g * sa + data[o + 1]! * keep);
      data[o + 2] = Math.round(b * sa + data[o + 2]! * keep);
      data[o + 3] = Math.round(255 * sa + data[o + 3]! * keep);
    }
  }
}

/** Premultiplied source-over of `top` onto `image` (same size); transparent pixels are skipped a word at a time. */
function over(image: RgbaImage, top: RgbaImage): void {
  const dst = image.data;
  const src = top.data;
  const words = new Uint32Array(src.buffer, src.byteOffset, src.byteLength >> 2);
  const dstWords = new Uint32Array(dst.buffer, dst.byteOffset, dst.byteLength >> 2);
  for (let w = 0; w < words.length; w++) {
    const word = words[w]!;
    const alpha = word >>> 24;
    if (alpha === 0) continue;
    if (alpha === 255) {
      dstWords[w] = word;
      continue;
    }
    const keep = 1 - alpha / 255;
    const i = w * 4;
    dst[i] = Math.round(src[i]! + dst[i]! * keep);
    dst[i + 1] = Math.round(src[i + 1]! + dst[i + 1]! * keep);
    dst[i + 2] = Math.round(src[i + 2]! + dst[i + 2]! * keep);
    dst[i + 3] = Math.round(alpha + dst[i + 3]! * keep);
  }
}

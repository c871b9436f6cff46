// Glyph masks (src/render/glyph-masks.ts): the coverage of a glyph at a size and quarter-pixel position,
// and its halo, which upright labels are drawn from.
import { describe, expect, test } from "bun:test";
import { flattenPath } from "../../../src/glyphs/outline";
import { glyphMask, type GlyphMask } from "../../../src/render/glyph-masks";
import { FontBook, type LoadedFont } from "../../../src/render/text";
import { resources } from "./fixtures";

const [font] = (await new FontBook(await resources({})).stack(["Noto Sans Regular"])) as [LoadedFont];
const glyphOf = (ch: string) => font.parsed.cmap[ch.codePointAt(0)!]!;
const EM = 24;

const ink = (m: GlyphMask) => m.alpha.reduce((s, a) => s + a / 255, 0);

/** Mean x of the coverage, in pixels relative to the pixel holding the glyph origin. */
function centroidX(m: GlyphMask): number {
  let sum = 0;
  let weight = 0;
  for (let y = 0; y < m.height; y++)
    for (let x = 0; x < m.width; x++) {
      const a = m.alpha[y * m.width + x]! / 255;
      sum += a * (m.left + x + 0.5);
      weight += a;
    }
  return sum / weight;
}

/** Leftmost and rightmost columns with any coverage above `min`. */
function span(m: GlyphMask, min = 128): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let y = 0; y < m.height; y++)
    for (let x = 0; x < m.width; x++)
      if (m.alpha[y * m.width + x]! >= min) {
        lo = Math.min(lo, m.left + x);
        hi = Math.max(hi, m.left + x);
      }
  return [lo, hi];
}

describe("glyph masks", () => {
  test("the coverage adds up to the glyph's area", () => {
    const outline = flattenPath(font.parsed.font.glyphs.get(glyphOf("o")).path.commands, EM / font.upm);
    let area = 0;
    for (let c = 0; c < outline.starts.length; c++) {
      const from = outline.starts[c]!;
      const to = c + 1 < outline.starts.length ? outline.starts[c + 1]! : outline.length;
      for (let i = from; i < to; i += 2) {
        const j = i + 2 < to ? i + 2 : from;
        area += outline.points[i]! * outline.points[j + 1]! - outline.points[j]! * outline.points[i + 1]!;
      }
    }
    const mask = glyphMask(font, glyphOf("o"), EM, 0, 0, 0);
    expect(Math.abs(ink(mask) / Math.abs(area / 2) - 1)).toBeLessThan(0.01);
  });

  test("a quarter-pixel position moves the coverage by that much", () => {
    const at0 = centroidX(glyphMask(font, glyphOf("H"), EM, 0, 0, 0));
    expect(centroidX(glyphMask(font, glyphOf("H"), EM, 0.25, 0, 0)) - at0).toBeCloseTo(0.25, 1);
    expect(centroidX(glyphMask(font, glyphOf("H"), EM, 0.75, 0, 0)) - at0).toBeCloseTo(0.75, 1);
  });

  test("a halo covers the glyph and reaches its radius beyond it", () => {
    const glyph = glyphMask(font, glyphOf("H"), EM, 0, 0, 0);
    const halo = glyphMask(font, glyphOf("H"), EM, 0, 0, 2);
    for (let y = 0; y < glyph.height; y++)
      for (let x = 0; x < glyph.width; x++) {
        const a = glyph.alpha[y * glyph.width + x]!;
        const hx = x + glyph.left - halo.left;
        const hy = y + glyph.top - halo.top;
        expect(halo.alpha[hy * halo.width + hx]!).toBeGreaterThanOrEqual(a);
      }
    const [g0, g1] = span(glyph);
    const [h0, h1] = span(halo);
    expect(g0 - h0).toBe(2);
    expect(h1 - g1).toBe(2);
  });

  test("a blurred halo fades out where the crisp one is full, and reaches further", () => {
    const glyph = glyphMask(font, glyphOf("H"), EM, 0, 0, 0);
    const crisp = glyphMask(font, glyphOf("H"), EM, 0, 0, 2);
    const blurred = glyphMask(font, glyphOf("H"), EM, 0, 0, 2, 2);
    const at = (m: GlyphMask, x: number, y: number) => {
      const mx = x - m.left;
      const my = y - m.top;
      return mx < 0 || my < 0 || mx >= m.width || my >= m.height ? 0 : m.alpha[my * m.width + mx]!;
    };
    let faded = 0;
    let beyond = 0;
    for (let y = blurred.top; y < blurred.top + blurred.height; y++)
      for (let x = blurred.left; x < blurred.left + blurred.width; x++) {
        const b = at(blurred, x, y);
        // inside the glyph the halo stays full (the text covers it)
        if (at(glyph, x, y) === 255) expect(b).toBe(255);
        else if (at(crisp, x, y) === 255 && at(glyph, x, y) === 0 && b > 0 && b < 255) faded++;
        if (at(crisp, x, y) === 0 && b > 0) beyond++;
      }
    expect(faded).toBeGreaterThan(50);
    expect(beyond).toBeGreaterThan(50);
    // it spreads the same ink over a wider band: about as much as the crisp halo, not a different size
    expect(Math.abs(ink(blurred) / ink(crisp) - 1)).toBeLessThan(0.15);
  });

  test("without blur the halo is the crisp one", () => {
    const crisp = glyphMask(font, glyphOf("g"), EM, 0.25, 0.5, 1.5);
    expect(glyphMask(font, glyphOf("g"), EM, 0.25, 0.5, 1.5, 0)).toBe(crisp);
    expect(glyphMask(font, glyphOf("g"), EM, 0.25, 0.5, 1.5, 1)).not.toBe(crisp);
    // blur is a halo's: the glyph itself is never blurred
    expect(glyphMask(font, glyphOf("g"), EM, 0.25, 0.5, 0, 1)).toBe(glyphMask(font, glyphOf("g"), EM, 0.25, 0.5, 0));
  });

  test("masks are kept: the same glyph at the same size and place is made once", () => {
    expect(glyphMask(font, glyphOf("a"), 11, 0.5, 0.25, 0)).toBe(glyphMask(font, glyphOf("a"), 11, 0.5, 0.25, 0));
    expect(glyphMask(font, glyphOf("a"), 11, 0.5, 0.25, 0)).not.toBe(glyphMask(font, glyphOf("a"), 11, 0.5, 0.25, 1));
  });

  test("a blank glyph has an empty mask", () => {
    expect(glyphMask(font, glyphOf(" "), EM, 0, 0, 1).width).toBe(0);
  });
});

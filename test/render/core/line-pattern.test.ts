// The budget of pattern copies one render draws along lines: past it, lines take the pattern tiled in map
// space (one element each) instead of copies turned along them, so a dense network of thin patterned
// lines in a large image stays a bounded document for resvg.
import { describe, expect, test } from "bun:test";
import { drawPatternLine, MAX_PATTERN_COPIES, MAX_PATTERN_MASKS } from "../../../src/render/line-pattern";
import type { SpriteImage } from "../../../src/render/sprite";
import { SvgDocument } from "../../../src/render/svg";

const IMAGE: SpriteImage = { id: "stripes", width: 8, height: 8, pixelRatio: 1, href: "" } as SpriteImage;

/** A horizontal line at `y` (across the view unless `length` is given), drawn with a 2-px repeat (the floor). */
function drawLine(svg: SvgDocument, y: number, length = svg.width) {
  const whole = [[0, y, length, y]];
  drawPatternLine(svg, IMAGE, { shape: `M0 ${y}H${length}`, whole, width: 2, period: 2, opacity: 1, strokeAttributes: "" });
}

const copies = (svg: SvgDocument) => svg.body.join("").split("<use ").length - 1;
const tiledLines = (svg: SvgDocument) => svg.body.join("").split('stroke="url(#').length - 1;

describe("line-pattern copies per render", () => {
  test("lines within the budget are drawn with copies turned along them", () => {
    const svg = new SvgDocument(1024, 1024);
    for (let y = 0; y < 8; y++) drawLine(svg, 10 + y * 4);
    expect(copies(svg)).toBeGreaterThan(8 * 500);
    expect(tiledLines(svg)).toBe(0);
  });

  test("past the budget of masks (one per feature drawn along), the remaining features are tiled too", () => {
    const svg = new SvgDocument(1024, 1024);
    // 300 lines of 20 px, 10 copies each: within the copies, past the masks
    for (let y = 0; y < 300; y++) drawLine(svg, 2 + y * 3, 20);
    expect(svg.body.filter((b) => b.startsWith("<g mask=")).length).toBe(MAX_PATTERN_MASKS);
    expect(tiledLines(svg)).toBe(300 - MAX_PATTERN_MASKS);
  });

  test("past the budget of copies, the remaining lines take the pattern tiled in map space, one element each", () => {
    const svg = new SvgDocument(2048, 2048);
    // 500 lines of 2048 px at a 2-px repeat ask for about 512 000 copies
    for (let y = 0; y < 500; y++) drawLine(svg, 2 + y * 4);
    expect(copies(svg)).toBeLessThanOrEqual(MAX_PATTERN_COPIES);
    expect(copies(svg)).toBeGreaterThan(MAX_PATTERN_COPIES - 1100);
    // every line is drawn, one way or the other
    const alongLines = svg.body.filter((b) => b.startsWith("<g mask=")).length;
    expect(alongLines + tiledLines(svg)).toBe(500);
    expect(tiledLines(svg)).toBeGreaterThan(450);
  });
});

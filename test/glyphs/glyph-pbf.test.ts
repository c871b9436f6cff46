// The glyph PBF decoded with the `pbf` package the way MapLibre GL reads it: metrics follow the
// fontnik conventions at 24 px, bitmaps are (width + 6) x (height + 6), and every SDF byte encodes the
// distance to the real outline (computed here independently, from opentype.js's own path) as
// 255 - (distance_px * 32 + 64), within a small fraction of a pixel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as opentype from "opentype.js";
import type { Font, PathCommand } from "opentype.js";
import { readFileSync } from "node:fs";
import { makeTestApp, type TestApp } from "../support/app";
import { NOTO_REGULAR_TTF, decodeGlyphPbf, glyphById, type DecodedStack } from "../routes/management/fonts/fixtures";

let t: TestApp;
let font: Font;
const stacks = new Map<number, DecodedStack>();
const SCALE = 24 / 1000;
const ASCENDER_PX = Math.ceil(1069 * SCALE); // Noto Sans hhea ascender, as FreeType rounds it: 26

beforeAll(async () => {
  t = await makeTestApp();
  const bytes = readFileSync(NOTO_REGULAR_TTF);
  font = opentype.parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  for (const start of [0, 1024]) {
    const res = await t.fetch(`/fonts/v1/Noto%20Sans%20Regular/${start}-${start + 255}.pbf`);
    expect(res.status).toBe(200);
    stacks.set(start, decodeGlyphPbf(await res.arrayBuffer())[0]!);
  }
});
afterAll(() => t.close());

const glyphFor = (ch: string) => glyphById(stacks.get(ch.codePointAt(0)! < 256 ? 0 : 1024)!, ch.codePointAt(0)!)!;

/** Outline as polygons in pixels (y up), curves cut into 12 straight pieces. */
function polygons(commands: PathCommand[]): [number, number][][] {
  const rings: [number, number][][] = [];
  let ring: [number, number][] = [];
  let x = 0, y = 0;
  const to = (nx: number, ny: number) => ring.push([nx * SCALE, ny * SCALE]);
  for (const c of commands) {
    if (c.type === "M") {
      if (ring.length) rings.push(ring);
      ring = [];
      to(c.x!, c.y!);
    } else if (c.type === "L") to(c.x!, c.y!);
    else if (c.type === "Q")
      for (let i = 1; i <= 12; i++) {
        const s = i / 12, u = 1 - s;
        to(u * u * x + 2 * u * s * c.x1! + s * s * c.x!, u * u * y + 2 * u * s * c.y1! + s * s * c.y!);
      }
    else if (c.type === "C")
      for (let i = 1; i <= 12; i++) {
        const s = i / 12, u = 1 - s;
        to(u * u * u * x + 3 * u * u * s * c.x1! + 3 * u * s * s * c.x2! + s * s * s * c.x!, u * u * u * y + 3 * u * u * s * c.y1! + 3 * u * s * s * c.y2! + s * s * s * c.y!);
      }
    if (c.type !== "Z") [x, y] = [c.x!, c.y!];
  }
  if (ring.length) rings.push(ring);
  return rings;
}

function windingAt(rings: [number, number][][], px: number, py: number): number {
  let winding = 0;
  for (const ring of rings)
    for (let i = 0; i < ring.length; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[(i + 1) % ring.length]!;
      const cross = (bx - ax) * (py - ay) - (px - ax) * (by - ay);
      if (ay <= py && by > py && cross > 0) winding++;
      else if (ay > py && by <= py && cross < 0) winding--;
    }
  return winding;
}

/**
 * Points every 0.08 px along the visible outline (nonzero fill). Contours of a glyph may overlap;
 * their edges inside the ink are not part of the outline, so a sample is kept only where the fill
 * differs on its two sides.
 */
function outlineSamples(rings: [number, number][][]): [number, number][] {
  const out: [number, number][] = [];
  for (const ring of rings)
    for (let i = 0; i < ring.length; i++) {
      const [ax, ay] = ring[i]!;
      const [bx, by] = ring[(i + 1) % ring.length]!;
      const len = Math.hypot(bx - ax, by - ay);
      if (len === 0) continue;
      const nx = (-(by - ay) / len) * 0.01, ny = ((bx - ax) / len) * 0.01;
      const n = Math.ceil(len / 0.08);
      for (let k = 0; k <= n; k++) {
        const x = ax + ((bx - ax) * k) / n, y = ay + ((by - ay) * k) / n;
        if ((windingAt(rings, x + nx, y + ny) !== 0) !== (windingAt(rings, x - nx, y - ny) !== 0)) out.push([x, y]);
      }
    }
  return out;
}

/** Signed distance (positive outside) from a point to the outline. */
function signedDistance(rings: [number, number][][], samples: [number, number][], px: number, py: number): number {
  let best = Infinity;
  for (const [x, y] of samples) best = Math.min(best, (x - px) * (x - px) + (y - py) * (y - py));
  return windingAt(rings, px, py) !== 0 ? -Math.sqrt(best) : Math.sqrt(best);
}

describe("decoded glyph PBF", () => {
  test("the ranges hold exactly the codepoints the font maps", () => {
    const cmap = font.tables.cmap!.glyphIndexMap;
    for (const [start, stack] of stacks) {
      const expected = Object.keys(cmap).map(Number).filter((cp) => cp >= start && cp < start + 256 && cmap[cp]! > 0).sort((a, b) => a - b);
      expect(stack.glyphs.map((g) => g.id)).toEqual(expected);
    }
  });

  test("a space has an advance and no bitmap", () => {
    const space = glyphFor(" ");
    expect(space).toMatchObject({ width: 0, height: 0, advance: Math.round(font.glyphs.get(font.tables.cmap!.glyphIndexMap[32]!).advanceWidth! * SCALE) });
    expect(space.bitmap).toBeUndefined();
  });

  test.each([..."AagjlQ@éÅüØßЖжМя"])("%s: metrics at 24 px and an SDF of the real outline", (ch) => {
    const g = glyphFor(ch);
    const glyph = font.glyphs.get(font.tables.cmap!.glyphIndexMap[ch.codePointAt(0)!]!);
    expect(g.advance).toBe(Math.round(glyph.advanceWidth! * SCALE));
    const rings = polygons(glyph.path.commands);
    const xs = rings.flat().map((p) => p[0]);
    const ys = rings.flat().map((p) => p[1]);
    const left = Math.round(Math.min(...xs));
    const top = Math.round(Math.max(...ys));
    expect(g.left).toBe(left);
    expect(g.width).toBe(Math.round(Math.max(...xs)) - left);
    expect(g.height).toBe(top - Math.round(Math.min(...ys)));
    expect(g.top).toBe(top - ASCENDER_PX);

    const w = g.width + 6;
    const h = g.height + 6;
    expect(g.bitmap!.length).toBe(w * h);
    const samples = outlineSamples(rings);
    const errors: number[] = [];
    let inked = 0;
    for (let row = 0; row < h; row++)
      for (let col = 0; col < w; col++) {
        const d = signedDistance(rings, samples, left - 3 + col + 0.5, top + 3 - row - 0.5);
        const value = g.bitmap![row * w + col]!;
        if (value >= 192) inked++;
        // Only where the encoding is not clamped does the byte tell the distance.
        if (d > -2 && d < 5.9) errors.push(Math.abs((255 - value - 64) / 32 - d));
        if (d <= -2.1) expect(value).toBe(255);
      }
    errors.sort((a, b) => a - b);
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    expect(mean).toBeLessThan(0.12);
    expect(errors[Math.floor(errors.length * 0.99)]!).toBeLessThan(0.45);
    expect(inked).toBeGreaterThan(10);
  });
});

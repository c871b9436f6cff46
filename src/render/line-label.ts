// Text along lines (symbol-placement line / line-center): anchors spaced along the line as MapLibre's
// resample does, and each glyph set on the line at its own distance and angle, kept upright.
import type { Ring } from "./geometry";
import type { Shaping } from "./text";

export interface LineAnchor {
  line: Ring;
  /** distance of the anchor along the line, px */
  distance: number;
  /** the anchor's point on the line, screen px */
  x: number;
  y: number;
}

export function lineLength(line: Ring): number {
  let total = 0;
  for (let i = 2; i < line.length; i += 2) total += Math.hypot(line[i]! - line[i - 2]!, line[i + 1]! - line[i - 1]!);
  return total;
}

/**
 * Anchors every `spacing` px where the whole label fits on the line; the middle when none does. As
 * MapLibre's getAnchors: `tileScale` is how much larger the view shows its layout tile than the zoom it
 * was laid out at (lengths on the line are measured at that zoom), a line `continued` from its tile's
 * edge starts half a spacing in (and never falls back to its middle), another one past half the label
 * plus two ems (`em`, text px).
 */
export function lineAnchors(line: Ring, labelLength: number, spacing: number, center: boolean, opts: { continued?: boolean; tileScale?: number; em?: number } = {}): LineAnchor[] {
  const { continued = false, tileScale = 1, em = 24 } = opts;
  const total = lineLength(line);
  const length = labelLength * tileScale;
  if (total < length) return [];
  const distances: number[] = [];
  if (!center) {
    if (spacing - length < spacing / 4) spacing = length + spacing / 4;
    const offset = continued ? spacing / 2 : ((labelLength / 2 + 2 * em) * tileScale) % spacing;
    for (let d = offset; d <= total; d += spacing) if (d - length / 2 >= 0 && d + length / 2 <= total) distances.push(d);
  }
  if (!distances.length && !continued) distances.push(total / 2);
  // one walk along the line for every anchor's point (a long line in an overzoomed tile has hundreds)
  const anchors: LineAnchor[] = [];
  let walked = 0;
  let i = 2;
  for (const distance of distances) {
    while (i < line.length - 2 && walked + Math.hypot(line[i]! - line[i - 2]!, line[i + 1]! - line[i - 1]!) < distance) {
      walked += Math.hypot(line[i]! - line[i - 2]!, line[i + 1]! - line[i - 1]!);
      i += 2;
    }
    const [ax, ay, bx, by] = [line[i - 2]!, line[i - 1]!, line[i]!, line[i + 1]!];
    const seg = Math.hypot(bx - ax, by - ay);
    const t = seg > 0 ? Math.max(0, Math.min(1, (distance - walked) / seg)) : 0;
    anchors.push({ line, distance, x: ax + (bx - ax) * t, y: ay + (by - ay) * t });
  }
  return anchors;
}

function pointAt(line: Ring, distance: number): { x: number; y: number; angle: number } {
  let walked = 0;
  for (let i = 2; i < line.length; i += 2) {
    const ax = line[i - 2]!;
    const ay = line[i - 1]!;
    const bx = line[i]!;
    const by = line[i + 1]!;
    const seg = Math.hypot(bx - ax, by - ay);
    if (walked + seg >= distance || i === line.length - 2) {
      const t = seg > 0 ? Math.max(0, Math.min(1, (distance - walked) / seg)) : 0;
      return { x: ax + (bx - ax) * t, y: ay + (by - ay) * t, angle: Math.atan2(by - ay, bx - ax) };
    }
    walked += seg;
  }
  return { x: line[0]!, y: line[1]!, angle: 0 };
}

export interface GlyphOnLine {
  index: number;
  /** screen position of the glyph origin (pen, baseline) and its rotation */
  x: number;
  y: number;
  angle: number;
  /** glyph centre, for collision */
  cx: number;
  cy: number;
}

/**
 * Glyph positions for a label centred at the anchor (`scale` = text size / 24), or null when the line
 * turns more than `maxAngle` radians between neighbouring glyphs (MapLibre checks windows of 0.6 em,
 * about a glyph).
 */
export function glyphsAlongLine(anchor: LineAnchor, shaping: Shaping, scale: number, maxAngle: number): GlyphOnLine[] | null {
  let { line, distance } = anchor;
  const here = pointAt(line, distance);
  // keep the text upright: read the line the other way when it runs right to left
  if (Math.cos(here.angle) < 0) {
    const reversed: Ring = [];
    for (let i = line.length - 2; i >= 0; i -= 2) reversed.push(line[i]!, line[i + 1]!);
    distance = lineLength(line) - distance;
    line = reversed;
  }
  const total = lineLength(line);
  const out: GlyphOnLine[] = [];
  let previousAngle: number | null = null;
  const centre = (shaping.left + shaping.right) / 2;
  for (let i = 0; i < shaping.glyphs.length; i++) {
    const g = shaping.glyphs[i]!;
    const along = distance + (g.x + g.advance / 2 - centre) * scale;
    if (along < 0 || along > total) return null;
    const p = pointAt(line, along);
    if (previousAngle !== null) {
      let delta = Math.abs(p.angle - previousAngle);
      if (delta > Math.PI) delta = 2 * Math.PI - delta;
      if (delta > maxAngle) return null;
    }
    previousAngle = p.angle;
    const cos = Math.cos(p.angle);
    const sin = Math.sin(p.angle);
    // glyph frame: x along the line, y across it (down the screen when the line runs left to right)
    const lx = (-g.advance / 2) * scale;
    const ly = g.y * scale;
    const midY = ((shaping.top + shaping.bottom) / 2) * scale;
    out.push({
      index: i,
      x: p.x + lx * cos - ly * sin,
      y: p.y + lx * sin + ly * cos,
      angle: p.angle,
      cx: p.x - midY * sin,
      cy: p.y + midY * cos,
    });
  }
  return out;
}

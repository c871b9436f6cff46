// line-pattern as MapLibre 6 draws it: the sprite image runs along the line, not tiled in map space. Its
// height spans the line's width and it repeats every (image width x line width / image height) px of
// the line at the zoom the tile was laid out at, counted from where the line starts in its tile; the
// 1-px padding it has in MapLibre's atlas (the image's opposite edge, wrapped) is drawn in too.
import type { Ring } from "./geometry";
import type { SpriteImage } from "./sprite";
import { n, type SvgDocument } from "./svg";

export interface PatternStroke {
  /** where to draw: the lines as the view shows them (cut to their tile), stroked with cap and join */
  shape: string;
  /** the same lines whole as their tile holds them (screen px): the pattern counts its repeats from their starts */
  whole: Ring[];
  width: number;
  /** px of the line per repeat of the pattern */
  period: number;
  opacity: number;
  /** the stroke's attributes past its width (cap, join, miter limit, filter) */
  strokeAttributes: string;
}

/**
 * What one render may spend on patterns turned along lines: copies of the pattern (each an SVG element
 * resvg draws in about 0.13 ms: 400 thin patterned lines across a 256-px tile asked for 70 000, 9 s)
 * and masks (one per feature). Drawn maps need a few thousand copies at most; a dense network of thin
 * patterned lines asks for far more. Past either, lines are drawn with the pattern tiled in the map's
 * space instead (patternFill): no longer turned along them, but at the cost of one plain stroke.
 */
export const MAX_PATTERN_COPIES = 5_000;
export const MAX_PATTERN_MASKS = 256;
const spent = new WeakMap<SvgDocument, { copies: number; masks: number }>();

/**
 * Draws one feature's patterned line: each segment of its whole lines is a band filled with the pattern
 * turned along it (and shifted by the distance before it), and the stroke of the view's lines masks
 * the bands, so caps, joins and the tile's edges come out as for a line of one colour.
 */
export function drawPatternLine(svg: SvgDocument, image: SpriteImage, line: PatternStroke): void {
  const { width } = line;
  // (a repeat under two pixels shows as a blend anyway; the floor keeps the copies per band bounded on
  // dense networks of thin patterned lines)
  const period = Math.max(2, line.period);
  if (!(width > 0) || !Number.isFinite(period)) return;
  const used = spent.get(svg) ?? { copies: 0, masks: 0 };
  if (used.masks >= MAX_PATTERN_MASKS) return patternFill(svg, image, line, period);
  const budget = { left: MAX_PATTERN_COPIES - used.copies };
  const bands: string[] = [];
  for (const ring of line.whole) {
    let along = 0;
    for (let i = 0; i + 3 < ring.length; i += 2) {
      const [x0, y0, x1, y1] = [ring[i]!, ring[i + 1]!, ring[i + 2]!, ring[i + 3]!];
      const length = Math.hypot(x1 - x0, y1 - y0);
      if (length > 0) {
        const drawn = band(svg, image, { x0, y0, x1, y1, length, along, width, period }, budget);
        if (drawn === null) return patternFill(svg, image, line, period);
        if (drawn) bands.push(drawn);
      }
      along += length;
    }
  }
  if (!bands.length) return;
  spent.set(svg, { copies: MAX_PATTERN_COPIES - budget.left, masks: used.masks + 1 });
  const mask = svg.id("m");
  // the mask covers the line's own box in the view, not the whole image: resvg draws a mask over its region
  const box = lineBox(line.whole, width, svg.width, svg.height);
  if (!box) return;
  svg.defs.push(
    `<mask id="${mask}" maskUnits="userSpaceOnUse" x="${n(box.x)}" y="${n(box.y)}" width="${n(box.width)}" height="${n(box.height)}">` +
      `<path d="${line.shape}" fill="none" stroke="#fff" stroke-width="${n(width)}"${line.strokeAttributes}/></mask>`,
  );
  svg.body.push(`<g mask="url(#${mask})"${line.opacity < 1 ? ` opacity="${n(line.opacity)}"` : ""}>${bands.join("")}</g>`);
}

/** The box of the lines grown by the line's width (for its joins and caps), cut to the view; null when empty. */
function lineBox(rings: Ring[], width: number, viewWidth: number, viewHeight: number): { x: number; y: number; width: number; height: number } | null {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const ring of rings)
    for (let i = 0; i + 1 < ring.length; i += 2) {
      x0 = Math.min(x0, ring[i]!);
      x1 = Math.max(x1, ring[i]!);
      y0 = Math.min(y0, ring[i + 1]!);
      y1 = Math.max(y1, ring[i + 1]!);
    }
  [x0, y0] = [Math.max(0, x0 - width), Math.max(0, y0 - width)];
  [x1, y1] = [Math.min(viewWidth, x1 + width), Math.min(viewHeight, y1 + width)];
  return x1 > x0 && y1 > y0 ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** The line stroked with its pattern tiled in the map's space (one SVG element, whatever the line's length). */
function patternFill(svg: SvgDocument, image: SpriteImage, line: PatternStroke, period: number): void {
  const tile = patternTile(svg, image, period, line.width);
  const fill = svg.defOnce(
    `line-pattern-fill:${tile}`,
    (id) => `<pattern id="${id}" patternUnits="userSpaceOnUse" width="${n(period)}" height="${n(line.width)}"><use xlink:href="#${tile}"/></pattern>`,
  );
  svg.body.push(
    `<path d="${line.shape}" fill="none" stroke="url(#${fill})" stroke-width="${n(line.width)}"${line.strokeAttributes}${line.opacity < 1 ? ` opacity="${n(line.opacity)}"` : ""}/>`,
  );
}

interface Segment {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  length: number;
  /** px of the line before the segment */
  along: number;
  width: number;
  period: number;
}

/**
 * The segment as a band of copies of the pattern turned its way, from half the line's width before it
 * to half after (the mask cuts what the joins and caps do not need), only where the view can show them.
 * Copies, not an SVG <pattern>: resvg draws a pattern's tile at a whole number of pixels, and a repeat
 * of 22.6 px drifted by a pixel every few repeats. Null when the copies would overrun the render's budget.
 */
function band(svg: SvgDocument, image: SpriteImage, s: Segment, budget: { left: number }): string | null {
  const dx = (s.x1 - s.x0) / s.length;
  const dy = (s.y1 - s.y0) / s.length;
  const half = s.width / 2;
  const [from, to] = visibleStretch(s, dx, dy, svg.width, svg.height);
  if (from >= to) return "";
  const phase = s.along % s.period;
  const first = Math.floor((from + phase) / s.period);
  const count = Math.max(0, Math.ceil((to + phase) / s.period) - first);
  // null: the render's copies are spent
  if (count > budget.left) return null;
  budget.left -= count;
  const tile = patternTile(svg, image, s.period, s.width);
  let copies = "";
  for (let k = first; k * s.period - phase < to; k++) {
    copies += `<use xlink:href="#${tile}" x="${n(k * s.period - phase)}" y="${n(-half)}"/>`;
  }
  return `<g transform="matrix(${n(dx)} ${n(dy)} ${n(-dy)} ${n(dx)} ${n(s.x0)} ${n(s.y0)})">${copies}</g>`;
}

/** Along the segment (px from its start), the stretch its band covers within the line's width of the view. */
function visibleStretch(s: Segment, dx: number, dy: number, width: number, height: number): [number, number] {
  let from = -s.width / 2;
  let to = s.length + s.width / 2;
  const reach = s.width;
  // the band's centre line p(t) = (x0, y0) + t (dx, dy) kept inside the view grown by `reach`
  for (const [p, d, lo, hi] of [
    [s.x0, dx, -reach, width + reach],
    [s.y0, dy, -reach, height + reach],
  ] as const) {
    if (Math.abs(d) < 1e-9) {
      if (p < lo || p > hi) return [0, 0];
      continue;
    }
    const [a, b] = [(lo - p) / d, (hi - p) / d];
    from = Math.max(from, Math.min(a, b));
    to = Math.min(to, Math.max(a, b));
  }
  return [from, to];
}

/** One repeat of the pattern: the padded image stretched to `period` along and `width` across. */
function patternTile(svg: SvgDocument, image: SpriteImage, period: number, width: number): string {
  const padded = paddedSize(image);
  return svg.defOnce(
    `line-pattern:${image.id}:${n(period)}:${n(width)}`,
    (id) => `<g id="${id}"><use xlink:href="#${paddedImage(svg, image)}" transform="scale(${n(period / padded.width)} ${n(width / padded.height)})"/></g>`,
  );
}

/** The image with MapLibre's atlas padding: one image pixel of the opposite edge on every side. */
function paddedSize(image: SpriteImage): { width: number; height: number; pad: number } {
  const pad = 1 / image.pixelRatio;
  return { width: image.width + 2 * pad, height: image.height + 2 * pad, pad };
}

function paddedImage(svg: SvgDocument, image: SpriteImage): string {
  const { width, height, pad } = paddedSize(image);
  return svg.defOnce(`padded:${image.id}`, (id) => {
    const copies: string[] = [];
    for (const dy of [-1, 0, 1]) {
      for (const dx of [-1, 0, 1]) copies.push(`<use xlink:href="#${image.id}" x="${n(pad + dx * image.width)}" y="${n(pad + dy * image.height)}"/>`);
    }
    const clip = svg.defOnce(`padded-clip:${image.id}`, (clipId) => `<clipPath id="${clipId}"><rect width="${n(width)}" height="${n(height)}"/></clipPath>`);
    return `<g id="${id}" clip-path="url(#${clip})">${copies.join("")}</g>`;
  });
}

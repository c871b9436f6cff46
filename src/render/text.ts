// Fonts and text shaping for labels. Glyph advances and vertical placement copy MapLibre GL JS with
// the glyph PBFs Mapstead serves (24-px em, advances rounded to whole pixels, no kerning, baseline
// 17 px above the line box plus the font's ascender), so labels land where MapLibre puts them.
import { parseFont, type ParsedFont } from "../glyphs";
import type { SpriteImage } from "./sprite";
import type { RenderResources } from "./types";
import { Lru } from "../lru";

/** MapLibre lays text out in a 24-px em. */
export const ONE_EM = 24;
const SHAPING_DEFAULT_OFFSET = -17;
/** Parsed fonts kept across renders (a parse costs tens of ms; the bytes are compared to stay honest). */
const FONT_CACHE_SIZE = 32;
const parsedFonts = new Lru<{ bytes: Uint8Array; font: LoadedFont }>({ maxEntries: FONT_CACHE_SIZE });

export interface LoadedFont {
  name: string;
  parsed: ParsedFont;
  /** glyph outline units per em */
  upm: number;
  /** the ascender in 24-px units, rounded up as the glyph PBFs store it */
  ascender: number;
}

/** Font stacks of one render, resolved through RenderResources.font. */
export class FontBook {
  private readonly byName = new Map<string, Promise<LoadedFont | null>>();

  constructor(private readonly res: RenderResources) {}

  async stack(names: string[]): Promise<LoadedFont[]> {
    const fonts = await Promise.all(names.map((name) => this.font(name)));
    return fonts.filter((f): f is LoadedFont => f !== null);
  }

  private font(name: string): Promise<LoadedFont | null> {
    let p = this.byName.get(name);
    if (!p) {
      p = this.res
        .font(name)
        .then((bytes) => (bytes ? parsedFont(name, bytes) : null))
        .catch(() => null);
      this.byName.set(name, p);
    }
    return p;
  }
}

function parsedFont(name: string, bytes: Uint8Array): LoadedFont | null {
  const cached = parsedFonts.get(name);
  if (cached && (cached.bytes === bytes || sameBytes(cached.bytes, bytes))) return cached.font;
  let parsed: ParsedFont;
  try {
    parsed = parseFont(bytes.slice().buffer);
  } catch {
    return null; // an unreadable font draws no text rather than failing the render
  }
  const font: LoadedFont = { name, parsed, upm: parsed.font.unitsPerEm, ascender: parsed.ascenderPx };
  parsedFonts.set(name, { bytes, font });
  return font;
}

/** Byte-wise equality without copying either side (Buffer.from(view) would copy a whole font). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

export interface TextSection {
  text: string;
  /** font-scale of a format section */
  scale: number;
  fonts: LoadedFont[];
  /** text-color override of a format section */
  color?: unknown;
  /** an inline image (format's ["image", name] section; its text is empty) */
  image?: SpriteImage;
}

export interface ShapedGlyph {
  font: LoadedFont;
  glyphIndex: number;
  /** pen position of the glyph origin (baseline), in 24-px units relative to the anchor */
  x: number;
  y: number;
  /** advance in 24-px units (already scaled by the section scale) */
  advance: number;
  scale: number;
  section: number;
}

/** An inline image laid out among the glyphs, in the same 24-px units. */
export interface ShapedImage {
  image: SpriteImage;
  /** pen position, as a glyph's (lines along paths centre each mark on x + advance / 2) */
  x: number;
  /** where the image's left and top edges are drawn */
  left: number;
  y: number;
  advance: number;
  /** 24-px units per image CSS px */
  scale: number;
  section: number;
}

export interface Shaping {
  glyphs: (ShapedGlyph | ShapedImage)[];
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface ShapeOptions {
  /** text-max-width in ems; 0 disables wrapping (line placement) */
  maxWidth: number;
  /** text-line-height in ems */
  lineHeight: number;
  /** text-letter-spacing in ems */
  letterSpacing: number;
  anchor: string;
  justify: string;
  /** text-offset in ems */
  offset: [number, number];
  /** text-size (px) at the zoom symbols are laid out at: inline images keep their sprite size there */
  textSize: number;
}

interface Positioned {
  /** the glyph, or the inline image, drawn */
  mark: { font: LoadedFont; glyphIndex: number } | { image: SpriteImage };
  advance: number;
  scale: number;
  section: number;
  isSpace: boolean;
  /** a line may end after it (MapLibre's `breakable` characters) */
  breakable: boolean;
  /** its line break's penalty (MapLibre's calculatePenalty): a newline's is -10000, a forced break */
  penalty: number;
}

const NEWLINE = 0x0a;
/** Stands in for an inline image among the code points (MapLibre gives each a private-use character): no break after it. */
const IMAGE_CODE_POINT = 0xe000;
/**
 * Where MapLibre draws an inline image from its pen position, in image px: its quads keep the image
 * padding (1 px) on the left and the glyph border (3 px) on top that glyph metrics hold.
 */
const IMAGE_INSET = { left: 1, top: 3 };
/** Characters a line may break after, as MapLibre's shaping has them. */
const BREAKABLE = new Set([NEWLINE, 0x20, 0x26, 0x29, 0x2b, 0x2d, 0x2f, 0xad, 0xb7, 0x200b, 0x2010, 0x2013, 0x2027]);

/** MapLibre's calculatePenalty, without the ideographic case (Mapstead's fonts carry no server breakpoints). */
function breakPenalty(cp: number, next: number | undefined): number {
  let penalty = 0;
  if (cp === NEWLINE) penalty -= 10000;
  if (cp === 0x28 || cp === 0xff08) penalty += 50;
  if (next === 0x29 || next === 0xff09) penalty += 50;
  return penalty;
}

export function anchorAlignment(anchor: string): { horizontal: number; vertical: number } {
  const horizontal = anchor.endsWith("right") ? 1 : anchor.endsWith("left") ? 0 : 0.5;
  const vertical = anchor.startsWith("bottom") ? 1 : anchor.startsWith("top") ? 0 : 0.5;
  return { horizontal, vertical };
}

/** Lays out formatted text as MapLibre's shapeText does; null when nothing can be drawn. */
export function shapeText(sections: TextSection[], opts: ShapeOptions): Shaping | null {
  const spacing = opts.letterSpacing * ONE_EM;
  const positioned: Positioned[] = [];
  // an image keeps its sprite size at the layout zoom's text-size (MapLibre scales its section by 24 / size)
  const imageScale = ONE_EM / (opts.textSize > 0 ? opts.textSize : ONE_EM);
  const codePoints = sections.map((section) => (section.image ? [IMAGE_CODE_POINT] : Array.from(section.text, (ch) => ch.codePointAt(0)!)));
  const all = codePoints.flat();
  let at = 0;
  sections.forEach((section, sectionIndex) => {
    if (section.image) {
      const next = all[++at];
      const advance = section.image.width * imageScale;
      positioned.push({ mark: { image: section.image }, advance, scale: imageScale, section: sectionIndex, isSpace: false, breakable: false, penalty: breakPenalty(IMAGE_CODE_POINT, next) });
      return;
    }
    for (const cp of codePoints[sectionIndex]!) {
      const next = all[++at];
      const breaks = { breakable: BREAKABLE.has(cp), penalty: breakPenalty(cp, next) };
      // A newline draws nothing but ends the line ("{name:latin}\n{name:nonlatin}"), whether or not a
      // font of the stack maps it.
      if (cp === NEWLINE) {
        const font = section.fonts[0];
        if (font) positioned.push({ mark: { font, glyphIndex: 0 }, advance: 0, scale: section.scale, section: sectionIndex, isSpace: true, ...breaks });
        continue;
      }
      const font = section.fonts.find((f) => f.parsed.cmap[cp] !== undefined);
      if (!font) continue; // MapLibre skips codepoints no font of the stack has
      const glyphIndex = font.parsed.cmap[cp]!;
      const glyph = font.parsed.font.glyphs.get(glyphIndex);
      const advance = Math.max(0, Math.round((glyph.advanceWidth ?? 0) * (ONE_EM / font.upm))) * section.scale;
      positioned.push({ mark: { font, glyphIndex }, advance, scale: section.scale, section: sectionIndex, isSpace: /\s/.test(String.fromCodePoint(cp)), ...breaks });
    }
  });
  if (!positioned.some((p) => !p.isSpace)) return null;

  const lines = opts.maxWidth > 0 ? breakLines(positioned, opts.maxWidth * ONE_EM, spacing) : [positioned];
  const { horizontal, vertical } = anchorAlignment(opts.anchor);
  const justify = opts.justify === "auto" ? horizontal : opts.justify === "right" ? 1 : opts.justify === "left" ? 0 : 0.5;
  const lineHeight = opts.lineHeight * ONE_EM;
  const glyphs: (ShapedGlyph | ShapedImage)[] = [];
  let y = 0;
  let maxLineLength = 0;
  let maxLineHeight = 0;
  for (const line of lines) {
    const trimmed = trim(line);
    // an image's section counts with font-scale 1 (MapLibre's), its height only through imageOffset
    const maxScale = trimmed.reduce((m, g) => ("image" in g.mark ? m : Math.max(m, g.scale)), 1);
    const imageHeight = trimmed.reduce((m, g) => ("image" in g.mark ? Math.max(m, g.mark.image.height * g.scale) : m), 0);
    // an image taller than the line's em pushes the line down and grows its height; every mark sits on
    // the bottom of the line's content (MapLibre's default vertical-align)
    const imageOffset = Math.max(0, imageHeight - maxScale * ONE_EM);
    const contentBottom = y + SHAPING_DEFAULT_OFFSET + maxScale * ONE_EM + imageOffset;
    let x = 0;
    const start = glyphs.length;
    for (const g of trimmed) {
      const { advance, scale, section } = g;
      if ("image" in g.mark) {
        const { image } = g.mark;
        const top = contentBottom - image.height * scale + IMAGE_INSET.top * scale;
        glyphs.push({ image, x, left: x + IMAGE_INSET.left * scale, y: top, advance, scale, section });
      } else {
        const baseline = y + SHAPING_DEFAULT_OFFSET + g.mark.font.ascender + (maxScale - 1) * ONE_EM + imageOffset;
        glyphs.push({ ...g.mark, x, y: baseline, advance, scale, section });
      }
      x += advance + spacing;
    }
    if (trimmed.length) {
      const lineLength = x - spacing;
      maxLineLength = Math.max(maxLineLength, lineLength);
      for (let i = start; i < glyphs.length; i++) moveBy(glyphs[i]!, -lineLength * justify, 0);
    }
    const currentLineHeight = lineHeight * maxScale + imageOffset;
    y += currentLineHeight;
    maxLineHeight = Math.max(maxLineHeight, currentLineHeight);
  }
  const shiftX = (justify - horizontal) * maxLineLength + opts.offset[0] * ONE_EM;
  const shiftY =
    (maxLineHeight !== lineHeight ? -y * vertical + 17 : -vertical * lines.length * lineHeight + 0.5 * lineHeight) + opts.offset[1] * ONE_EM;
  for (const g of glyphs) moveBy(g, shiftX, shiftY);
  const top = -vertical * y + opts.offset[1] * ONE_EM;
  const left = -horizontal * maxLineLength + opts.offset[0] * ONE_EM;
  return { glyphs, left, right: left + maxLineLength, top, bottom: top + y };
}

function moveBy(g: ShapedGlyph | ShapedImage, dx: number, dy: number): void {
  g.x += dx;
  g.y += dy;
  if ("image" in g) g.left += dx;
}

function trim(line: Positioned[]): Positioned[] {
  let a = 0;
  let b = line.length;
  while (a < b && line[a]!.isSpace) a++;
  while (b > a && line[b - 1]!.isSpace) b--;
  return line.slice(a, b);
}

/**
 * Breaks into lines as MapLibre's determineLineBreaks does: after breakable characters (spaces,
 * hyphens, slashes ...; always after a newline, whose penalty forces it), into lines of about equal
 * width, minimising the squared difference from the ideal width plus each break's penalty, the last line
 * weighed as MapLibre weighs it (half when short, double when long).
 */
function breakLines(glyphs: Positioned[], maxWidth: number, spacing: number): Positioned[][] {
  const total = glyphs.reduce((s, g) => s + g.advance + spacing, 0);
  const forced = glyphs.some((g, i) => g.penalty <= -10000 && i < glyphs.length - 1);
  if (total <= maxWidth && !forced) return [glyphs];
  const lineCount = Math.ceil(total / maxWidth);
  const target = total / lineCount;
  const breaks: { at: number; penalty: number }[] = [{ at: 0, penalty: 0 }];
  for (let i = 0; i < glyphs.length - 1; i++) if (glyphs[i]!.breakable) breaks.push({ at: i + 1, penalty: glyphs[i]!.penalty });
  breaks.push({ at: glyphs.length, penalty: 0 });
  const widthUpTo: number[] = [0];
  for (const g of glyphs) widthUpTo.push(widthUpTo[widthUpTo.length - 1]! + g.advance + spacing);
  const badness = (width: number, penalty: number, last: boolean) => {
    const raggedness = (width - target) ** 2;
    if (last) return width < target ? raggedness / 2 : raggedness * 2;
    return raggedness + Math.abs(penalty) * penalty;
  };
  // best[k]: least badness of text up to breaks[k], with the previous break index
  const best: { cost: number; prev: number }[] = [{ cost: 0, prev: -1 }];
  for (let k = 1; k < breaks.length; k++) {
    let choice = { cost: Infinity, prev: 0 };
    const last = k === breaks.length - 1;
    for (let j = 0; j < k; j++) {
      const width = widthUpTo[breaks[k]!.at]! - widthUpTo[breaks[j]!.at]!;
      const cost = best[j]!.cost + badness(width, breaks[k]!.penalty, last);
      if (cost < choice.cost) choice = { cost, prev: j };
    }
    best.push(choice);
  }
  const lines: Positioned[][] = [];
  for (let k = breaks.length - 1; k > 0; k = best[k]!.prev) lines.unshift(glyphs.slice(breaks[best[k]!.prev]!.at, breaks[k]!.at));
  return lines.filter((l) => l.length);
}

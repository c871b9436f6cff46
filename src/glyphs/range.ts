// Building one 256-codepoint glyph range of one font: every codepoint the font maps, in order, as an
// SDF glyph record with fontnik's metrics (advance rounded to whole pixels, `top` relative to the
// font's ascender rounded up to a whole pixel, as FreeType reports it at 24 px).
import { parse as parseOpenType, type Font } from "opentype.js";
import { flattenPath } from "./outline";
import { GLYPH_SIZE_PX, SdfRenderer } from "./sdf";
import { encodeFontstack, encodeGlyph, type EncodedGlyph } from "./pbf";

export const RANGE_SIZE = 256;
/** Unicode's last code point: MapLibre asks for ranges above U+FFFF too (emoji, historic scripts). */
export const MAX_CODEPOINT = 0x10ffff;

export interface ParsedFont {
  font: Font;
  /** codepoint -> glyph index, only codepoints with a real glyph */
  cmap: Record<number, number>;
  scale: number;
  ascenderPx: number;
}

export class FontParseError extends Error {}

/** Parses TTF/OTF bytes; throws FontParseError when opentype.js cannot read them or they map no characters. */
export function parseFont(bytes: ArrayBuffer): ParsedFont {
  let font: Font;
  try {
    font = parseOpenType(bytes, { lowMemory: true });
  } catch (err) {
    throw new FontParseError(err instanceof Error ? err.message : String(err));
  }
  const cmap = font.tables.cmap?.glyphIndexMap;
  if (!cmap || !Object.keys(cmap).length) throw new FontParseError("the font has no Unicode character map (cmap)");
  if (!(font.unitsPerEm > 0)) throw new FontParseError("the font has no valid unitsPerEm");
  const scale = GLYPH_SIZE_PX / font.unitsPerEm;
  const ascender = font.tables.hhea?.ascender || font.ascender || font.unitsPerEm;
  return { font, cmap, scale, ascenderPx: Math.ceil(ascender * scale - 1e-9) };
}

export function rangeName(start: number): string {
  return `${start}-${start + RANGE_SIZE - 1}`;
}

export interface RangeBuild {
  glyphs: EncodedGlyph[];
  /** codepoints whose outline could not be read (skipped, so a damaged glyph never breaks a range) */
  skipped: number[];
}

const renderer = new SdfRenderer();

/** Encoded glyph records for every codepoint of [start, start + 255] that the font maps. */
export function buildRangeGlyphs(parsed: ParsedFont, start: number): RangeBuild {
  const glyphs: EncodedGlyph[] = [];
  const skipped: number[] = [];
  const { font, cmap, scale, ascenderPx } = parsed;
  for (let cp = start; cp < start + RANGE_SIZE; cp++) {
    const index = cmap[cp];
    if (index === undefined || index === 0) continue;
    try {
      const glyph = font.glyphs.get(index);
      const sdf = renderer.render(flattenPath(glyph.path.commands, scale));
      const advance = Math.max(0, Math.round((glyph.advanceWidth ?? 0) * scale));
      glyphs.push(
        encodeGlyph({
          id: cp,
          bitmap: sdf.bitmap,
          width: sdf.width,
          height: sdf.height,
          left: sdf.left,
          top: sdf.width > 0 ? sdf.top - ascenderPx : -ascenderPx,
          advance,
        }),
      );
    } catch {
      skipped.push(cp);
    }
  }
  return { glyphs, skipped };
}

/** A complete glyphs PBF for one font and range. */
export function buildRangePbf(parsed: ParsedFont, name: string, start: number): { pbf: Uint8Array; skipped: number[] } {
  const { glyphs, skipped } = buildRangeGlyphs(parsed, start);
  return { pbf: encodeFontstack(name, rangeName(start), glyphs), skipped };
}

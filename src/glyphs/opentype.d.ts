// The slice of opentype.js 2.x that the glyph generator and the font catalog use (the package ships no types).
declare module "opentype.js" {
  export interface PathCommand {
    type: "M" | "L" | "Q" | "C" | "Z";
    x?: number;
    y?: number;
    x1?: number;
    y1?: number;
    x2?: number;
    y2?: number;
  }
  export interface Path {
    commands: PathCommand[];
  }
  export interface Glyph {
    index: number;
    advanceWidth?: number;
    path: Path;
  }
  export interface Font {
    unitsPerEm: number;
    ascender: number;
    descender: number;
    numGlyphs: number;
    glyphs: { get(index: number): Glyph; length: number };
    tables: {
      cmap?: { glyphIndexMap: Record<number, number> };
      hhea?: { ascender: number; descender: number };
      os2?: { sTypoAscender: number };
      [name: string]: unknown;
    };
    getEnglishName(name: string): string | undefined;
  }
  export function parse(buffer: ArrayBuffer, options?: { lowMemory?: boolean }): Font;
  const opentype: { parse: typeof parse };
  export default opentype;
}

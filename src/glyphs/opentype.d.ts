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
  export class Path {
    commands: PathCommand[];
    moveTo(x: number, y: number): void;
    lineTo(x: number, y: number): void;
    quadraticCurveTo(x1: number, y1: number, x: number, y: number): void;
    close(): void;
  }
  export class Glyph {
    constructor(options: { name: string; unicode?: number; unicodes?: number[]; advanceWidth: number; path: Path });
    index: number;
    advanceWidth?: number;
    path: Path;
  }
  export class Font {
    constructor(options: { familyName: string; styleName: string; unitsPerEm: number; ascender: number; descender: number; glyphs: Glyph[] });
    toArrayBuffer(): ArrayBuffer;
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
}

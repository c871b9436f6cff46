// Fonts and a glyph PBF decoder for the font tests. The test font is generated with opentype.js so
// its glyphs and metrics are known exactly: "Test Blocks Regular" has a 500x700 unit block for "A"
// (advance 800) and a 300x300 block at U+E000, and nothing else; units per em 1000, ascender 800.
import * as opentype from "opentype.js";
import { PbfReader } from "pbf";
import { join } from "node:path";

export const NOTO_REGULAR_TTF = join(import.meta.dir, "../../../../node_modules/@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf");

function block(x0: number, y0: number, x1: number, y1: number) {
  const p = new opentype.Path();
  p.moveTo(x0, y0);
  p.lineTo(x0, y1);
  p.lineTo(x1, y1);
  p.lineTo(x1, y0);
  p.close();
  return p;
}

/** An OpenType (CFF, "OTTO") font with two glyphs, as bytes. */
export function testBlocksFont(familyName = "Test Blocks"): Uint8Array<ArrayBuffer> {
  const glyphs = [
    new opentype.Glyph({ name: ".notdef", advanceWidth: 500, path: new opentype.Path() }),
    new opentype.Glyph({ name: "A", unicode: 65, advanceWidth: 800, path: block(100, 0, 600, 700) }),
    new opentype.Glyph({ name: "uniE000", unicode: 0xe000, advanceWidth: 400, path: block(50, 0, 350, 300) }),
  ];
  const font = new opentype.Font({ familyName, styleName: "Regular", unitsPerEm: 1000, ascender: 800, descender: -200, glyphs });
  return new Uint8Array(font.toArrayBuffer());
}

export interface DecodedGlyph {
  id: number;
  bitmap?: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
}

export interface DecodedStack {
  name: string;
  range: string;
  glyphs: DecodedGlyph[];
}

/** Decodes a glyphs PBF with the `pbf` package, the way MapLibre GL reads it. */
export function decodeGlyphPbf(data: ArrayBuffer | Uint8Array): DecodedStack[] {
  return new PbfReader(data instanceof Uint8Array ? data : new Uint8Array(data)).readFields(
    (tag, stacks: DecodedStack[], pbf) => {
      if (tag !== 1) return;
      stacks.push(
        pbf.readMessage(
          (t, stack: DecodedStack, p) => {
            if (t === 1) stack.name = p.readString();
            else if (t === 2) stack.range = p.readString();
            else if (t === 3)
              stack.glyphs.push(
                p.readMessage(
                  (gt, g: DecodedGlyph, gp) => {
                    if (gt === 1) g.id = gp.readVarint();
                    else if (gt === 2) g.bitmap = gp.readBytes();
                    else if (gt === 3) g.width = gp.readVarint();
                    else if (gt === 4) g.height = gp.readVarint();
                    else if (gt === 5) g.left = gp.readSVarint();
                    else if (gt === 6) g.top = gp.readSVarint();
                    else if (gt === 7) g.advance = gp.readVarint();
                  },
                  { id: -1, width: 0, height: 0, left: 0, top: 0, advance: 0 } as DecodedGlyph,
                ),
              );
          },
          { name: "", range: "", glyphs: [] } as DecodedStack,
        ),
      );
    },
    [] as DecodedStack[],
  );
}

export function glyphById(stack: DecodedStack, id: number): DecodedGlyph | undefined {
  return stack.glyphs.find((g) => g.id === id);
}

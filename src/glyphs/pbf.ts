// The glyphs protobuf MapLibre GL reads (glyphs.proto):
//   glyphs    { repeated fontstack stacks = 1; }
//   fontstack { string name = 1; string range = 2; repeated glyph glyphs = 3; }
//   glyph     { uint32 id = 1; bytes bitmap = 2; uint32 width = 3; uint32 height = 4;
//               sint32 left = 5; sint32 top = 6; uint32 advance = 7; }
// Written by hand: the messages are tiny and fixed, and composing a fontstack from several fonts then
// only means concatenating already-encoded glyph records.

export interface GlyphRecord {
  id: number;
  bitmap: Uint8Array;
  width: number;
  height: number;
  left: number;
  top: number;
  advance: number;
}

/** One encoded `glyphs` field of a fontstack (tag, length, message), ready to concatenate. */
export interface EncodedGlyph {
  id: number;
  bytes: Uint8Array;
}

class Writer {
  buf: Uint8Array;
  pos = 0;
  constructor(size = 256) {
    this.buf = new Uint8Array(size);
  }
  private ensure(n: number) {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.pos));
    this.buf = grown;
  }
  varint(v: number) {
    this.ensure(10);
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }
  tag(field: number, wire: number) {
    this.varint((field << 3) | wire);
  }
  bytes(field: number, data: Uint8Array) {
    this.tag(field, 2);
    this.varint(data.length);
    this.raw(data);
  }
  raw(data: Uint8Array) {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }
  uint(field: number, v: number) {
    this.tag(field, 0);
    this.varint(v);
  }
  sint(field: number, v: number) {
    this.tag(field, 0);
    this.varint(v < 0 ? -2 * v - 1 : 2 * v);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

const utf8 = new TextEncoder();

export function encodeGlyph(g: GlyphRecord): EncodedGlyph {
  const body = new Writer(g.bitmap.length + 32);
  body.uint(1, g.id);
  if (g.width > 0 && g.bitmap.length) body.bytes(2, g.bitmap);
  body.uint(3, g.width);
  body.uint(4, g.height);
  body.sint(5, g.left);
  body.sint(6, g.top);
  body.uint(7, g.advance);
  const message = body.result();
  const field = new Writer(message.length + 6);
  field.bytes(3, message);
  return { id: g.id, bytes: field.result() };
}

/** A complete glyphs PBF holding one fontstack with the given (already encoded) glyphs, in order. */
export function encodeFontstack(name: string, range: string, glyphs: readonly EncodedGlyph[]): Uint8Array {
  const stack = new Writer(64 + glyphs.reduce((n, g) => n + g.bytes.length, 0));
  stack.bytes(1, utf8.encode(name));
  stack.bytes(2, utf8.encode(range));
  for (const g of glyphs) stack.raw(g.bytes);
  const out = new Writer(stack.pos + 8);
  out.bytes(1, stack.buf.subarray(0, stack.pos));
  return out.result();
}

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array, readonly end = buf.length) {}
  varint(): number {
    let result = 0;
    let shift = 1;
    for (;;) {
      if (this.pos >= this.end) throw new Error("truncated varint");
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * shift;
      if (b < 0x80) return result;
      shift *= 128;
      if (shift > 2 ** 63) throw new Error("varint too long");
    }
  }
  skip(wire: number) {
    if (wire === 0) this.varint();
    else if (wire === 2) {
      const length = this.varint();
      this.pos += length;
    }
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new Error("truncated field");
  }
}

/** The encoded glyph records of every fontstack in a glyphs PBF (as written by encodeFontstack). */
export function readEncodedGlyphs(pbf: Uint8Array): EncodedGlyph[] {
  const out: EncodedGlyph[] = [];
  const top = new Reader(pbf);
  while (top.pos < top.end) {
    const key = top.varint();
    if (key >> 3 !== 1 || (key & 7) !== 2) {
      top.skip(key & 7);
      continue;
    }
    const len = top.varint();
    const stack = new Reader(pbf, top.pos + len);
    stack.pos = top.pos;
    top.pos += len;
    while (stack.pos < stack.end) {
      const fieldStart = stack.pos;
      const k = stack.varint();
      if (k >> 3 !== 3 || (k & 7) !== 2) {
        stack.skip(k & 7);
        continue;
      }
      const glen = stack.varint();
      const glyph = new Reader(pbf, stack.pos + glen);
      glyph.pos = stack.pos;
      stack.pos += glen;
      let id = -1;
      while (glyph.pos < glyph.end) {
        const gk = glyph.varint();
        if (gk === 8) {
          id = glyph.varint();
          break;
        }
        glyph.skip(gk & 7);
      }
      if (id >= 0) out.push({ id, bytes: pbf.subarray(fieldStart, stack.pos) });
    }
  }
  return out;
}

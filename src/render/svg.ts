// The SVG document a render builds: <defs> (patterns, sprite images, glyph outlines) and the body in
// layer order, plus the few formatting helpers every layer uses.
export class SvgDocument {
  readonly defs: string[] = [];
  readonly body: string[] = [];
  private ids = 0;
  private readonly named = new Map<string, string>();
  private readonly empty = new Set<string>();

  constructor(
    readonly width: number,
    readonly height: number,
  ) {}

  /** A fresh id for a def. */
  id(prefix: string): string {
    return `${prefix}${this.ids++}`;
  }

  /** Adds a def once per key and returns its id (sprite images, glyphs, patterns are shared). */
  defOnce(key: string, make: (id: string) => string): string {
    let id = this.named.get(key);
    if (!id) {
      id = this.id("d");
      this.named.set(key, id);
      const def = make(id);
      if (def) this.defs.push(def);
      else this.empty.add(id);
    }
    return id;
  }

  /** Whether the def made for an id turned out empty (a blank glyph). */
  isEmptyDef(id: string): boolean {
    return this.empty.has(id);
  }

  toString(): string {
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${this.width}" height="${this.height}" viewBox="0 0 ${this.width} ${this.height}">` +
      `<defs>${this.defs.join("")}</defs>${this.body.join("")}</svg>`
    );
  }
}

/** Compact number for attributes (0.01 px is far below what can be seen). */
export function n(v: number): string {
  return String(Math.round(v * 100) / 100);
}

/** An SVG matrix(...) for an affine transform (rotation terms need more precision than positions). */
export function matrix(m: { a: number; b: number; c: number; d: number; e: number; f: number }): string {
  const p = (v: number) => String(Math.round(v * 1e5) / 1e5);
  return `matrix(${p(m.a)} ${p(m.b)} ${p(m.c)} ${p(m.d)} ${n(m.e)} ${n(m.f)})`;
}

export function escapeAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** Groups equal-style items (keeping first-seen order) so one <path> carries many features. */
export class Batches<T> {
  private readonly byKey = new Map<string, { style: T; parts: string[] }>();
  add(key: string, style: T, part: string): void {
    const b = this.byKey.get(key);
    if (b) b.parts.push(part);
    else this.byKey.set(key, { style, parts: [part] });
  }
  *entries(): Generator<{ style: T; data: string }> {
    for (const b of this.byKey.values()) yield { style: b.style, data: b.parts.join("") };
  }
}

export function dataUri(bytes: Uint8Array): string {
  return `data:${imageMime(bytes)};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}

export function imageMime(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return "image/jpeg";
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) return "image/webp";
  if (bytes[0] === 0x47 && bytes[1] === 0x49) return "image/gif";
  return "image/png";
}

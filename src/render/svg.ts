// The SVG document a render builds: <defs> (patterns, sprite images, glyph outlines) and the body in
// layer order, plus the few formatting helpers every layer uses. Upright label text is not SVG: it is
// kept as runs of glyphs, each marked at its place in the body, and laid onto the pixels as cached
// masks (compose.ts), so what is drawn after a run still covers it; so are images of the whole view
// that layers compute themselves.
import type { LoadedFont } from "./text";

/** One upright glyph to lay onto the image as a mask (CSS px; compose.ts scales by the pixel ratio). */
export interface MaskGlyph {
  font: LoadedFont;
  glyphIndex: number;
  /** px per em */
  size: number;
  /** the pen position (baseline) of the glyph */
  x: number;
  y: number;
  /** halo radius; 0 draws the glyph itself */
  halo: number;
  /** `text-halo-blur` of a halo, px; 0 for a crisp one */
  blur: number;
  /** straight-alpha colour, 0-255 channels and alpha 0-1 (opacity included) */
  color: [number, number, number, number];
}

export interface TextRun {
  /** the run is drawn after body[0, at) and before body[at, ...) */
  at: number;
  glyphs: MaskGlyph[];
  /**
   * or, in place of glyphs, an image of the whole view to lay on (premultiplied RGBA at the render's
   * pixel ratio): layers that compute their own pixels (hillshade, color-relief) skip a PNG round trip
   * through resvg
   */
  pixels?: Uint8Array;
}

export class SvgDocument {
  readonly defs: string[] = [];
  readonly body: string[] = [];
  readonly textRuns: TextRun[] = [];
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

  /** Adds glyphs to draw as masks at this point of the body. */
  text(glyphs: MaskGlyph[]): void {
    if (!glyphs.length) return;
    const last = this.textRuns[this.textRuns.length - 1];
    if (last && last.at === this.body.length && !last.pixels) last.glyphs.push(...glyphs);
    else this.textRuns.push({ at: this.body.length, glyphs });
  }

  /** Adds an image of the whole view (premultiplied RGBA at the render's pixel ratio) at this point of the body. */
  image(pixels: Uint8Array): void {
    this.textRuns.push({ at: this.body.length, glyphs: [], pixels });
  }

  /** The SVG of body[from, to) with every def. */
  slice(from: number, to: number): string {
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${this.width}" height="${this.height}" viewBox="0 0 ${this.width} ${this.height}">` +
      `<defs>${this.defs.join("")}</defs>${this.body.slice(from, to).join("")}</svg>`
    );
  }

  /** The whole body as SVG (without the text runs). */
  toString(): string {
    return this.slice(0, this.body.length);
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

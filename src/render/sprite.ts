// Sprite images for icons and patterns: each image used is cut out of the sheet once per render and
// defined once in the SVG as an <image> of its CSS-pixel size.
import { encodePng, readPng } from "../sprites/png";
import type { SvgDocument } from "./svg";
import type { SpriteEntry } from "./types";

export interface SpriteImage {
  /** id of the <image> def, drawn at (0,0) with the CSS size below */
  id: string;
  width: number;
  height: number;
  /** image pixels per CSS px */
  pixelRatio: number;
  /** the PNG of the image alone (patterns need it in their own def) */
  href: string;
}

/** Largest sprite sheet decoded (pixels); a bigger sheet draws no icons rather than exhausting memory. */
const MAX_SHEET_PIXELS = 8192 * 8192;

export class SpriteImages {
  private readonly cache = new Map<string, SpriteImage | null>();
  private sheet: { width: number; data: Uint8Array } | null | undefined;

  constructor(
    private readonly svg: SvgDocument,
    private readonly source: { json: Record<string, SpriteEntry>; png: Uint8Array } | null,
  ) {}

  /** Names the sprite offers (image expressions test availability against them). */
  names(): string[] {
    return this.source ? Object.keys(this.source.json) : [];
  }

  get(name: string): SpriteImage | null {
    if (this.cache.has(name)) return this.cache.get(name)!;
    const image = this.cut(name);
    this.cache.set(name, image);
    return image;
  }

  private cut(name: string): SpriteImage | null {
    const entry = this.source && Object.hasOwn(this.source.json, name) ? this.source.json[name] : undefined;
    if (!entry || !(entry.width > 0) || !(entry.height > 0)) return null;
    const sheet = this.decodedSheet();
    if (!sheet) return null;
    const { x, y, width, height } = entry;
    const sheetHeight = sheet.data.length / 4 / sheet.width;
    if (x < 0 || y < 0 || x + width > sheet.width || y + height > sheetHeight) return null;
    const data = new Uint8Array(width * height * 4);
    for (let row = 0; row < height; row++) {
      const from = ((y + row) * sheet.width + x) * 4;
      data.set(sheet.data.subarray(from, from + width * 4), row * width * 4);
    }
    const href = `data:image/png;base64,${Buffer.from(encodePng({ width, height, data })).toString("base64")}`;
    const pixelRatio = entry.pixelRatio > 0 ? entry.pixelRatio : 1;
    const w = width / pixelRatio;
    const h = height / pixelRatio;
    const id = this.svg.defOnce(`sprite:${name}`, (defId) => `<image id="${defId}" width="${w}" height="${h}" preserveAspectRatio="none" xlink:href="${href}"/>`);
    return { id, width: w, height: h, pixelRatio, href };
  }

  private decodedSheet(): { width: number; data: Uint8Array } | null {
    if (this.sheet !== undefined) return this.sheet;
    this.sheet = null;
    if (!this.source) return null;
    try {
      const png = readPng(this.source.png, { pixels: true, maxPixels: MAX_SHEET_PIXELS });
      if (png.data) this.sheet = { width: png.width, data: png.data };
    } catch {
      // an unreadable sheet draws no icons, as a missing sprite does in MapLibre
    }
    return this.sheet;
  }
}

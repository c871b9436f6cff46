// Sprite images for icons and patterns: each image used is defined once per render in the SVG as an
// <image> of its CSS-pixel size. The decoded sheet and the PNG of each image cut from it are kept across
// renders (keyed by the sheet's bytes), since decoding a sheet costs more than drawing most maps.
import { Lru } from "../lru";
import { encodePng, readPng } from "../sprites/png";
import type { SvgDocument } from "./svg";
import type { SpriteEntry } from "./types";
import { contentHash } from "./content-hash";

export interface SpriteImage {
  /** id of the <image> def, drawn at (0,0) with the CSS size below */
  id: string;
  width: number;
  height: number;
  /** image pixels per CSS px */
  pixelRatio: number;
  /** the PNG of the image alone (patterns need it in their own def) */
  href: string;
  /** a signed-distance-field icon, drawn in icon-color */
  sdf: boolean;
  name: string;
}

/** Largest sprite sheet decoded (pixels); a bigger sheet draws no icons rather than exhausting memory. */
const MAX_SHEET_PIXELS = 8192 * 8192;
const SHEET_CACHE_BYTES = 128 * 1024 * 1024;
const MAX_CUT_IMAGES = 2048;

interface DecodedSheet {
  width: number;
  data: Uint8Array;
  /** data: URI of each image cut out (and tinted) so far, by name and tint */
  hrefs: Map<string, string>;
}

const sheets = new Lru<DecodedSheet | null>({ maxBytes: SHEET_CACHE_BYTES });

export class SpriteImages {
  private readonly cache = new Map<string, SpriteImage | null>();
  private sheet: DecodedSheet | null | undefined;

  constructor(
    private readonly svg: SvgDocument,
    private readonly source: { json: Record<string, SpriteEntry>; png: Uint8Array } | null,
  ) {}

  /** Names the sprite offers (image expressions test availability against them). */
  names(): string[] {
    return this.source ? Object.keys(this.source.json) : [];
  }

  /** The image; SDF images are drawn in `tint` ([r, g, b, a], 0-255 and 0-1) when one is given. */
  get(name: string, tint?: [number, number, number, number]): SpriteImage | null {
    const key = tint ? `${name}\u0000${tint.join()}` : name;
    if (this.cache.has(key)) return this.cache.get(key)!;
    const image = this.cut(name, tint);
    this.cache.set(key, image);
    return image;
  }

  private cut(name: string, tint?: [number, number, number, number]): SpriteImage | null {
    const entry = this.source && Object.hasOwn(this.source.json, name) ? this.source.json[name] : undefined;
    if (!entry || !(entry.width > 0) || !(entry.height > 0)) return null;
    const sheet = this.decodedSheet();
    if (!sheet) return null;
    const { x, y, width, height } = entry;
    const sheetHeight = sheet.data.length / 4 / sheet.width;
    if (x < 0 || y < 0 || x + width > sheet.width || y + height > sheetHeight) return null;
    const sdf = entry.sdf === true;
    const hrefKey = `${x},${y},${width},${height}|${sdf && tint ? tint.join() : ""}`;
    let href = sheet.hrefs.get(hrefKey);
    if (!href) {
      const data = new Uint8Array(width * height * 4);
      for (let row = 0; row < height; row++) {
        const from = ((y + row) * sheet.width + x) * 4;
        data.set(sheet.data.subarray(from, from + width * 4), row * width * 4);
      }
      if (sdf && tint) drawSdf(data, tint);
      href = `data:image/png;base64,${Buffer.from(encodePng({ width, height, data })).toString("base64")}`;
      // data-driven icon-color can ask for endless tints: start over rather than grow without bound
      if (sheet.hrefs.size >= MAX_CUT_IMAGES) sheet.hrefs.clear();
      sheet.hrefs.set(hrefKey, href);
    }
    const pixelRatio = entry.pixelRatio > 0 ? entry.pixelRatio : 1;
    const w = width / pixelRatio;
    const h = height / pixelRatio;
    const id = this.svg.defOnce(`sprite:${name}:${sdf && tint ? tint.join() : ""}`, (defId) => `<image id="${defId}" width="${w}" height="${h}" preserveAspectRatio="none" xlink:href="${href}"/>`);
    return { id, width: w, height: h, pixelRatio, href, sdf, name };
  }

  private decodedSheet(): DecodedSheet | null {
    if (this.sheet !== undefined) return this.sheet;
    this.sheet = this.source ? sheetOf(this.source.png) : null;
    return this.sheet;
  }
}

function sheetOf(png: Uint8Array): DecodedSheet | null {
  const key = `${png.length}:${contentHash(png)}`;
  let sheet = sheets.get(key);
  if (sheet === undefined) {
    sheet = null;
    try {
      const image = readPng(png, { pixels: true, maxPixels: MAX_SHEET_PIXELS });
      if (image.data) sheet = { width: image.width, data: image.data, hrefs: new Map() };
    } catch {
      // an unreadable sheet draws no icons, as a missing sprite does in MapLibre
    }
    // the cut images' PNGs are smaller than the sheet's pixels; counted twice to leave them room
    sheets.set(key, sheet, 2 * (sheet?.data.length ?? 0) + png.length);
  }
  return sheet;
}

/** SDF icons keep the distance in alpha; MapLibre draws them in one colour with the edge at 0.75. */
function drawSdf(data: Uint8Array, [r, g, b, a]: [number, number, number, number]): void {
  const EDGE = 0.75;
  const GAMMA = 0.105;
  for (let i = 0; i < data.length; i += 4) {
    const t = Math.max(0, Math.min(1, (data[i + 3]! / 255 - (EDGE - GAMMA)) / (2 * GAMMA)));
    data[i] = r;
    data[i + 1] = g;
    data[i + 2] = b;
    data[i + 3] = Math.round(t * t * (3 - 2 * t) * a * 255);
  }
}

// Builds a MapLibre sprite (sprite.json + sprite.png and the @2x pair) from SVG icons: each icon is
// checked, rasterized at 1x and 2x, packed with potpack and drawn into one sheet per pixel ratio.
import potpack from "potpack";
import { checkSvg, UnsafeSvg } from "./svg-safety";
import { rasterize, resvgReady, svgSize, SvgRenderError } from "./rasterize";
import { encodePng, type RgbaImage } from "./png";

export const MAX_ICONS = 500;
export const MAX_ICON_PX = 2048;
/** empty pixels around each icon so neighbours never bleed into each other when sampled */
const PADDING = 2;

export interface SpriteEntry {
  x: number;
  y: number;
  width: number;
  height: number;
  pixelRatio: number;
  sdf?: boolean;
}

export type SpriteIndex = Record<string, SpriteEntry>;

/** One sheet: the JSON index and its PNG. */
export interface SpriteSheet {
  index: SpriteIndex;
  png: Uint8Array;
  width: number;
  height: number;
}

export interface SpriteSet {
  "1x": SpriteSheet;
  "2x": SpriteSheet;
}

/** A user mistake in the uploaded icons; the message names the icon and the problem. */
export class SpriteInputError extends Error {}

const NAME_RE = /^[\p{L}\p{N}_][\p{L}\p{N}_ .+-]{0,127}$/u;

/**
 * '__proto__' cannot be an icon: assigning it to a plain object (our sprite index, and a map client's
 * image table) sets the prototype instead of adding a key, so the icon vanished silently. Refused by
 * name rather than stored in a way no map could use.
 */
export const RESERVED_ICON_NAME = "__proto__";
export const reservedNameMessage = `the icon name '${RESERVED_ICON_NAME}' is reserved (JavaScript objects, map clients' included, cannot hold a key of that name); rename the icon`;

/**
 * Icon name from a file name (the base name without `.svg`; a zip's folders are dropped) or, with
 * `exact`, a name given as is; refused when it holds odd characters.
 */
export function iconName(fileName: string, exact = false): string {
  const base = exact ? fileName : fileName.split("/").pop()!.replace(/\.svg$/i, "");
  if (!NAME_RE.test(base) || base.endsWith(".") || base.includes(".."))
    throw new SpriteInputError(`'${fileName}': icon names may use letters, digits, space, '_', '-', '.', '+' (1-128 characters)`);
  if (base === RESERVED_ICON_NAME) throw new SpriteInputError(`'${fileName}': ${reservedNameMessage}`);
  return base;
}

export interface SvgIcon {
  name: string;
  bytes: Uint8Array;
}

export async function buildSprite(icons: SvgIcon[]): Promise<SpriteSet> {
  if (icons.length === 0) throw new SpriteInputError("no SVG icons were uploaded");
  if (icons.length > MAX_ICONS) throw new SpriteInputError(`${icons.length} icons uploaded; the limit is ${MAX_ICONS} per sprite`);
  const seen = new Set<string>();
  const checked: { name: string; svg: string }[] = [];
  for (const icon of icons) {
    if (seen.has(icon.name)) throw new SpriteInputError(`icon '${icon.name}' appears twice`);
    seen.add(icon.name);
    try {
      checked.push({ name: icon.name, svg: checkSvg(icon.bytes) });
    } catch (err) {
      if (err instanceof UnsafeSvg) throw new SpriteInputError(`icon '${icon.name}': ${err.message}`);
      throw err;
    }
  }
  await resvgReady();
  for (const icon of checked) {
    let size: { width: number; height: number };
    try {
      size = svgSize(icon.svg);
    } catch (err) {
      if (err instanceof SvgRenderError) throw new SpriteInputError(`icon '${icon.name}' is ${err.message}`);
      throw err;
    }
    if (size.width > MAX_ICON_PX || size.height > MAX_ICON_PX)
      throw new SpriteInputError(`icon '${icon.name}' is ${size.width}x${size.height} px; the limit is ${MAX_ICON_PX} px per side`);
    if (size.width < 1 || size.height < 1) throw new SpriteInputError(`icon '${icon.name}' has no size (give it width/height or a viewBox)`);
  }
  return { "1x": sheet(checked, 1), "2x": sheet(checked, 2) };
}

function sheet(icons: { name: string; svg: string }[], ratio: number): SpriteSheet {
  const images = icons.map((icon) => {
    try {
      return { name: icon.name, image: rasterize(icon.svg, ratio) };
    } catch (err) {
      if (err instanceof SvgRenderError) throw new SpriteInputError(`icon '${icon.name}' ${err.message}`);
      throw err;
    }
  });
  const boxes = images.map((img, i) => ({ i, w: img.image.width + 2 * PADDING, h: img.image.height + 2 * PADDING, x: 0, y: 0 }));
  const { w, h } = potpack(boxes);
  const width = Math.max(1, Math.ceil(w));
  const height = Math.max(1, Math.ceil(h));
  const canvas: RgbaImage = { width, height, data: new Uint8Array(width * height * 4) };
  const index: SpriteIndex = {};
  // Sorted names make the JSON stable whatever order the zip listed the files in.
  for (const box of boxes) {
    const { name, image } = images[box.i]!;
    const x = box.x + PADDING;
    const y = box.y + PADDING;
    blit(canvas, image, x, y);
    index[name] = { x, y, width: image.width, height: image.height, pixelRatio: ratio };
  }
  const sorted: SpriteIndex = {};
  for (const name of Object.keys(index).sort()) sorted[name] = index[name]!;
  return { index: sorted, png: encodePng(canvas), width, height };
}

function blit(dst: RgbaImage, src: RgbaImage, x: number, y: number): void {
  for (let row = 0; row < src.height; row++) {
    const from = row * src.width * 4;
    dst.data.set(src.data.subarray(from, from + src.width * 4), ((y + row) * dst.width + x) * 4);
  }
}

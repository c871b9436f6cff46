// A ready-made sprite (JSON index + PNG) uploaded as is: the PNG must decode and every entry must be a
// well-formed box lying inside the image.
import { PngError, readPng } from "./png";
import { RESERVED_ICON_NAME, reservedNameMessage, SpriteInputError, type SpriteIndex, type SpriteSheet } from "./build";

export const MAX_SHEET_PX = 8192;
export const MAX_SHEET_ENTRIES = 5000;

export function checkReadySheet(label: string, jsonBytes: Uint8Array, png: Uint8Array): SpriteSheet {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(jsonBytes));
  } catch {
    throw new SpriteInputError(`${label}.json is not valid JSON`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new SpriteInputError(`${label}.json must be an object of icon name -> {x, y, width, height, pixelRatio}`);
  let info;
  try {
    info = readPng(png, { maxPixels: MAX_SHEET_PX * MAX_SHEET_PX });
  } catch (err) {
    if (err instanceof PngError) throw new SpriteInputError(`${label}.png does not decode: ${err.message}`);
    throw err;
  }
  if (info.width > MAX_SHEET_PX || info.height > MAX_SHEET_PX)
    throw new SpriteInputError(`${label}.png is ${info.width}x${info.height}; the limit is ${MAX_SHEET_PX} px per side`);
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.length > MAX_SHEET_ENTRIES) throw new SpriteInputError(`${label}.json has ${entries.length} entries; the limit is ${MAX_SHEET_ENTRIES}`);
  const index: SpriteIndex = {};
  for (const [name, raw] of entries) {
    const e = raw as Record<string, unknown>;
    const where = `${label}.json entry '${name}'`;
    if (name === RESERVED_ICON_NAME) throw new SpriteInputError(`${where}: ${reservedNameMessage}`);
    if (!e || typeof e !== "object" || Array.isArray(e)) throw new SpriteInputError(`${where} must be an object`);
    for (const k of ["x", "y", "width", "height"] as const)
      if (!Number.isInteger(e[k]) || (e[k] as number) < 0) throw new SpriteInputError(`${where}: '${k}' must be a non-negative integer`);
    const { x, y, width, height } = e as { x: number; y: number; width: number; height: number };
    if (width === 0 || height === 0) throw new SpriteInputError(`${where} has zero width or height`);
    const pixelRatio = e.pixelRatio === undefined ? 1 : e.pixelRatio;
    if (typeof pixelRatio !== "number" || !(pixelRatio > 0) || pixelRatio > 8) throw new SpriteInputError(`${where}: 'pixelRatio' must be a number in (0, 8]`);
    if (e.sdf !== undefined && typeof e.sdf !== "boolean") throw new SpriteInputError(`${where}: 'sdf' must be true or false`);
    if (x + width > info.width || y + height > info.height)
      throw new SpriteInputError(`${where} (${x},${y} ${width}x${height}) lies outside the ${info.width}x${info.height} image`);
    index[name] = { ...(e as object), x, y, width, height, pixelRatio } as SpriteIndex[string];
  }
  return { index, png, width: info.width, height: info.height };
}

// PNG encoding of rendered maps, tuned for speed: one filter for every row (Sub, which suits the large
// flat areas of maps) and Bun's native zlib, instead of trying every filter per row in JavaScript like
// the sprite sheet encoder does. Renders are encoded on every request, sprite sheets once.
import { deflateSync } from "node:zlib";
import type { RgbaImage } from "../sprites/png";

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
const FILTER_SUB = 1;

function chunk(type: string, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(payload, 8);
  view.setUint32(8 + payload.length, Bun.hash.crc32(out.subarray(4, 8 + payload.length)));
  return out;
}

export function encodeRenderPng(image: RgbaImage): Uint8Array {
  const { width, height, data } = image;
  const stride = width * 4;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const from = y * stride;
    const to = y * (stride + 1);
    raw[to] = FILTER_SUB;
    for (let i = 0; i < 4; i++) raw[to + 1 + i] = data[from + i]!;
    for (let i = 4; i < stride; i++) raw[to + 1 + i] = (data[from + i]! - data[from + i - 4]!) & 0xff;
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const parts = [new Uint8Array(SIGNATURE), chunk("IHDR", header), chunk("IDAT", deflateSync(raw, { level: 6 })), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

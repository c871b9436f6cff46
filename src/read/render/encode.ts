// Pixels out of the renderer: cropped for raster tiles, then encoded. PNG with the renderer's
// own fast encoder; JPEG with jpeg-js (pure JavaScript); WebP with libwebp compiled to WebAssembly by
// @jsquash/webp. The .wasm is imported as a file so `bun build --compile` embeds it: nothing is fetched
// at run time.
import webpWasmPath from "@jsquash/webp/codec/enc/webp_enc_simd.wasm" with { type: "file" };
import encodeWebp, { init as initWebp } from "@jsquash/webp/encode.js";
import jpeg from "jpeg-js";
import type { RgbaImage } from "../../sprites/png";
import { encodeRenderPng } from "../../render/png";
import type { ImageFormat } from "./static-request";

export const CONTENT_TYPES: Record<ImageFormat, string> = { png: "image/png", jpg: "image/jpeg", webp: "image/webp" };
const JPEG_QUALITY = 85;
const WEBP_QUALITY = 80;

let webpReady: Promise<unknown> | null = null;

/** JPEG has no alpha: transparent parts are laid over white, as a browser shows them. */
function flattenOnWhite(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length);
  for (let i = 0; i < rgba.length; i += 4) {
    const a = rgba[i + 3]! / 255;
    out[i] = Math.round(rgba[i]! * a + 255 * (1 - a));
    out[i + 1] = Math.round(rgba[i + 1]! * a + 255 * (1 - a));
    out[i + 2] = Math.round(rgba[i + 2]! * a + 255 * (1 - a));
    out[i + 3] = 255;
  }
  return out;
}

export async function encodeImage(image: RgbaImage, format: ImageFormat): Promise<Uint8Array> {
  const { width, height, data } = image;
  if (format === "png") return encodeRenderPng(image);
  if (format === "jpg") return new Uint8Array(jpeg.encode({ data: Buffer.from(flattenOnWhite(data)), width, height }, JPEG_QUALITY).data);
  webpReady ??= Bun.file(webpWasmPath)
    .arrayBuffer()
    .then((bytes) => WebAssembly.compile(bytes))
    .then((module) => initWebp(module));
  await webpReady;
  const pixels = new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(await encodeWebp({ data: pixels, width, height, colorSpace: "srgb" } as ImageData, { quality: WEBP_QUALITY }));
}

/** The image less `margin` pixels on every side. */
export function crop(src: RgbaImage, margin: number): RgbaImage {
  const width = src.width - 2 * margin;
  const height = src.height - 2 * margin;
  if (width < 1 || height < 1) throw new Error(`cannot crop ${margin} px from a ${src.width}x${src.height} image`);
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) data.set(src.data.subarray(((y + margin) * src.width + margin) * 4, ((y + margin) * src.width + margin + width) * 4), y * width * 4);
  return { width, height, data };
}

// WebP DEM tiles: lossless ones (VP8L) decode to the exact RGB they were written with, so heights
// survive; lossy ones (VP8) shift every channel a little, and in Terrarium a step of 1 in red is 256 m,
// so they are refused rather than answered wrongly. Decoding is libwebp compiled to WebAssembly by
// @jsquash/webp; the .wasm is imported as a file so `bun build --compile` embeds it (nothing is fetched
// at run time).
import webpDecoderWasmPath from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "file" };
import decodeWebp, { init as initWebpDecoder } from "@jsquash/webp/decode.js";

export type WebpInfo = { kind: "lossless"; width: number; height: number } | { kind: "lossy" | "animated" };

const fourcc = (bytes: Uint8Array, at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);

export const isWebp = (bytes: Uint8Array) => bytes.length >= 16 && fourcc(bytes, 0) === "RIFF" && fourcc(bytes, 8) === "WEBP";

/**
 * How a WebP image is compressed (and a lossless one's size), read from its RIFF chunks: simple files
 * start with VP8L or "VP8 ", extended ones with VP8X and then their image chunk. Null when unreadable.
 */
export function webpInfo(bytes: Uint8Array): WebpInfo | null {
  if (!isWebp(bytes)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = fourcc(bytes, at);
    if (id === "VP8L") {
      // After the 0x2f signature byte: 14 bits of width - 1, 14 bits of height - 1.
      if (at + 13 > bytes.length || bytes[at + 8] !== 0x2f) return null;
      const bits = view.getUint32(at + 9, true);
      return { kind: "lossless", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (id === "VP8 ") return { kind: "lossy" };
    if (id === "ANIM" || id === "ANMF") return { kind: "animated" };
    // Chunks are padded to an even size.
    const size = view.getUint32(at + 4, true);
    at += 8 + size + (size & 1);
  }
  return null;
}

let decoderReady: Promise<unknown> | null = null;

/**
 * The width and height a WebP image declares (its canvas, for an extended file), read before decoding
 * so a forged size cannot make libwebp allocate gigabytes; null when unreadable.
 */
export function webpSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (!isWebp(bytes) || bytes.length < 30) return null;
  const id = fourcc(bytes, 12);
  const at = 20; // the first chunk's payload
  if (id === "VP8X") {
    // flags (4 bytes), then canvas width - 1 and height - 1, 24 bits each
    const u24 = (o: number) => bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16);
    return { width: u24(at + 4) + 1, height: u24(at + 7) + 1 };
  }
  if (id === "VP8 ") {
    // frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height
    if (bytes[at + 3] !== 0x9d || bytes[at + 4] !== 0x01 || bytes[at + 5] !== 0x2a) return null;
    return { width: (bytes[at + 6]! | (bytes[at + 7]! << 8)) & 0x3fff, height: (bytes[at + 8]! | (bytes[at + 9]! << 8)) & 0x3fff };
  }
  const info = webpInfo(bytes);
  return info?.kind === "lossless" ? { width: info.width, height: info.height } : null;
}

/** RGBA pixels of a WebP image; throws when libwebp cannot decode it. */
export async function decodeWebpPixels(bytes: Uint8Array): Promise<{ width: number; height: number; data: Uint8Array }> {
  decoderReady ??= Bun.file(webpDecoderWasmPath)
    .arrayBuffer()
    .then((wasm) => WebAssembly.compile(wasm))
    .then((module) => initWebpDecoder(module));
  await decoderReady;
  // A copy into a plain ArrayBuffer: tiles reach render workers in SharedArrayBuffers, which libwebp's
  // bindings refuse (every WebP DEM tile failed to decode there, and relief layers drew nothing).
  const image = await decodeWebp(bytes.slice().buffer);
  return { width: image.width, height: image.height, data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
}

// SVG -> RGBA through resvg-wasm. The .wasm is imported as a file so `bun build --compile` embeds it and
// Bun.file reads it from inside the binary, wherever the binary runs from.
import wasmPath from "@resvg/resvg-wasm/index_bg.wasm" with { type: "file" };
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import type { RgbaImage } from "./png";

let ready: Promise<void> | null = null;

export function resvgReady(): Promise<void> {
  ready ??= Bun.file(wasmPath)
    .arrayBuffer()
    .then((buf) => initWasm(buf))
    .catch((err) => {
      ready = null;
      throw err;
    });
  return ready;
}

export class SvgRenderError extends Error {}

/** The size resvg gives the SVG at 1x (width/height attributes, else the viewBox). */
export function svgSize(svg: string): { width: number; height: number } {
  let r: InstanceType<typeof Resvg> | undefined;
  try {
    r = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "original" } });
    return { width: r.width, height: r.height };
  } catch (err) {
    throw new SvgRenderError(`not a valid SVG (${String(err instanceof Error ? err.message : err).slice(0, 200)})`);
  } finally {
    r?.free();
  }
}

/** Renders at `scale` and returns straight-alpha RGBA (resvg hands back premultiplied pixels). */
export function rasterize(svg: string, scale: number): RgbaImage {
  const out = rasterizePremultiplied(svg, scale);
  unpremultiply(out.data);
  return out;
}

/** Renders at `scale` and returns resvg's premultiplied RGBA, for callers that compose more on top. */
export function rasterizePremultiplied(svg: string, scale: number): RgbaImage {
  let r: InstanceType<typeof Resvg> | undefined;
  try {
    r = new Resvg(svg, { font: { loadSystemFonts: false }, fitTo: { mode: "zoom", value: scale }, shapeRendering: 2 });
    const img = r.render();
    // the pixels getter already hands back a fresh copy out of WebAssembly memory
    const out = { width: img.width, height: img.height, data: img.pixels as Uint8Array };
    img.free();
    return out;
  } catch (err) {
    throw new SvgRenderError(`could not be rendered (${String(err instanceof Error ? err.message : err).slice(0, 200)})`);
  } finally {
    r?.free();
  }
}

/** Premultiplied RGBA to straight alpha, in place. */
export function unpremultiply(px: Uint8Array): void {
  // most pixels of a map are opaque: read each pixel as one word (alpha is its high byte on the
  // little-endian machines Bun runs on) and touch only the translucent ones
  const words = new Uint32Array(px.buffer, px.byteOffset, px.byteLength >> 2);
  for (let w = 0; w < words.length; w++) {
    const alphaByte = words[w]! >>> 24;
    if (alphaByte === 0 || alphaByte === 255) continue;
    const i = w * 4;
    const a = px[i + 3]!;
    px[i] = Math.min(255, Math.round((px[i]! * 255) / a));
    px[i + 1] = Math.min(255, Math.round((px[i + 1]! * 255) / a));
    px[i + 2] = Math.min(255, Math.round((px[i + 2]! * 255) / a));
  }
}

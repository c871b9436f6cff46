import { describe, expect, test } from "bun:test";
import { zlibSync } from "fflate";
import { encodePng, readPng, PngError } from "../../src/sprites/png";
import { pngChunk } from "../support/png-any-encoder";

function gradient(width: number, height: number) {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set([(i * 7) & 255, (i * 13) & 255, (i * 29) & 255, (i * 3) & 255], i * 4);
  return { width, height, data };
}

describe("PNG codec", () => {
  test("round-trips RGBA pixels exactly", () => {
    const img = gradient(37, 23);
    const png = encodePng(img);
    const back = readPng(png, { pixels: true });
    expect(back.width).toBe(37);
    expect(back.height).toBe(23);
    expect(back.colorType).toBe(6);
    expect(Buffer.from(back.data!).equals(Buffer.from(img.data))).toBe(true);
  });

  test("PNGs from another encoder (resvg) decode", async () => {
    const { Resvg } = await import("@resvg/resvg-wasm");
    const { resvgReady } = await import("../../src/sprites/rasterize");
    await resvgReady();
    const png = new Resvg(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="3"><rect width="4" height="3" fill="#00f"/></svg>`).render().asPng();
    const info = readPng(png, { pixels: true });
    expect([info.width, info.height]).toEqual([4, 3]);
    expect([...info.data!.slice(0, 4)]).toEqual([0, 0, 255, 255]);
  });

  test("refuses a bad signature, a bad CRC, truncation and short image data", () => {
    const png = encodePng(gradient(8, 8));
    expect(() => readPng(new TextEncoder().encode("GIF89a........"))).toThrow(PngError);
    const badCrc = png.slice();
    badCrc[30] = badCrc[30]! ^ 0xff; // inside IHDR/IDAT payload
    expect(() => readPng(badCrc)).toThrow(/CRC/);
    expect(() => readPng(png.slice(0, png.length - 20))).toThrow(PngError);
    // A valid container whose IDAT holds fewer bytes than its header promises.
    const short = handmade(8, 8, zlibSync(new Uint8Array(10)));
    expect(() => readPng(short)).toThrow(/promises/);
  });

  test("refuses images over the pixel limit before inflating them", () => {
    const huge = handmade(100000, 100000, zlibSync(new Uint8Array(1)));
    expect(() => readPng(huge, { maxPixels: 8192 * 8192 })).toThrow(/too large/);
  });
});

/** A PNG with the given IHDR size and IDAT bytes, correct CRCs: for structural tests. */
function handmade(width: number, height: number, idat: Uint8Array): Uint8Array {
  const sample = encodePng({ width: 1, height: 1, data: new Uint8Array(4) });
  const parts: Uint8Array[] = [sample.slice(0, 8)];
  const chunk = pngChunk; // the test encoder's, with its own CRC-32
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  parts.push(chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", new Uint8Array(0)));
  return new Uint8Array(Buffer.concat(parts));
}

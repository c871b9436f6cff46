// Tile sizes read from image headers: PNG, JPEG and WebP as the render encoder writes them.
import { expect, test } from "bun:test";
import { imageWidth } from "../../src/tiles/image-size";
import { encodeImage } from "../../src/read/render/encode";

test("the width of PNG, JPEG and WebP images; null for anything else", async () => {
  for (const width of [256, 512]) {
    const image = { width, height: 64, data: new Uint8Array(width * 64 * 4).fill(128) };
    for (const format of ["png", "jpg", "webp"] as const) expect({ format, width: imageWidth(await encodeImage(image, format)) }).toEqual({ format, width });
  }
  expect(imageWidth(new TextEncoder().encode("not an image at all, just text"))).toBeNull();
  expect(imageWidth(new Uint8Array([0xff, 0xd8, 0x00, 0x00]))).toBeNull();
});

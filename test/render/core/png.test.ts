// The renderer's PNG encoder (src/render/png.ts) reuses its row buffer between images: each image must
// still decode to exactly its own pixels, whether it is small, large (rows of its own) or follows a larger one.
import { describe, expect, test } from "bun:test";
import { encodeRenderPng } from "../../../src/render/png";
import { readPng } from "../../../src/sprites/png";

function image(width: number, height: number, seed: number) {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed * 7 + (i >> 10)) & 255;
  return { width, height, data };
}

describe("render PNG encoder", () => {
  test("images of different sizes in a row each decode to their own pixels", () => {
    for (const [w, h, seed] of [[512, 512, 1], [64, 32, 2], [1500, 1500, 3], [300, 200, 4], [512, 512, 5]] as const) {
      const src = image(w, h, seed);
      const decoded = readPng(encodeRenderPng(src), { pixels: true });
      expect([decoded.width, decoded.height]).toEqual([w, h]);
      expect(Buffer.from(decoded.data!).equals(Buffer.from(src.data))).toBe(true);
    }
  });
});

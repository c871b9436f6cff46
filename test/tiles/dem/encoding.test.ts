import { describe, expect, test } from "bun:test";
import { decodeDemTile, decodeElevation, encodeDemTile, encodeElevation } from "../../../src/tiles/dem/encoding";
import { InvalidSource } from "../../../src/tiles/errors";
import { webpInfo, webpSize } from "../../../src/tiles/dem/webp";
import { encodePng, readPng } from "../../../src/sprites/png";
import { encodeDemTileWebp } from "../../support/dem";
import { encodeAnyPng } from "../../support/png-any-encoder";

describe("DEM RGB encodings", () => {
  test("terrarium and mapbox round-trip within their step (1/256 m, 0.1 m)", () => {
    const rgba = new Uint8Array(4);
    for (const h of [-10_000, -432.1, 0, 0.05, 1234.567, 4807.9, 8848.86]) {
      encodeElevation(h, "terrarium", rgba, 0);
      expect(Math.abs(decodeElevation(rgba[0]!, rgba[1]!, rgba[2]!, "terrarium") - h)).toBeLessThanOrEqual(1 / 512 + 1e-9);
      expect(rgba[3]).toBe(255);
      encodeElevation(h, "mapbox", rgba, 0);
      expect(Math.abs(decodeElevation(rgba[0]!, rgba[1]!, rgba[2]!, "mapbox") - h)).toBeLessThanOrEqual(0.05 + 1e-9);
    }
  });

  test("known pixels decode to the published formulas", () => {
    // Terrarium: (128, 0, 0) is 0 m; Terrain-RGB: (1, 134, 160) is 0 m.
    expect(decodeElevation(128, 0, 0, "terrarium")).toBe(0);
    expect(decodeElevation(1, 134, 160, "mapbox")).toBeCloseTo(0, 6);
    const rgba = new Uint8Array(4);
    encodeElevation(0, "mapbox", rgba, 0);
    expect([...rgba.subarray(0, 3)]).toEqual([1, 134, 160]);
    encodeElevation(0, "terrarium", rgba, 0);
    expect([...rgba.subarray(0, 3)]).toEqual([128, 0, 0]);
  });

  test("out-of-range heights clamp instead of wrapping", () => {
    const rgba = new Uint8Array(4);
    encodeElevation(-50_000, "terrarium", rgba, 0);
    expect(decodeElevation(rgba[0]!, rgba[1]!, rgba[2]!, "terrarium")).toBe(-32768);
    encodeElevation(-20_000, "mapbox", rgba, 0);
    expect(decodeElevation(rgba[0]!, rgba[1]!, rgba[2]!, "mapbox")).toBe(-10000);
  });

  test("a tile survives PNG encoding and decoding in both encodings", async () => {
    const size = 16;
    const heights = Float32Array.from({ length: size * size }, (_, i) => 100 + i * 0.5);
    for (const enc of ["terrarium", "mapbox"] as const) {
      const tile = await decodeDemTile(encodeDemTile(heights, size, enc), enc, "t");
      expect(tile.size).toBe(size);
      for (let i = 0; i < heights.length; i++) expect(Math.abs(tile.heights[i]! - heights[i]!)).toBeLessThanOrEqual(0.05 + 1e-6);
    }
  });

  test("non-PNG and non-square tiles are refused with the reason", async () => {
    await expect(decodeDemTile(new Uint8Array([1, 2, 3]), "terrarium", "z/x/y")).rejects.toThrow(InvalidSource);
    const wide = encodePng({ width: 4, height: 2, data: new Uint8Array(32) });
    await expect(decodeDemTile(wide, "terrarium", "z/x/y")).rejects.toThrow(/4x2 pixels; tiles must be square/);
  });

  test("a 16-bit heightmap PNG is refused (its samples cut to 8 bits would give every height wrong); a palette or interlaced tile of the same colours reads the same", async () => {
    const grey16 = encodeAnyPng({ width: 4, height: 4, colorType: 0, bitDepth: 16, samples: Uint16Array.from({ length: 16 }, (_, i) => 1000 + i * 37) });
    await expect(decodeDemTile(grey16, "terrarium", "3/1/2")).rejects.toThrow(/3\/1\/2: a 16-bit PNG is not a Terrarium or Terrain-RGB DEM tile/);
    // sea level in Terrarium (128, 0, 0) and 100 m: the same heights from an RGB, a palette and an interlaced tile
    const rgb = Uint16Array.from({ length: 16 * 3 }, (_, i) => (i % 3 === 0 ? 128 : i % 3 === 1 && i >= 24 ? 100 : 0));
    const plain = await decodeDemTile(encodeAnyPng({ width: 4, height: 4, colorType: 2, bitDepth: 8, samples: rgb }), "terrarium", "t");
    const interlaced = await decodeDemTile(encodeAnyPng({ width: 4, height: 4, colorType: 2, bitDepth: 8, samples: rgb, interlaced: true }), "terrarium", "t");
    const palette = await decodeDemTile(
      encodeAnyPng({ width: 4, height: 4, colorType: 3, bitDepth: 2, palette: Uint8Array.from([128, 0, 0, 128, 100, 0]), samples: Uint16Array.from({ length: 16 }, (_, i) => (i >= 8 ? 1 : 0)) }),
      "terrarium",
      "t",
    );
    expect([...interlaced.heights]).toEqual([...plain.heights]);
    expect([...palette.heights]).toEqual([...plain.heights]);
    expect(plain.heights[0]).toBe(0);
    expect(plain.heights[15]).toBe(100);
  });
});

describe("pixels without data", () => {
  const size = 8;
  // A tile whose west half has no data (NaN), the east half 1000 m.
  const heights = Float32Array.from({ length: size * size }, (_, i) => (i % size < size / 2 ? NaN : 1000));

  for (const enc of ["terrarium", "mapbox"] as const)
    test(`${enc}: drawn as 0 m for maps, marked in a chunk map clients skip, and decoded back to no data`, async () => {
      const png = encodeDemTile(heights, size, enc);
      // What a PNG reader that knows nothing of the mark (as a browser) sees: opaque 0 m pixels.
      const plain = readPng(png, { pixels: true });
      for (let i = 0; i < size * size; i++) {
        const d = plain.data!.subarray(i * 4, i * 4 + 4);
        expect({ i, h: decodeElevation(d[0]!, d[1]!, d[2]!, enc), alpha: d[3] }).toEqual({ i, h: expect.closeTo(i % size < size / 2 ? 0 : 1000, 1) as never, alpha: 255 });
      }
      // Chunk type noDt: ancillary (lowercase first letter), so decoders that do not know it skip it.
      expect(Object.keys(readPng(png, { chunks: ["noDt"] }).chunks!)).toEqual(["noDt"]);
      const tile = await decodeDemTile(png, enc, "t");
      for (let i = 0; i < size * size; i++) expect({ i, nodata: Number.isNaN(tile.heights[i]) }).toEqual({ i, nodata: i % size < size / 2 });
    });

  test("a tile with data everywhere carries no mark (nothing changes for it)", () => {
    const png = encodeDemTile(new Float32Array(size * size).fill(12), size, "terrarium");
    expect(readPng(png, { chunks: ["noDt"] }).chunks).toEqual({});
    expect(png).toEqual(encodePng({ width: size, height: size, data: Uint8Array.from({ length: size * size * 4 }, (_, i) => [128, 12, 0, 255][i % 4]!) }));
  });

  test("a damaged mark makes the tile unreadable, named as such, rather than silently all data", async () => {
    const png = encodeDemTile(heights, size, "terrarium");
    const rgba = readPng(png, { pixels: true }).data!;
    const broken = encodePng({ width: size, height: size, data: rgba }, [{ type: "noDt", data: new Uint8Array([1, 2, 3]) }]);
    await expect(decodeDemTile(broken, "terrarium", "9/1/2")).rejects.toThrow(/9\/1\/2: its no-data mark \(PNG chunk noDt\) does not inflate/);
  });
});

describe("WebP DEM tiles", () => {
  // Heights over the whole Terrarium range, so every byte of R, G and B takes many values.
  const size = 64;
  const heights = Float32Array.from({ length: size * size }, (_, i) => -400 + ((i * 7919) % 9000) + (i % 256) / 256);

  test("lossless WebP decodes to the same heights as the PNG of the same tile, in both encodings", async () => {
    for (const enc of ["terrarium", "mapbox"] as const) {
      const webp = await encodeDemTileWebp(heights, size, enc);
      expect(webpInfo(webp)).toEqual({ kind: "lossless", width: size, height: size });
      const fromWebp = await decodeDemTile(webp, enc, "t");
      const fromPng = await decodeDemTile(encodeDemTile(heights, size, enc), enc, "t");
      expect(fromWebp.size).toBe(size);
      expect([...fromWebp.heights]).toEqual([...fromPng.heights]);
    }
  });

  test("lossy WebP is refused naming why, before any height is read", async () => {
    const lossy = await encodeDemTileWebp(heights, size, "terrarium", { lossy: true });
    expect(webpInfo(lossy)).toEqual({ kind: "lossy" });
    await expect(decodeDemTile(lossy, "terrarium", "8/133/90")).rejects.toThrow(/8\/133\/90: lossy WebP DEM tiles are refused.*lossless WebP or PNG/);
  });

  test("truncated, headerless and oversized WebP tiles are refused, not crashed on", async () => {
    const webp = await encodeDemTileWebp(heights, size, "terrarium");
    await expect(decodeDemTile(webp.slice(0, 40), "terrarium", "t")).rejects.toThrow(/not a readable WebP DEM tile/);
    const noImage = new Uint8Array([...new TextEncoder().encode("RIFF"), 4, 0, 0, 0, ...new TextEncoder().encode("WEBPJUNK"), 0, 0, 0, 0]);
    await expect(decodeDemTile(noImage, "terrarium", "t")).rejects.toThrow(/no VP8L image chunk/);
    // A VP8L header claiming 16384 x 16384 pixels (1 GiB of RGBA) is refused before libwebp allocates it.
    const huge = webp.slice();
    new DataView(huge.buffer).setUint32(21, 0x3fff | (0x3fff << 14), true);
    await expect(decodeDemTile(huge, "terrarium", "t")).rejects.toThrow(/16384x16384 pixels, larger than 4096x4096/);
  });
});

describe("webpSize: the size a WebP declares, read before decoding", () => {
  const riff = (chunk: string, payload: number[]) => {
    const bytes = new Uint8Array(20 + payload.length + 10);
    bytes.set([..."RIFF"].map((c) => c.charCodeAt(0)), 0);
    bytes.set([..."WEBP"].map((c) => c.charCodeAt(0)), 8);
    bytes.set([...chunk].map((c) => c.charCodeAt(0)), 12);
    new DataView(bytes.buffer).setUint32(16, payload.length, true);
    bytes.set(payload, 20);
    return bytes;
  };

  test("lossless, lossy (VP8 frame header) and extended (VP8X canvas) files", async () => {
    const lossless = await encodeDemTileWebp(new Float32Array(256 * 256), 256, "terrarium");
    expect(webpSize(lossless)).toEqual({ width: 256, height: 256 });
    // VP8: frame tag, start code 9d 01 2a, width 640 and height 480 (14 bits each, little-endian)
    expect(webpSize(riff("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 640 & 255, 640 >> 8, 480 & 255, 480 >> 8]))).toEqual({ width: 640, height: 480 });
    // VP8X: flags, then canvas width - 1 and height - 1 in 24 bits: a forged 16384 x 16384 canvas
    const big = 16383;
    expect(webpSize(riff("VP8X", [0x10, 0, 0, 0, big & 255, big >> 8, 0, big & 255, big >> 8, 0]))).toEqual({ width: 16384, height: 16384 });
    // a VP8 chunk without its start code, or no WebP at all
    expect(webpSize(riff("VP8 ", [0, 0, 0, 1, 2, 3, 0, 0, 0, 0]))).toBeNull();
    expect(webpSize(new Uint8Array(40))).toBeNull();
  });
});

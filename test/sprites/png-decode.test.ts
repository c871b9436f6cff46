// readPng's pixels for every colour type and bit depth, with and without tRNS, interlaced or not,
// checked against pngjs (an independent decoder) and against the pixels each test image was made of.
import { describe, expect, test } from "bun:test";
import { zlibSync } from "fflate";
import { PNG } from "pngjs";
import { PngError, readPng } from "../../src/sprites/png";
import { CHANNELS, encodeAnyPng, filteredData, type RawImage } from "../support/png-any-encoder";

const SIZES: [number, number][] = [
  [1, 1],
  [3, 5],
  [9, 9],
  [33, 17],
];
const COMBOS: [RawImage["colorType"], RawImage["bitDepth"][]][] = [
  [0, [1, 2, 4, 8, 16]],
  [2, [8, 16]],
  [3, [1, 2, 4, 8]],
  [4, [8, 16]],
  [6, [8, 16]],
];

/** A deterministic image: varied samples, and (with tRNS) some pixels equal to the key and some that miss it by one sample. */
function testImage(width: number, height: number, colorType: RawImage["colorType"], bitDepth: RawImage["bitDepth"], withTrns: boolean, interlaced: boolean): RawImage {
  const ch = CHANNELS[colorType]!;
  const max = colorType === 3 ? Math.min(2 ** bitDepth, 200) - 1 : 2 ** bitDepth - 1;
  let seed = width * 7919 + height * 104729 + colorType * 13 + bitDepth;
  const next = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed >>> 8;
  };
  const samples = new Uint16Array(width * height * ch);
  for (let i = 0; i < samples.length; i++) samples[i] = next() % (max + 1);
  // 16-bit: a key whose high byte is shared with near misses, so only a full 16-bit compare tells them apart
  const key = colorType === 2 ? [max >> 1, max >> 2, max] : [max >> 1];
  for (let px = 0; withTrns && colorType !== 3 && px < width * height; px++) {
    const pick = next() % 4;
    if (pick === 0) samples.set(key, px * ch);
    if (pick === 1) samples.set(key.map((k, i) => (i === key.length - 1 ? k ^ 1 : k)), px * ch);
  }
  const img: RawImage = { width, height, colorType, bitDepth, samples, interlaced };
  if (colorType === 3) {
    img.palette = Uint8Array.from({ length: (max + 1) * 3 }, (_, i) => (i * 53 + 17) & 255);
    // shorter than the palette: the entries past it are opaque
    if (withTrns) img.trns = Uint8Array.from({ length: Math.ceil((max + 1) / 2) }, (_, i) => (i * 97) & 255);
  } else if (withTrns) img.trns = Uint8Array.from(key.flatMap((k) => [k >> 8, k & 255]));
  return img;
}

/** The RGBA each pixel means, written from the spec: 16-bit samples reduce to round(v * 255 / 65535). */
function intended(img: RawImage): Uint8Array {
  const ch = CHANNELS[img.colorType]!;
  const to8 = (v: number) => (img.bitDepth === 16 ? Math.round((v * 255) / 65535) : (v * 255) / (2 ** img.bitDepth - 1));
  const key = img.trns && img.colorType !== 3 ? Array.from({ length: img.trns.length / 2 }, (_, i) => img.trns![2 * i]! * 256 + img.trns![2 * i + 1]!) : null;
  const out = new Uint8Array(img.width * img.height * 4);
  for (let px = 0; px < img.width * img.height; px++) {
    const s = [...img.samples.subarray(px * ch, px * ch + ch)];
    const clear = key !== null && key.every((k, i) => s[i] === k);
    let rgba: number[];
    if (img.colorType === 0) rgba = [to8(s[0]!), to8(s[0]!), to8(s[0]!), clear ? 0 : 255];
    else if (img.colorType === 2) rgba = [to8(s[0]!), to8(s[1]!), to8(s[2]!), clear ? 0 : 255];
    else if (img.colorType === 3) rgba = [...img.palette!.subarray(s[0]! * 3, s[0]! * 3 + 3), img.trns?.[s[0]!] ?? 255];
    else if (img.colorType === 4) rgba = [to8(s[0]!), to8(s[0]!), to8(s[0]!), to8(s[1]!)];
    else rgba = s.map(to8);
    out.set(rgba, px * 4);
  }
  return out;
}

/** pngjs blanks the colour of a pixel that tRNS makes transparent (readPng keeps it, as libpng does): compare as pngjs sees it. */
const blankClear = (rgba: Uint8Array) => rgba.map((v, i, a) => (a[i - (i % 4) + 3] === 0 ? 0 : v));

describe("readPng decodes every colour type and bit depth", () => {
  for (const [colorType, depths] of COMBOS)
    for (const bitDepth of depths)
      for (const withTrns of colorType === 4 || colorType === 6 ? [false] : [false, true])
        test(`colour type ${colorType}, ${bitDepth}-bit${withTrns ? ", tRNS" : ""}, interlaced and not`, () => {
          for (const [width, height] of SIZES)
            for (const interlaced of [false, true]) {
              const img = testImage(width, height, colorType, bitDepth, withTrns, interlaced);
              const png = encodeAnyPng(img);
              const want = intended(img);
              const where = `${width}x${height}${interlaced ? " interlaced" : ""}`;
              // the encoder itself, checked by pngjs
              const oracle = PNG.sync.read(Buffer.from(png));
              const pngjsView = withTrns && colorType !== 3 ? blankClear(want) : want;
              expect({ where, pixels: [...oracle.data] }).toEqual({ where, pixels: [...pngjsView] });
              // then the reader under test, exactly
              const got = readPng(png, { pixels: true });
              expect({ where, interlaced: got.interlaced, bitDepth: got.bitDepth }).toEqual({ where, interlaced, bitDepth });
              expect({ where, pixels: [...got.data!] }).toEqual({ where, pixels: [...want] });
            }
        });

  test("the test images do hold transparent keys, near misses and empty Adam7 passes", () => {
    const img = testImage(33, 17, 2, 16, true, true);
    const alphas = intended(img).filter((_, i) => i % 4 === 3);
    expect(alphas.includes(0)).toBe(true);
    expect(alphas.includes(255)).toBe(true);
    // a 1x1 interlaced image has only pass 1; 3x5 leaves passes 2 and 4 partially or wholly empty
    expect(filteredData({ ...testImage(1, 1, 0, 8, false, true) }).length).toBe(2);
  });
});

describe("readPng refuses broken interlaced and odd images with a PngError naming the problem", () => {
  const img = testImage(9, 9, 6, 8, false, true);
  const data = filteredData(img);

  test("truncated interlaced data", () => {
    const z = zlibSync(data);
    expectPngError(() => readPng(encodeAnyPng(img, z.subarray(0, z.length - 30)), { pixels: true }), /does not inflate/);
  });

  test("a pass with too few bytes", () => {
    // the last pass (7: rows 1, 3, 5, 7 at full width) lacks its final byte
    expectPngError(() => readPng(encodeAnyPng(img, zlibSync(data.subarray(0, data.length - 1))), { pixels: true }), /holds \d+ bytes, the header promises \d+ \(the data ends in Adam7 pass 7\)/);
  });

  test("a bad filter type byte", () => {
    const bad = data.slice();
    // pass 1 of a 9x9 RGBA image is 2 rows of 2 pixels, each row a filter byte and 8 bytes; pass 2 starts after them
    bad[2 * (1 + 2 * 4)] = 5;
    expectPngError(() => readPng(encodeAnyPng(img, zlibSync(bad)), { pixels: true }), /bad filter type 5 on row 0 of Adam7 pass 2/);
  });

  test("a 16-bit palette image", () => {
    const pal = encodeAnyPng({ width: 2, height: 2, colorType: 3, bitDepth: 16, samples: new Uint16Array(4), palette: new Uint8Array(3) });
    expectPngError(() => readPng(pal, { pixels: true }), /unsupported color type 3 with bit depth 16/);
  });

  test("huge dimensions are refused before inflating, interlaced or not, any depth", () => {
    for (const interlaced of [false, true])
      for (const bitDepth of [1, 16] as const) {
        const huge = encodeAnyPng({ width: 100000, height: 100000, colorType: 0, bitDepth, samples: new Uint16Array(0), interlaced }, zlibSync(new Uint8Array(1)));
        expectPngError(() => readPng(huge, { pixels: true, maxPixels: 2048 * 2048 }), /image of 100000x100000 pixels is too large/);
      }
  });

  test("without a pixel limit, a header asking for more memory than there is is still a PngError", () => {
    const huge = encodeAnyPng({ width: 0x7fffffff, height: 0x7fffffff, colorType: 6, bitDepth: 16, samples: new Uint16Array(0) }, zlibSync(new Uint8Array(1)));
    expectPngError(() => readPng(huge, { pixels: true }), /too large/);
  });
});

function expectPngError(fn: () => unknown, message: RegExp) {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(PngError);
  expect((caught as Error).message).toMatch(message);
}

describe("readPng takes what libpng takes", () => {
  const img = testImage(9, 9, 6, 8, false, false);
  const data = filteredData(img);

  test("a zlib stream holding more than the header promises decodes, the excess dropped", () => {
    const longer = new Uint8Array(data.length + 40);
    longer.set(data);
    expect(readPng(encodeAnyPng(img, zlibSync(longer)), { pixels: true }).data).toEqual(intended(img));
  });

  test("a zlib stream whose Adler-32 checksum is wrong still decodes (libpng and browsers draw it)", () => {
    const z = zlibSync(data);
    z[z.length - 1]! ^= 0xff;
    expect(readPng(encodeAnyPng(img, z), { pixels: true }).data).toEqual(intended(img));
  });
});

import { describe, expect, test } from "bun:test";
import { buildSprite, SpriteInputError, MAX_ICONS } from "../../src/sprites/build";
import { svgIconsFromZip } from "../../src/sprites/unzip";
import { readPng } from "../../src/sprites/png";
import { checkReadySheet } from "../../src/sprites/ready-pair";
import { enc, pinSvg, squareSvg, zipOf } from "./fixtures";

function pixel(png: Uint8Array, x: number, y: number) {
  const img = readPng(png, { pixels: true });
  const i = (y * img.width + x) * 4;
  return [...img.data!.slice(i, i + 4)];
}

describe("sprite building", () => {
  test("packs every icon at 1x and 2x, each entry pointing at its own pixels", async () => {
    const set = await buildSprite([
      { name: "red", bytes: enc(squareSvg("#ff0000", 16)) },
      { name: "blue", bytes: enc(squareSvg("#0000ff", 10)) },
      { name: "pin", bytes: enc(pinSvg) },
    ]);
    const one = set["1x"];
    const two = set["2x"];
    expect(Object.keys(one.index)).toEqual(["blue", "pin", "red"]);
    expect(one.index.red).toMatchObject({ width: 16, height: 16, pixelRatio: 1 });
    expect(two.index.red).toMatchObject({ width: 32, height: 32, pixelRatio: 2 });
    expect(two.index.pin).toMatchObject({ width: 40, height: 48 });
    // The middle of each square is its colour, fully opaque, in both sheets.
    const mid = (e: { x: number; y: number; width: number; height: number }) => [e.x + (e.width >> 1), e.y + (e.height >> 1)] as const;
    expect(pixel(one.png, ...mid(one.index.red!))).toEqual([255, 0, 0, 255]);
    expect(pixel(one.png, ...mid(one.index.blue!))).toEqual([0, 0, 255, 255]);
    expect(pixel(two.png, ...mid(two.index.blue!))).toEqual([0, 0, 255, 255]);
    // Pin: white dot at its centre of (10,10), transparent corner at (0,23).
    expect(pixel(one.png, one.index.pin!.x + 10, one.index.pin!.y + 10)).toEqual([255, 255, 255, 255]);
    expect(pixel(one.png, one.index.pin!.x, one.index.pin!.y + 23)[3]).toBe(0);
    // No two entries overlap.
    const boxes = Object.values(one.index);
    for (const a of boxes)
      for (const b of boxes)
        if (a !== b) expect(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y).toBe(true);
  });

  test("semi-transparent colours come out straight, not premultiplied", async () => {
    const set = await buildSprite([{ name: "half", bytes: enc(`<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#ff0000" fill-opacity="0.5"/></svg>`) }]);
    const e = set["1x"].index.half!;
    const [r, g, b, a] = pixel(set["1x"].png, e.x + 4, e.y + 4);
    expect([r, g, b]).toEqual([255, 0, 0]);
    expect(Math.abs(a! - 128)).toBeLessThanOrEqual(1);
  });

  test("refuses too many icons, oversized icons, duplicates, broken and unsafe SVGs with the icon named", async () => {
    const many = Array.from({ length: MAX_ICONS + 1 }, (_, i) => ({ name: `i${i}`, bytes: enc(squareSvg("#000", 2)) }));
    await expect(buildSprite(many)).rejects.toThrow(/limit is 500/);
    await expect(buildSprite([{ name: "big", bytes: enc(squareSvg("#000", 4000)) }])).rejects.toThrow(/'big' is 4000x4000 px/);
    await expect(buildSprite([{ name: "a", bytes: enc(squareSvg("#000")) }, { name: "a", bytes: enc(squareSvg("#000")) }])).rejects.toThrow(/twice/);
    await expect(buildSprite([{ name: "broken", bytes: enc("<svg xmlns='http://www.w3.org/2000/svg'><rect") }])).rejects.toThrow(/'broken' is not a valid SVG/);
    await expect(buildSprite([{ name: "evil", bytes: enc(`<svg xmlns="http://www.w3.org/2000/svg"><use href="https://x.example/a.svg"/></svg>`) }])).rejects.toThrow(/'evil'.*outside/);
    await expect(buildSprite([])).rejects.toThrow(SpriteInputError);
  });
});

describe("sprite zips", () => {
  test("reads SVG icons, skipping OS clutter, naming icons after their files", () => {
    const icons = svgIconsFromZip(zipOf({ "icons/park.svg": squareSvg("#0f0"), "shop.SVG": squareSvg("#00f"), "__MACOSX/._park.svg": "junk", ".DS_Store": "junk" }));
    expect(icons.map((i) => i.name).sort()).toEqual(["park", "shop"]);
  });

  test("refuses path traversal, absolute paths, other files, non-zips and zip bombs", () => {
    expect(() => svgIconsFromZip(zipOf({ "../evil.svg": squareSvg("#000") }))).toThrow(/unsafe path/);
    expect(() => svgIconsFromZip(zipOf({ "/etc/evil.svg": squareSvg("#000") }))).toThrow(/unsafe path/);
    expect(() => svgIconsFromZip(zipOf({ "a.png": "x" }))).toThrow(/not an .svg/);
    expect(() => svgIconsFromZip(enc("not a zip at all, just text"))).toThrow(/not a zip/);
    expect(() => svgIconsFromZip(zipOf({ "__MACOSX/x": "y" }))).toThrow(/no .svg files/);
    // 50 MB of zeros compresses to ~50 KB: refused by its declared size before inflating.
    expect(() => svgIconsFromZip(zipOf({ "bomb.svg": new Uint8Array(50 * 1024 * 1024) }))).toThrow(/over the 1048576 byte limit/);
  });

  test("a zip whose header lies about the size cannot inflate past the declared size", () => {
    const zip = zipOf({ "liar.svg": new Uint8Array(5 * 1024 * 1024).fill(0x20) });
    const view = new DataView(zip.buffer);
    for (let i = 0; i < zip.length - 4; i++) {
      const sig = view.getUint32(i, true);
      if (sig === 0x04034b50) view.setUint32(i + 22, 100, true);
      if (sig === 0x02014b50) view.setUint32(i + 24, 100, true);
    }
    const icons = svgIconsFromZip(zip);
    expect(icons[0]!.bytes.length).toBeLessThanOrEqual(100);
  });
});

describe("ready sprite pairs", () => {
  test("accepts entries inside the image and refuses entries outside it or a PNG that does not decode", async () => {
    const set = await buildSprite([{ name: "a", bytes: enc(squareSvg("#000", 8)) }]);
    const png = set["1x"].png;
    const ok = checkReadySheet("sprite", enc(JSON.stringify({ a: { x: 2, y: 2, width: 8, height: 8, pixelRatio: 1 } })), png);
    expect(ok.index.a!.width).toBe(8);
    expect(() => checkReadySheet("sprite", enc(JSON.stringify({ a: { x: 5, y: 2, width: 8, height: 8, pixelRatio: 1 } })), png)).toThrow(/outside the 12x12 image/);
    expect(() => checkReadySheet("sprite", enc(JSON.stringify({ a: { x: -1, y: 0, width: 1, height: 1 } })), png)).toThrow(/non-negative integer/);
    expect(() => checkReadySheet("sprite", enc("[1,2]"), png)).toThrow(/must be an object/);
    expect(() => checkReadySheet("sprite", enc("{"), png)).toThrow(/not valid JSON/);
    expect(() => checkReadySheet("sprite", enc("{}"), png.slice(0, 40))).toThrow(/does not decode/);
  });
});

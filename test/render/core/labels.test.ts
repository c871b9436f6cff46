// Labels: text from the installed fonts with halos, anchors, wrapping, placement along lines, and
// collision so labels do not overlap (top layer and lower symbol-sort-key first).
import { describe, expect, test } from "bun:test";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { renderMap } from "../../../src/render";
import { encodePng } from "../../../src/sprites/png";
import { box, count, line, near, pixels, point, resources, type Pixels } from "./fixtures";

const BG = { id: "bg", type: "background", paint: { "background-color": "#ffffff" } };
const view = { center: [0, 0] as [number, number], zoom: 4, bearing: 0, width: 256, height: 256, pixelRatio: 1 as const };

function labels(extra: Record<string, unknown> = {}, paint: Record<string, unknown> = {}, id = "t") {
  return {
    id,
    type: "symbol",
    source: "v",
    "source-layer": "pts",
    layout: { "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 16, ...extra },
    paint: { "text-color": "#000000", ...paint },
  };
}

async function render(features: GeoJSON.Feature[], layers: unknown[], layerName = "pts"): Promise<Pixels> {
  const res = await resources({ vector: { v: { layers: { [layerName]: features } } } });
  const style = { version: 8, sources: { v: { type: "vector" } }, layers } as StyleSpecification;
  return pixels(await renderMap(style, view, res));
}

const dark = (px: [number, number, number, number]) => px[0] < 128 && px[1] < 128 && px[2] < 128;

/** Bounding box of the pixels that pass. */
function inkBox(p: Pixels, test: (px: [number, number, number, number]) => boolean) {
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  for (let y = 0; y < p.height; y++)
    for (let x = 0; x < p.width; x++)
      if (test(p.at(x, y))) {
        x1 = Math.min(x1, x);
        y1 = Math.min(y1, y);
        x2 = Math.max(x2, x);
        y2 = Math.max(y2, y);
      }
  return { x1, y1, x2, y2, width: x2 - x1 + 1, height: y2 - y1 + 1 };
}

describe("text", () => {
  test("a label is drawn centred on its point, about as tall as its size", async () => {
    const p = await render([point(0, 0, { name: "Hamburg" })], [BG, labels()]);
    const ink = inkBox(p, dark);
    expect(count(p, dark)).toBeGreaterThan(100);
    expect(Math.abs((ink.x1 + ink.x2) / 2 - 128)).toBeLessThan(3);
    expect(Math.abs((ink.y1 + ink.y2) / 2 - 128)).toBeLessThan(4);
    expect(ink.height).toBeGreaterThan(10);
    expect(ink.height).toBeLessThan(18);
    expect(ink.width).toBeGreaterThan(55);
    expect(ink.width).toBeLessThan(85);
  });

  test("text-size scales the label", async () => {
    const small = inkBox(await render([point(0, 0, { name: "Hamburg" })], [BG, labels()]), dark);
    const big = inkBox(await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-size": 32 })]), dark);
    expect(big.width / small.width).toBeGreaterThan(1.8);
    expect(big.width / small.width).toBeLessThan(2.2);
  });

  test("the halo surrounds the text in its colour", async () => {
    const p = await render([point(0, 0, { name: "Hamburg" })], [BG, labels({}, { "text-halo-color": "#ff0000", "text-halo-width": 2 })]);
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 40);
    expect(count(p, red)).toBeGreaterThan(150);
    const ink = inkBox(p, dark);
    const halo = inkBox(p, red);
    expect(halo.x1).toBeLessThan(ink.x1);
    expect(halo.x2).toBeGreaterThan(ink.x2);
  });

  test("text-halo-blur fades the halo out instead of ending it sharply", async () => {
    const features = [point(0, 0, { name: "Hamburg" })];
    const paint = { "text-halo-color": "#ff0000", "text-halo-width": 2 };
    const crisp = await render(features, [BG, labels({}, paint)]);
    const unblurred = await render(features, [BG, labels({}, { ...paint, "text-halo-blur": 0 })]);
    const blurred = await render(features, [BG, labels({}, { ...paint, "text-halo-blur": 2 })]);
    let differ = 0;
    for (let y = 0; y < crisp.height; y++) for (let x = 0; x < crisp.width; x++) if (unblurred.at(x, y).join() !== crisp.at(x, y).join()) differ++;
    expect(differ).toBe(0);
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 40);
    // pink: red laid partly over the white background
    const pink = (px: [number, number, number, number]) => px[0] > 200 && px[1] > 60 && px[1] < 200 && Math.abs(px[1] - px[2]) < 20;
    expect(count(blurred, red)).toBeLessThan(count(crisp, red) * 0.7);
    expect(count(blurred, pink)).toBeGreaterThan(count(crisp, pink) * 2);
    // the fade reaches past the crisp halo's edge
    const reach = (p: Pixels) => inkBox(p, (px) => px[1] < 250);
    expect(reach(blurred).x1).toBeLessThan(reach(crisp).x1);
    expect(reach(blurred).x2).toBeGreaterThan(reach(crisp).x2);
  });

  test("text-halo-blur fades the halo of turned text too (drawn as outlines, not glyph masks)", async () => {
    const features = [point(0, 0, { name: "Hamburg" })];
    const paint = { "text-halo-color": "#ff0000", "text-halo-width": 2 };
    const crisp = await render(features, [BG, labels({ "text-rotate": 30 }, paint)]);
    const blurred = await render(features, [BG, labels({ "text-rotate": 30 }, { ...paint, "text-halo-blur": 2 })]);
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 40);
    const pink = (px: [number, number, number, number]) => px[0] > 200 && px[1] > 60 && px[1] < 200 && Math.abs(px[1] - px[2]) < 20;
    expect(count(blurred, red)).toBeLessThan(count(crisp, red) * 0.7);
    expect(count(blurred, pink)).toBeGreaterThan(count(crisp, pink) * 2);
    const reach = (p: Pixels) => inkBox(p, (px) => px[1] < 250);
    expect(reach(blurred).x1).toBeLessThan(reach(crisp).x1);
    expect(reach(blurred).x2).toBeGreaterThan(reach(crisp).x2);
  });

  test("text-anchor top puts the text below the point; text-offset moves it in ems", async () => {
    const top = inkBox(await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-anchor": "top" })]), dark);
    expect(top.y1).toBeGreaterThanOrEqual(128);
    const left = inkBox(await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-anchor": "left", "text-offset": [1, 0] })]), dark);
    expect(left.x1).toBeGreaterThanOrEqual(128 + 14);
    expect(left.x1).toBeLessThan(128 + 22);
  });

  test("text-max-width wraps long names onto several lines", async () => {
    const name = "Saint Petersburg Central Railway Station";
    const wrapped = inkBox(await render([point(0, 0, { name })], [BG, labels({ "text-max-width": 6 })]), dark);
    const oneLine = inkBox(await render([point(0, 0, { name })], [BG, labels({ "text-max-width": 100 })]), dark);
    expect(wrapped.height).toBeGreaterThan(oneLine.height * 2);
    expect(wrapped.width).toBeLessThan(oneLine.width / 2);
  });

  test("a newline starts a new line, as MapLibre draws {name:latin}\\n{name:nonlatin}; line labels ignore it", async () => {
    const oneLine = inkBox(await render([point(0, 0, { a: "Hamburg", b: "Hamburg" })], [BG, labels({ "text-field": "{a}{b}" })]), dark);
    const two = inkBox(await render([point(0, 0, { a: "Hamburg", b: "Hamburg" })], [BG, labels({ "text-field": "{a}\n{b}" })]), dark);
    expect(two.height).toBeGreaterThan(oneLine.height * 1.8);
    expect(two.width).toBeLessThan(oneLine.width * 0.6);
    // In a format expression too, and with a text-max-width the text would fit in.
    const formatted = inkBox(
      await render([point(0, 0, { name: "London", pop: "8900000" })], [BG, labels({ "text-max-width": 50, "text-field": ["format", ["get", "name"], {}, "\n", {}, ["get", "pop"], {}] })]),
      dark,
    );
    expect(formatted.height).toBeGreaterThan(oneLine.height * 1.8);
  });

  test("text-max-width breaks after hyphens too, as MapLibre does", async () => {
    const name = "Saint-Martin-de-Belleville";
    const wrapped = inkBox(await render([point(0, 0, { name })], [BG, labels({ "text-max-width": 6 })]), dark);
    const oneLine = inkBox(await render([point(0, 0, { name })], [BG, labels({ "text-max-width": 100 })]), dark);
    expect(wrapped.height).toBeGreaterThan(oneLine.height * 1.8);
    expect(wrapped.width).toBeLessThan(oneLine.width * 0.7);
  });

  test("text-transform and format sections (font-scale, text-color) apply", async () => {
    const lower = await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-transform": "lowercase" })]);
    const upper = await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-transform": "uppercase" })]);
    expect(inkBox(upper, dark).width).toBeGreaterThan(inkBox(lower, dark).width);
    const formatted = await render(
      [point(0, 0, { name: "Big" })],
      [BG, labels({ "text-field": ["format", ["get", "name"], { "font-scale": 2, "text-color": "#0000ff" }] })],
    );
    const blue = (px: [number, number, number, number]) => near(px, [0, 0, 255], 60);
    expect(inkBox(formatted, blue).height).toBeGreaterThan(20);
  });

  test("legacy {token} text fields are filled from properties", async () => {
    const p = await render([point(0, 0, { name: "Hamburg" })], [BG, labels({ "text-field": "{name}" })]);
    expect(inkBox(p, dark).width).toBeGreaterThan(55);
  });
});

describe("collision", () => {
  const two = [point(0, 0, { name: "Hamburg", rank: 2, color: "#ff0000" }), point(0.3, 0.1, { name: "Hamburg", rank: 1, color: "#0000ff" })];
  const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 60);
  const blue = (px: [number, number, number, number]) => near(px, [0, 0, 255], 60);

  test("two overlapping labels are not both drawn, unless text-allow-overlap", async () => {
    const single = count(await render([two[0]!], [BG, labels()]), dark);
    const both = count(await render(two, [BG, labels()]), dark);
    expect(both).toBeLessThan(single * 1.15);
    const overlapping = count(await render(two, [BG, labels({ "text-allow-overlap": true })]), dark);
    expect(overlapping).toBeGreaterThan(single * 1.3);
  });

  test("the lower symbol-sort-key wins", async () => {
    const p = await render(two, [BG, labels({ "symbol-sort-key": ["get", "rank"] }, { "text-color": ["get", "color"] })]);
    expect(count(p, blue)).toBeGreaterThan(50);
    expect(count(p, red)).toBe(0);
    const q = await render(two, [BG, labels({ "symbol-sort-key": ["-", 0, ["get", "rank"]] }, { "text-color": ["get", "color"] })]);
    expect(count(q, red)).toBeGreaterThan(50);
    expect(count(q, blue)).toBe(0);
  });

  test("the upper layer is placed first; text-ignore-placement lets the lower one draw anyway", async () => {
    const layers = (ignore: boolean) => [
      BG,
      labels({ "text-ignore-placement": ignore, "text-allow-overlap": ignore, "text-offset": [0, 0.6] }, { "text-color": "#0000ff" }, "lower"),
      labels({}, { "text-color": "#ff0000" }, "upper"),
    ];
    const p = await render([two[0]!], layers(false));
    expect(count(p, red)).toBeGreaterThan(50);
    expect(count(p, blue)).toBe(0);
    const q = await render([two[0]!], layers(true));
    expect(count(q, blue)).toBeGreaterThan(20);
  });
});

describe("icons with text", () => {
  test("icon-text-fit stretches the icon around the label, with its padding", async () => {
    const res = await resources({ vector: { v: { layers: { pts: [point(0, 0, { name: "Long label text" })] } } } }, { sprite: true });
    const shield = (fit: string) =>
      ({
        version: 8,
        sources: { v: { type: "vector" } },
        layers: [BG, labels({ "icon-image": "square", "icon-text-fit": fit, "icon-text-fit-padding": [2, 6, 2, 6] })],
      }) as StyleSpecification;
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 30);
    const fitted = pixels(await renderMap(shield("both"), view, res));
    const plain = pixels(await renderMap(shield("none"), view, res));
    const text = inkBox(fitted, dark);
    const box = inkBox(fitted, red);
    expect(inkBox(plain, red).width).toBeLessThanOrEqual(21); // the 20-px icon as is
    expect(box.x1).toBeLessThan(text.x1 - 3);
    expect(box.x2).toBeGreaterThan(text.x2 + 3);
    expect(box.y1).toBeLessThan(text.y1);
    expect(box.y2).toBeGreaterThan(text.y2);
    expect(box.width).toBeLessThan(text.width + 20);
  });
});

describe("images inside text (format's image sections)", () => {
  const formatted = (image: unknown[] | null) => ["format", "Ab ", {}, ...(image ? [image, {}] : []), " cd", {}];
  const renderWithSprite = async (features: GeoJSON.Feature[], layers: unknown[]) => {
    const res = await resources({ vector: { v: { layers: { pts: features } } } }, { sprite: true });
    return pixels(await renderMap({ version: 8, sources: { v: { type: "vector" } }, layers } as StyleSpecification, view, res));
  };
  const green = (px: [number, number, number, number]) => near(px, [0, 128, 0], 30);
  const yellow = (px: [number, number, number, number]) => near(px, [255, 255, 0], 30);
  const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 30);

  test("an image is drawn inline between the text parts, at its sprite size", async () => {
    const p = await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": formatted(["image", "stripes"]) })]);
    const g = inkBox(p, green);
    const y = inkBox(p, yellow);
    // the 8-px stripes image: green half, then yellow half, left to right
    expect(count(p, green)).toBeGreaterThan(20);
    expect(count(p, yellow)).toBeGreaterThan(20);
    expect(g.x2).toBeLessThan(y.x1);
    expect(y.x2 - g.x1 + 1).toBeGreaterThanOrEqual(7);
    expect(y.x2 - g.x1 + 1).toBeLessThanOrEqual(9);
    // text on both sides of it, on the same line
    const ink = inkBox(p, dark);
    expect(count(p, dark, { x1: 0, y1: 0, x2: g.x1 - 2, y2: 256 })).toBeGreaterThan(20);
    expect(count(p, dark, { x1: y.x2 + 2, y1: 0, x2: 256, y2: 256 })).toBeGreaterThan(20);
    expect(g.y1).toBeGreaterThanOrEqual(ink.y1 - 2);
    expect(g.y2).toBeLessThanOrEqual(ink.y2 + 2);
  });

  test("the image widens the label by its advance; an expression may name it", async () => {
    const plain = inkBox(await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": formatted(null) })]), dark);
    const p = await renderWithSprite([point(0, 0, { shield: "square" })], [BG, labels({ "text-field": formatted(["image", ["get", "shield"]]) })]);
    const withImage = inkBox(p, dark);
    expect(inkBox(p, red).width).toBe(20);
    expect(withImage.width - plain.width).toBeGreaterThanOrEqual(18);
    expect(withImage.width - plain.width).toBeLessThanOrEqual(22);
  });

  test("an image the sprite lacks is left out: the text is drawn alone", async () => {
    const plain = await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": formatted(null) })]);
    const missing = await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": formatted(["image", "no-such-image"]) })]);
    expect(inkBox(missing, dark)).toEqual(inkBox(plain, dark));
    expect(count(missing, dark)).toBe(count(plain, dark));
  });

  test("an image alone is a label, and text-opacity fades it", async () => {
    const layer = (opacity: number) => labels({ "text-field": ["format", ["image", "square"], {}] }, { "text-opacity": opacity });
    const full = await renderWithSprite([point(0, 0)], [BG, layer(1)]);
    // the 20x20 square, less a row or column where it straddles pixels
    expect(count(full, red)).toBeGreaterThanOrEqual(360);
    expect(count(full, red)).toBeLessThanOrEqual(400);
    const faded = await renderWithSprite([point(0, 0)], [BG, layer(0.5)]);
    expect(near(faded.at(128, 128), [255, 128, 128], 3)).toBe(true);
  });

  test("a tall image makes its line taller, and the next line moves down", async () => {
    const field = (image: unknown[] | null) => ["format", "Ab\ncd ", {}, ...(image ? [image, {}] : [])];
    const plain = inkBox(await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": field(null) })]), dark);
    const tall = inkBox(await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": field(["image", "square"]), "text-size": 10 })]), dark);
    const short = inkBox(await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": field(null), "text-size": 10 })]), dark);
    expect(plain.height).toBeGreaterThan(short.height); // text-size still scales the text
    // the 20-px image is taller than the 10-px em: the second line grows by the difference
    expect(tall.height - short.height).toBeGreaterThanOrEqual(8);
    expect(tall.height - short.height).toBeLessThanOrEqual(12);
  });

  test("text-max-width counts the image, which is never split from its neighbours", async () => {
    const field = ["format", "Ab cd", {}, ["image", "square"], {}, "ef", {}];
    const one = inkBox(await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": field, "text-max-width": 20 })]), dark);
    const p = await renderWithSprite([point(0, 0)], [BG, labels({ "text-field": field, "text-max-width": 3 })]);
    const two = inkBox(p, dark);
    expect(two.height).toBeGreaterThan(one.height + 10);
    // the image stays on the second line, between "cd" and "ef"
    const r = inkBox(p, red);
    expect(r.y1).toBeGreaterThan(two.y1 + 10);
    expect(count(p, dark, { x1: 0, y1: r.y1, x2: r.x1, y2: r.y2 + 1 })).toBeGreaterThan(20);
    expect(count(p, dark, { x1: r.x2 + 1, y1: r.y1, x2: 256, y2: r.y2 + 1 })).toBeGreaterThan(20);
  });

  test("along a line the image is drawn on the line, turned with it", async () => {
    const res = await resources({ vector: { v: { layers: { roads: [line([[-4, -4], [4, 4]], { name: "Long Street" })] } } } }, { sprite: true });
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        BG,
        {
          id: "t",
          type: "symbol",
          source: "v",
          "source-layer": "roads",
          layout: { "symbol-placement": "line", "text-field": ["format", "Long ", {}, ["image", "square"], {}, " Street", {}], "text-font": ["Noto Sans Regular"], "text-size": 14 },
          paint: { "text-color": "#000000" },
        },
      ],
    } as StyleSpecification;
    const p = pixels(await renderMap(style, view, res));
    const r = inkBox(p, red);
    expect(count(p, red)).toBeGreaterThan(250);
    // turned 45 degrees: its box is wider than the 20-px image, and it lies on the diagonal
    expect(r.width).toBeGreaterThan(24);
    expect(Math.abs((r.x1 + r.x2) / 2 + (r.y1 + r.y2) / 2 - 256)).toBeLessThan(12);
    // text on both sides of it along the line
    expect(count(p, dark, { x1: 0, y1: r.y2, x2: r.x1, y2: 256 })).toBeGreaterThan(20);
    expect(count(p, dark, { x1: r.x2, y1: 0, x2: 256, y2: r.y1 })).toBeGreaterThan(20);
  });
});

describe("SDF icons", () => {
  test("an SDF sprite image is drawn in icon-color", async () => {
    // a 16x16 SDF disc: distance encoded in alpha, 0.75 at radius 6
    const data = new Uint8Array(16 * 16 * 4);
    for (let y = 0; y < 16; y++)
      for (let x = 0; x < 16; x++) data[(y * 16 + x) * 4 + 3] = Math.max(0, Math.min(255, Math.round((0.75 + (6 - Math.hypot(x - 7.5, y - 7.5)) / 16) * 255)));
    const base = await resources({ vector: { v: { layers: { pts: [point(0, 0)] } } } });
    const res = { ...base, sprite: async () => ({ json: { disc: { x: 0, y: 0, width: 16, height: 16, pixelRatio: 1, sdf: true } }, png: encodePng({ width: 16, height: 16, data }) }) };
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [BG, { id: "i", type: "symbol", source: "v", "source-layer": "pts", layout: { "icon-image": "disc" }, paint: { "icon-color": "#00c000" } }],
    } as StyleSpecification;
    const p = pixels(await renderMap(style, view, res));
    const green = (px: [number, number, number, number]) => near(px, [0, 0xc0, 0], 10);
    expect(green(p.at(128, 128))).toBe(true);
    expect(count(p, green)).toBeGreaterThan(50); // a disc of radius ~6
    expect(near(p.at(128 + 9, 128), [255, 255, 255], 0)).toBe(true);
    expect(count(p, green)).toBeLessThan(140);
  });
});

describe("variable anchors", () => {
  test("text-variable-anchor tries the next anchor when the first collides", async () => {
    const features = [point(0, 0, { name: "Hamburg" }), point(0, -1.1, { name: "Blocker" })];
    const layers = [
      BG,
      { ...labels({ "text-variable-anchor": ["top", "bottom"], "text-radial-offset": 0.5 }), filter: ["==", ["get", "name"], "Hamburg"] },
      { ...labels({}, {}, "blocker"), filter: ["==", ["get", "name"], "Blocker"] },
    ];
    const free = inkBox(await render([features[0]!], [BG, layers[1]!]), dark);
    expect(free.y1).toBeGreaterThan(128); // first choice: below the point
    const p = await render(features, layers);
    const ink = inkBox(p, dark);
    expect(count(p, dark, { x1: 0, y1: 0, x2: 256, y2: 127 })).toBeGreaterThan(100); // moved above the point
    expect(ink.y1).toBeLessThan(128);
  });
});

describe("placement along lines", () => {
  test("symbol-placement line writes the name along the line, upright", async () => {
    const res = await resources({ vector: { v: { layers: { roads: [line([[-4, -4], [4, 4]], { name: "Long Street Name" })] } } } });
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        BG,
        {
          id: "t",
          type: "symbol",
          source: "v",
          "source-layer": "roads",
          layout: { "symbol-placement": "line", "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 14 },
          paint: { "text-color": "#000000" },
        },
      ],
    } as StyleSpecification;
    const p = pixels(await renderMap(style, view, res));
    const ink = inkBox(p, dark);
    // the line runs from bottom-left to top-right: the label spans both directions about equally
    expect(ink.width).toBeGreaterThan(60);
    expect(ink.height).toBeGreaterThan(60);
    // every dark pixel lies close to the line y = 256 - x (the diagonal through the centre)
    let far = 0;
    for (let y = 0; y < 256; y++) for (let x = 0; x < 256; x++) if (dark(p.at(x, y)) && Math.abs(x + y - 256) / Math.SQRT2 > 14) far++;
    expect(far).toBe(0);
  });

  test("a label is not bent around a sharp corner (text-max-angle) but follows a gentle curve", async () => {
    const draw = async (coords: [number, number][]) => {
      const res = await resources({ vector: { v: { layers: { roads: [line(coords, { name: "Curvy Road Name" })] } } } });
      const style = {
        version: 8,
        sources: { v: { type: "vector" } },
        layers: [
          BG,
          {
            id: "t",
            type: "symbol",
            source: "v",
            "source-layer": "roads",
            layout: { "symbol-placement": "line-center", "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 14 },
            paint: { "text-color": "#000000" },
          },
        ],
      } as StyleSpecification;
      return count(pixels(await renderMap(style, view, res)), dark);
    };
    // a right angle in the middle of the line, where line-center puts the label
    expect(await draw([[-3, 0], [0, 0], [0, 3]])).toBe(0);
    // a quarter circle of radius 4 degrees (about 90 px): the label turns a little per glyph
    const arc = Array.from({ length: 30 }, (_, i) => {
      const a = (i / 29) * (Math.PI / 2);
      return [-4 + 4 * Math.sin(a), -4 + 4 * Math.cos(a) + 4] as [number, number];
    });
    expect(await draw(arc)).toBeGreaterThan(100);
  });
});

describe("placement along lines, as MapLibre lays out overzoomed tiles", () => {
  // The review's town scene: a straight 1 km street along the equator, which is the edge between the
  // tiles above and below it, seen at zoom 15.2 from maxzoom-14 tiles. MapLibre (6, which slices an
  // overzoomed tile into those of the view's whole zoom) labels it at two spots, x ~89 and ~390: half a
  // spacing in from the z15 tile edges at lon 0 (x 246.5) and lon -0.011 (x -341.5).
  test("a street on a tile edge is labelled where MapLibre labels it, and not cut off at the image's edge", async () => {
    const res = await resources({ vector: { v: { maxzoom: 14, layers: { roads: [line([[-0.016, 0], [0.016, 0]], { name: "Ash Avenue" })] } } } });
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        BG,
        {
          id: "t",
          type: "symbol",
          source: "v",
          "source-layer": "roads",
          layout: { "symbol-placement": "line", "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 12, "text-transform": "uppercase", "text-letter-spacing": 0.1 },
          paint: { "text-color": "#000000" },
        },
      ],
    } as StyleSpecification;
    const p = pixels(await renderMap(style, { center: [0.001, 0.0005], zoom: 15.2, bearing: 0, width: 600, height: 500, pixelRatio: 1 }, res));
    const inkIn = (x1: number, x2: number) => count(p, dark, { x1, y1: 265, x2, y2: 290 });
    // the street is at y ~277; each "ASH AVENUE" is about 83 px long
    expect(inkIn(55, 125)).toBeGreaterThan(40);
    expect(inkIn(355, 425)).toBeGreaterThan(40);
    // nothing between them, and no label hanging over the right edge
    expect(inkIn(150, 330)).toBe(0);
    expect(inkIn(450, 600)).toBe(0);
    expect(count(p, dark)).toBe(inkIn(0, 600));
  });
});

describe("placement along lines below zoom 0 (a 256-px raster tile at z0)", () => {
  // A 256-px tile at z0 is MapLibre's zoom -1. MapLibre still lays symbols out on the zoom-0 tile (its
  // covering zoom never goes below 0) and shows that tile at half size, so the spacing halves too: along
  // a line round the world it puts two "Ash Avenue"s per 256-px world, centred at x ~62 and ~188 of a
  // 256-px view on 0,0 (measured in Chromium against MapLibre 6.17); laid out as if at zoom -1 there
  // was one, at x ~125.
  test("labels come twice as close as at zoom 0, where MapLibre puts them", async () => {
    const res = await resources({ vector: { v: { layers: { roads: [line(Array.from({ length: 37 }, (_, i) => [-180 + i * 10, 1] as [number, number]), { name: "Ash Avenue" })] } } } });
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [
        BG,
        {
          id: "t",
          type: "symbol",
          source: "v",
          "source-layer": "roads",
          layout: { "symbol-placement": "line", "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 12 },
          paint: { "text-color": "#000000" },
        },
      ],
    } as StyleSpecification;
    const p = pixels(await renderMap(style, { center: [0, 0], zoom: -1, bearing: 0, width: 256, height: 256, pixelRatio: 1 }, res));
    const inkIn = (x1: number, x2: number) => count(p, dark, { x1, y1: 0, x2, y2: 256 });
    // each label is about 65 px long
    expect(inkIn(25, 100)).toBeGreaterThan(40);
    expect(inkIn(150, 225)).toBeGreaterThan(40);
    expect(inkIn(100, 150)).toBe(0);
  });
});

describe("labels across the edge between neighbouring views (raster tiles)", () => {
  // Raster tiles are views of their own, drawn with a margin: a label near their shared edge must come
  // out the same in both, or half of it is missing from the pair.
  async function seamDiff(layout: Record<string, unknown>) {
    const res = await resources({ vector: { v: { layers: { roads: [line([[-10, 0.1], [10, 0.12]], { name: "Bahnhofstrasse Long Street Name" })] } } } });
    const style = {
      version: 8,
      sources: { v: { type: "vector" } },
      layers: [BG, { id: "t", type: "symbol", source: "v", "source-layer": "roads", layout: { "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"], "text-size": 14, ...layout }, paint: { "text-color": "#000000" } }],
    } as StyleSpecification;
    // views 352 px wide whose centres are 256 px apart (2.8125 degrees at zoom 6): they share 96 px
    const at = async (lon: number) => pixels(await renderMap(style, { center: [lon, 0.1], zoom: 6, bearing: 0, width: 352, height: 352, pixelRatio: 1 }, res));
    let ink = 0;
    let differ = 0;
    for (let k = 0; k < 8; k++) {
      const lon = -2.8125 + k * 0.375;
      const [a, b] = [await at(lon), await at(lon + 2.8125)];
      for (let y = 0; y < 352; y++)
        for (let x = 0; x < 96; x++) {
          const [inA, inB] = [dark(a.at(x + 256, y)), dark(b.at(x, y))];
          if (inA || inB) ink++;
          if (inA !== inB) differ++;
        }
    }
    return { ink, differ };
  }

  test("a label along a line is placed on the same spot of the line in both views", async () => {
    const { ink, differ } = await seamDiff({ "symbol-placement": "line" });
    expect(ink).toBeGreaterThan(500); // labels do cross the shared part
    expect(differ).toBe(0);
  });

  test("a line's point label sits on the line's first vertex, not where a view cuts the line", async () => {
    const { ink, differ } = await seamDiff({ "symbol-placement": "point" });
    expect(ink).toBe(0); // the first vertex, at -10 degrees, is in neither view
    expect(differ).toBe(0);
  });
});

describe("upright text drawn from glyph masks", () => {
  const hamburg = [point(0, 0, { name: "Hamburg" })];
  const diff = (a: Pixels, b: Pixels) => {
    let sum = 0;
    for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) for (let c = 0; c < 3; c++) sum += Math.abs(a.at(x, y)[c]! - b.at(x, y)[c]!);
    return sum / 255;
  };

  test("looks like the outlines resvg draws for the same label turned by a hair", async () => {
    // text-rotate 0.01 degrees turns every glyph (outlines in the SVG) by far less than a pixel
    const paint = { "text-color": "rgba(0,0,80,0.8)", "text-halo-color": "#ff0000", "text-halo-width": 1.5, "text-opacity": 0.9 };
    const masks = await render(hamburg, [BG, labels({}, paint)]);
    const outlines = await render(hamburg, [BG, labels({ "text-rotate": 0.01 }, paint)]);
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 60);
    expect(count(masks, dark)).toBeGreaterThan(100);
    expect(count(masks, red)).toBeGreaterThan(150);
    expect(Math.abs(count(masks, dark) / count(outlines, dark) - 1)).toBeLessThan(0.08);
    expect(Math.abs(count(masks, red) / count(outlines, red) - 1)).toBeLessThan(0.08);
    expect(inkBox(masks, dark)).toEqual(inkBox(outlines, dark));
    // what differs is anti-aliasing at the edges: a few pixels' worth over the whole label
    const inkPixels = count(masks, (px) => !near(px, [255, 255, 255], 2));
    expect(diff(masks, outlines)).toBeLessThan(inkPixels * 0.15);
  });

  test("a layer after the labels covers them; one before stays under them", async () => {
    const res = await resources({ vector: { v: { layers: { pts: hamburg, land: [box(-10, -3, 10, 3)] } } } });
    const cover = { id: "cover", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#00c000" } };
    const draw = async (layers: unknown[]) => pixels(await renderMap({ version: 8, sources: { v: { type: "vector" } }, layers } as StyleSpecification, view, res));
    const over = await draw([BG, labels(), cover]);
    expect(count(over, dark)).toBe(0);
    expect(near(over.at(128, 128), [0, 0xc0, 0])).toBe(true);
    const under = await draw([BG, cover, labels()]);
    expect(count(under, dark)).toBeGreaterThan(100);
  });

  test("a label too large for masks is drawn from outlines, at its size", async () => {
    const big = inkBox(await render([point(0, 0, { name: "Hi" })], [BG, labels({ "text-size": 140 }, { "text-halo-color": "#ff0000", "text-halo-width": 3 })]), dark);
    expect(big.height).toBeGreaterThan(90);
    expect(big.height).toBeLessThan(130);
    expect(Math.abs((big.x1 + big.x2) / 2 - 128)).toBeLessThan(6);
  });

  test("at @2x the label has twice the size", async () => {
    const res = await resources({ vector: { v: { layers: { pts: hamburg } } } });
    const style = { version: 8, sources: { v: { type: "vector" } }, layers: [BG, labels()] } as StyleSpecification;
    const one = inkBox(pixels(await renderMap(style, view, res)), dark);
    const two = inkBox(pixels(await renderMap(style, { ...view, pixelRatio: 2 }, res)), dark);
    expect(two.width / one.width).toBeGreaterThan(1.85);
    expect(two.width / one.width).toBeLessThan(2.15);
    expect(Math.abs((two.x1 + two.x2) / 2 - 256)).toBeLessThan(5);
  });
});

// The renderer draws what a style says: pixels at known places of small fixture maps.
import { describe, expect, test } from "bun:test";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { renderMap, RenderInputError, RenderAborted } from "../../../src/render";
import type { RenderView } from "../../../src/render/types";
import jpeg from "jpeg-js";
import { encodePng } from "../../../src/sprites/png";
import { encodeAnyPng } from "../../support/png-any-encoder";
import { encodeRenderPng } from "../../../src/render/png";
import { encodeImage } from "../../../src/read/render/encode";
import { box, count, line, near, pixels, point, resources, type FixtureSources } from "./fixtures";

const view = (over: Partial<RenderView> = {}): RenderView => ({ center: [0, 0], zoom: 4, bearing: 0, width: 256, height: 256, pixelRatio: 1, ...over });

function style(layers: unknown[], sources: Record<string, unknown> = { v: { type: "vector" } }): StyleSpecification {
  return { version: 8, sources, layers } as StyleSpecification;
}

const BG = { id: "bg", type: "background", paint: { "background-color": "#ffffff" } };
const WHITE: [number, number, number] = [255, 255, 255];

async function render(sources: FixtureSources, layers: unknown[], v: Partial<RenderView> = {}, opts: { sprite?: boolean } = {}) {
  const res = await resources(sources, opts);
  const png = await renderMap(style(layers, Object.fromEntries(Object.keys({ ...sources.vector, ...sources.geojson, ...sources.raster }).map((k) => [k, { type: "vector" }]))), view(v), res);
  return { p: pixels(png), png, res };
}

// At zoom 4 a 256-px view centred on 0,0 spans 256 / (512 * 16) of the world: 11.25 degrees of longitude.
const DEG = 256 / 11.25; // px per degree of longitude near the equator at zoom 4

describe("background, fill, line, circle", () => {
  test("a background colour covers the image at the asked size", async () => {
    const { p } = await render({}, [{ id: "bg", type: "background", paint: { "background-color": "#336699" } }], { width: 300, height: 200 });
    expect([p.width, p.height]).toEqual([300, 200]);
    expect(near(p.at(0, 0), [0x33, 0x66, 0x99])).toBe(true);
    expect(near(p.at(299, 199), [0x33, 0x66, 0x99])).toBe(true);
  });

  test("@2x doubles the pixels and draws the same map", async () => {
    const sources = { vector: { v: { layers: { land: [box(-2, -2, 2, 2)] } } } };
    const layers = [BG, { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#00aa00" } }];
    const one = await render(sources, layers);
    const two = await render(sources, layers, { pixelRatio: 2 });
    expect([two.p.width, two.p.height]).toEqual([512, 512]);
    const green = (px: [number, number, number, number]) => near(px, [0, 0xaa, 0]);
    const ratio = count(two.p, green) / count(one.p, green);
    expect(ratio).toBeGreaterThan(3.9);
    expect(ratio).toBeLessThan(4.2);
    expect(near(two.p.at(256, 256), [0, 0xaa, 0])).toBe(true);
  });

  test("fill colour inside the polygon, background outside, opacity blends", async () => {
    const { p } = await render({ vector: { v: { layers: { land: [box(-2, -2, 2, 2)] } } } }, [
      BG,
      { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#ff0000", "fill-opacity": 0.5 } },
    ]);
    expect(near(p.at(128, 128), [255, 128, 128], 3)).toBe(true);
    expect(near(p.at(128 + 1.5 * DEG, 128 - 1.5 * DEG), [255, 128, 128], 3)).toBe(true);
    expect(near(p.at(128 + 2.5 * DEG, 128), WHITE, 0)).toBe(true);
    expect(near(p.at(10, 10), WHITE, 0)).toBe(true);
  });

  test("fill-extrusion is drawn as its roofs, with the layer opacity applied once", async () => {
    const { p } = await render({ vector: { v: { layers: { b: [box(-2, -2, 1, 1), box(-1, -1, 2, 2)] } } } }, [
      BG,
      { id: "x", type: "fill-extrusion", source: "v", "source-layer": "b", paint: { "fill-extrusion-color": "#0000ff", "fill-extrusion-opacity": 0.5, "fill-extrusion-height": 20 } },
    ]);
    const halfBlue: [number, number, number] = [128, 128, 255];
    expect(near(p.at(128 - 1.5 * DEG, 128 + 1.5 * DEG), halfBlue, 3)).toBe(true);
    expect(near(p.at(128, 128), halfBlue, 3)).toBe(true); // where the two overlap: not darker
    expect(near(p.at(128 + 3 * DEG, 128), WHITE, 0)).toBe(true);
  });

  test("a polygon crossing tile edges shows no seams and an explicit outline only on its real edges", async () => {
    // 0,0 is a corner of four z4 tiles; a translucent fill would double up where tiles overlap
    const { p } = await render({ vector: { v: { layers: { land: [box(-3, -3, 3, 3)] } } } }, [
      BG,
      { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#0000ff", "fill-opacity": 0.4, "fill-outline-color": "#000000" } },
    ]);
    const inside = p.at(100, 100);
    for (const [x, y] of [[128, 128], [128, 100], [100, 128], [127, 140], [140, 127]]) expect(near(p.at(x!, y!), [inside[0], inside[1], inside[2]], 2)).toBe(true);
    // the real edge is dark
    expect(p.at(128 + 3 * DEG, 128)[0]).toBeLessThan(160);
  });

  test("a line is drawn where it runs, with a zoom-interpolated width", async () => {
    const sources = { vector: { v: { layers: { roads: [line([[-10, 0], [10, 0]])] } } } };
    const layer = { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#0000ff", "line-width": ["interpolate", ["linear"], ["zoom"], 2, 2, 6, 18] } };
    const { p } = await render(sources, [BG, layer]);
    const blue = (px: [number, number, number, number]) => near(px, [0, 0, 255], 40);
    expect(blue(p.at(60, 128))).toBe(true);
    expect(blue(p.at(200, 128))).toBe(true);
    expect(near(p.at(60, 100), WHITE, 0)).toBe(true);
    // zoom 4 -> width 10: count the blue pixels in one column
    expect(count(p, blue, { x1: 60, y1: 100, x2: 61, y2: 156 })).toBeGreaterThanOrEqual(9);
    expect(count(p, blue, { x1: 60, y1: 100, x2: 61, y2: 156 })).toBeLessThanOrEqual(11);
  });

  test("hairlines (drawn as filled outlines) cover their width along the whole line, round a corner too", async () => {
    const sources = { vector: { v: { layers: { roads: [line([[-10, 0.5], [0.5, 0.5], [0.5, 10]])] } } } };
    const { p } = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#000000", "line-width": 1.5 } }]);
    const cx = 128 + 0.5 * DEG; // the corner, about 139.4, 116.6
    const cy = 128 - 0.5 * DEG;
    // ink across the line (0 = white, 1 = black) adds up to the line width all along it
    for (const x of [5, 40, 90, 120]) {
      let ink = 0;
      for (let y = Math.round(cy) - 10; y < Math.round(cy) + 10; y++) ink += 1 - p.at(x, y)[0] / 255;
      expect(ink).toBeGreaterThan(1.3);
      expect(ink).toBeLessThan(1.7);
    }
    for (const y of [5, 60, 100]) {
      let ink = 0;
      for (let x = Math.round(cx) - 10; x < Math.round(cx) + 10; x++) ink += 1 - p.at(x, y)[0] / 255;
      expect(ink).toBeGreaterThan(1.3);
      expect(ink).toBeLessThan(1.7);
    }
    expect(p.at(cx, cy)[0]).toBeLessThan(180); // the corner is joined, not notched
    expect(near(p.at(cx + 10, cy + 10), WHITE, 0)).toBe(true);
  });

  test("a line lying exactly on a tile edge is drawn once, not by both tiles", async () => {
    // latitude 0 is the edge between two rows of tiles at every zoom
    const sources = { vector: { v: { layers: { roads: [line([[-10, 0], [10, 0]])] } } } };
    const { p } = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#000000", "line-width": 4, "line-opacity": 0.5 } }]);
    expect(near(p.at(60, 127), [128, 128, 128], 4)).toBe(true);
  });

  test("dashed lines leave gaps; round caps reach past the end", async () => {
    const sources = { vector: { v: { layers: { roads: [line([[-3, 0], [3, 0]])] } } } };
    const dashed = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#000", "line-width": 4, "line-dasharray": [2, 2] } }]);
    const solid = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#000", "line-width": 4 } }]);
    const dark = (px: [number, number, number, number]) => px[0] < 100;
    const row = { x1: 0, y1: 128, x2: 256, y2: 129 };
    const ratio = count(dashed.p, dark, row) / count(solid.p, dark, row);
    expect(ratio).toBeGreaterThan(0.35);
    expect(ratio).toBeLessThan(0.65);
    const round = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", layout: { "line-cap": "round" }, paint: { "line-color": "#000", "line-width": 10 } }]);
    const end = 128 + 3 * DEG;
    expect(dark(solid.p.at(end + 3, 128))).toBe(false);
    expect(dark(round.p.at(end + 3, 128))).toBe(true);
  });

  test("circles have their radius, colour and a stroke outside the radius", async () => {
    const { p } = await render({ vector: { v: { layers: { pts: [point(0, 0)] } } } }, [
      BG,
      { id: "c", type: "circle", source: "v", "source-layer": "pts", paint: { "circle-radius": 10, "circle-color": "#ff0000", "circle-stroke-width": 4, "circle-stroke-color": "#000000" } },
    ]);
    expect(near(p.at(128, 128), [255, 0, 0])).toBe(true);
    expect(near(p.at(128 + 7, 128), [255, 0, 0])).toBe(true);
    expect(near(p.at(128 + 12, 128), [0, 0, 0], 30)).toBe(true);
    expect(near(p.at(128 + 16, 128), WHITE, 0)).toBe(true);
  });

  test("circle-blur fades the circle from its centre as MapLibre's shader does, its stroke fading with it", async () => {
    const sources = { vector: { v: { layers: { pts: [point(0, 0)] } } } };
    const green = (blur: number) => [BG, { id: "c", type: "circle", source: "v", "source-layer": "pts", paint: { "circle-radius": 20, "circle-color": "#00a000", "circle-blur": blur, "circle-stroke-width": 4, "circle-stroke-color": "#000000" } }];
    const sharp = (await render(sources, green(0))).p;
    const soft = (await render(sources, green(1))).p;
    // The red channel tells how much is drawn over white: 255 nothing, 0 all.
    const cover = (p: typeof sharp, dx: number) => 255 - p.at(128 + dx, 128)[0];
    expect(cover(soft, 0)).toBeGreaterThan(245);
    expect(cover(sharp, 12)).toBeGreaterThan(245);
    // Half way out, smoothstep(0.5): about half (MapLibre draws the same).
    expect(cover(soft, 12)).toBeGreaterThan(100);
    expect(cover(soft, 12)).toBeLessThan(160);
    // The stroke ring: solid black when sharp, nearly gone when blurred.
    expect(near(sharp.at(128 + 22, 128), [0, 0, 0], 30)).toBe(true);
    expect(cover(soft, 22)).toBeLessThan(20);
  });
});

describe("below zoom 0", () => {
  test("at zoom -1 the world is 256 px wide and circles keep their radius in pixels", async () => {
    // a 256-px raster tile at zoom 0 is this view: MapLibre's zoom -1
    const { p } = await render({ vector: { v: { layers: { land: [box(-170, -60, 170, 60)], pts: [point(90, 0)] } } } }, [
      BG,
      { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#00ff00" } },
      { id: "c", type: "circle", source: "v", "source-layer": "pts", paint: { "circle-radius": 6, "circle-color": "#ff0000" } },
    ], { zoom: -1 });
    const green = (px: [number, number, number, number]) => near(px, [0, 255, 0]);
    expect(green(p.at(128, 128))).toBe(true);
    // 340 of 360 degrees: 242 px of the 256
    const row = Array.from({ length: 256 }, (_, x) => green(p.at(x, 128)) || near(p.at(x, 128), [255, 0, 0], 60)).filter(Boolean).length;
    expect(Math.abs(row - 242)).toBeLessThanOrEqual(2);
    // 90 degrees east is 64 px right of the centre; the circle is 12 px across there
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 60);
    expect(red(p.at(192, 128))).toBe(true);
    expect(count(p, red, { x1: 180, y1: 116, x2: 204, y2: 140 })).toBeGreaterThan(90);
    expect(red(p.at(192 + 8, 128))).toBe(false);
  });
});

describe("expressions, filters and sort keys", () => {
  const sources = { vector: { v: { layers: { land: [box(-4, -1, -1, 2, { kind: "wood", rank: 1 }), box(1, -1, 4, 2, { kind: "farm", rank: 5 }), box(-1, -3, 1, -2, { kind: "hidden" })] } } } };

  test("data expressions colour each feature and filters drop features", async () => {
    const { p } = await render(sources, [
      BG,
      {
        id: "f",
        type: "fill",
        source: "v",
        "source-layer": "land",
        filter: ["!=", ["get", "kind"], "hidden"],
        paint: { "fill-color": ["match", ["get", "kind"], "wood", "#00ff00", "farm", "#ffff00", "#ff00ff"] },
      },
    ]);
    expect(near(p.at(128 - 2.5 * DEG, 128 - 0.5 * DEG), [0, 255, 0])).toBe(true);
    expect(near(p.at(128 + 2.5 * DEG, 128 - 0.5 * DEG), [255, 255, 0])).toBe(true);
    expect(near(p.at(128, 128 + 2.5 * DEG), WHITE, 0)).toBe(true); // the filtered one
  });

  test("legacy filters and functions still work", async () => {
    const { p } = await render(sources, [
      BG,
      {
        id: "f",
        type: "fill",
        source: "v",
        "source-layer": "land",
        filter: ["==", "kind", "farm"],
        paint: { "fill-color": { property: "rank", stops: [[0, "#000000"], [5, "#0000ff"]] } },
      },
    ]);
    expect(near(p.at(128 + 2.5 * DEG, 128 - 0.5 * DEG), [0, 0, 255])).toBe(true);
    expect(near(p.at(128 - 2.5 * DEG, 128 - 0.5 * DEG), WHITE, 0)).toBe(true);
  });

  test("layer minzoom/maxzoom and visibility hide layers", async () => {
    const fill = { type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#ff0000" } };
    const { p } = await render(sources, [BG, { id: "a", minzoom: 5, ...fill }, { id: "b", maxzoom: 4, ...fill }, { id: "c", layout: { visibility: "none" }, ...fill }]);
    expect(count(p, (px) => near(px, [255, 0, 0]))).toBe(0);
  });

  test("circle-sort-key puts higher keys on top", async () => {
    const pts = { vector: { v: { layers: { pts: [point(0, 0, { k: 2, c: "#ff0000" }), point(0, 0, { k: 1, c: "#0000ff" })] } } } };
    const layer = (sortKey: unknown) => ({
      id: "c",
      type: "circle",
      source: "v",
      "source-layer": "pts",
      layout: sortKey === undefined ? {} : { "circle-sort-key": sortKey },
      paint: { "circle-radius": 8, "circle-color": ["get", "c"] },
    });
    expect(near((await render(pts, [BG, layer(["get", "k"])])).p.at(128, 128), [255, 0, 0])).toBe(true);
    expect(near((await render(pts, [BG, layer(["-", 0, ["get", "k"]])])).p.at(128, 128), [0, 0, 255])).toBe(true);
  });
});

describe("translate", () => {
  test("fill-translate shifts the layer, turning with the map unless anchored to the viewport", async () => {
    const sources = { vector: { v: { layers: { pts: [point(0, 0)] } } } };
    const dot = (anchor: string) => ({
      id: "c",
      type: "circle",
      source: "v",
      "source-layer": "pts",
      paint: { "circle-radius": 4, "circle-color": "#ff0000", "circle-translate": [20, 0], "circle-translate-anchor": anchor },
    });
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 30);
    expect(red((await render(sources, [BG, dot("map")])).p.at(148, 128))).toBe(true);
    const turned = await render(sources, [BG, dot("map")], { bearing: 90 });
    expect(red(turned.p.at(128, 108))).toBe(true);
    const fixed = await render(sources, [BG, dot("viewport")], { bearing: 90 });
    expect(red(fixed.p.at(148, 128))).toBe(true);
  });
});

describe("camera", () => {
  const sources = { vector: { v: { layers: { pts: [point(3, 0)] } } } };
  const dot = { id: "c", type: "circle", source: "v", "source-layer": "pts", paint: { "circle-radius": 6, "circle-color": "#ff0000" } };
  const red = (px: [number, number, number, number]) => near(px, [255, 0, 0]);

  test("bearing turns the map around the centre (east is up at 90 degrees)", async () => {
    const north = await render(sources, [BG, dot]);
    expect(red(north.p.at(128 + 3 * DEG, 128))).toBe(true);
    const east = await render(sources, [BG, dot], { bearing: 90 });
    expect(red(east.p.at(128 + 3 * DEG, 128))).toBe(false);
    expect(red(east.p.at(128, 128 - 3 * DEG))).toBe(true);
  });

  test("fractional zoom scales the map between tile zooms and overzooms past the source maxzoom", async () => {
    const over = { vector: { v: { layers: { pts: [point(0.1, 0)] }, maxzoom: 2 } } };
    const { p, res } = await render(over, [BG, dot], { zoom: 7.5 });
    const px = 0.1 * (512 * 2 ** 7.5) / 360;
    expect(red(p.at(128 + px, 128))).toBe(true);
    expect(red(p.at(128 + px + 10, 128))).toBe(false);
    expect(res.requested.length).toBeGreaterThan(0);
    expect(res.requested.every((r) => r.startsWith("v/2/"))).toBe(true);
  });

  test("a 256-px source uses one zoom more than a 512-px one, as MapLibre does", async () => {
    const small = { vector: { v: { layers: { pts: [point(0, 0)] }, tileSize: 256 } } };
    const { res } = await render(small, [BG, dot], { zoom: 4.5 });
    expect(res.requested.length).toBeGreaterThan(0);
    expect(res.requested.every((r) => r.startsWith("v/5/"))).toBe(true);
  });
});

describe("sprites and rasters", () => {
  test("fill-pattern tiles the sprite image inside the polygon", async () => {
    const { p } = await render(
      { vector: { v: { layers: { land: [box(-2, -2, 2, 2)] } } } },
      [BG, { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-pattern": "stripes" } }],
      {},
      { sprite: true },
    );
    const area = { x1: 110, y1: 110, x2: 146, y2: 146 };
    expect(count(p, (px) => near(px, [255, 255, 0], 30), area)).toBeGreaterThan(300);
    expect(count(p, (px) => near(px, [0, 128, 0], 30), area)).toBeGreaterThan(300);
    expect(near(p.at(10, 10), WHITE, 0)).toBe(true);
  });

  test("line-pattern strokes the line with the sprite image; a pattern the sprite lacks draws nothing, as in MapLibre", async () => {
    const sources = { vector: { v: { layers: { roads: [line([[-4, 0], [4, 0]])] } } } };
    const patterned = (name: string) => [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-pattern": name, "line-width": 10 } }];
    const { p } = await render(sources, patterned("stripes"), {}, { sprite: true });
    const band = { x1: 60, y1: 124, x2: 196, y2: 132 };
    expect(count(p, (px) => near(px, [255, 255, 0], 30), band)).toBeGreaterThan(200);
    expect(count(p, (px) => near(px, [0, 128, 0], 30), band)).toBeGreaterThan(200);
    // Not the line colour's default black it used to fall back to.
    expect(count(p, (px) => near(px, [0, 0, 0], 40), band)).toBe(0);
    const missing = await render(sources, patterned("no-such-image"), {}, { sprite: true });
    expect(count(missing.p, (px) => !near(px, WHITE, 2))).toBe(0);
  });

  test("line-pattern runs along the line, its image's height across the line's width, as in MapLibre", async () => {
    // the stripes image is green on its left half and yellow on its right: along a north-south line 16
    // px wide it is turned to repeat down the line every 16 px (8 px wide x 16 / 8 px high), so each row
    // across the line is one colour; tiled in map space, every row was half green and half yellow
    const sources = { vector: { v: { layers: { roads: [line([[1, -4], [1, 4]])] } } } };
    const { p } = await render(sources, [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-pattern": "stripes", "line-width": 16 } }], {}, { sprite: true });
    const x = Math.round(128 + DEG);
    const green = (px: [number, number, number, number]) => near(px, [0, 128, 0], 60);
    const yellow = (px: [number, number, number, number]) => near(px, [255, 255, 0], 60);
    let oneColourRows = 0;
    for (let y = 60; y < 196; y++) {
      const row = { x1: x - 5, y1: y, x2: x + 6, y2: y + 1 };
      if (count(p, green, row) === 11 || count(p, yellow, row) === 11) oneColourRows++;
    }
    expect(oneColourRows).toBeGreaterThan(100);
    const column = { x1: x, y1: 60, x2: x + 1, y2: 196 };
    expect(count(p, green, column)).toBeGreaterThan(40);
    expect(count(p, yellow, column)).toBeGreaterThan(40);
  });

  test("line-pattern past the render's budget (src/render/line-pattern.ts) still shows the pattern", async () => {
    // 200 patterned lines ask for about 8 800 copies: past the budget, each is drawn with the pattern
    // tiled in map space, whose colours must show as those of the copies along the first ones do
    const roads = Array.from({ length: 200 }, (_, i) => line([[-4, -4 + i * 0.04], [4, -4 + i * 0.04]]));
    const style = [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-pattern": "stripes", "line-width": 8 } }];
    const { p } = await render({ vector: { v: { layers: { roads } } } }, style, {}, { sprite: true });
    // the first lines, drawn along (south), and the last ones, tiled (north)
    for (const band of [{ x1: 60, y1: 170, x2: 196, y2: 190 }, { x1: 60, y1: 70, x2: 196, y2: 90 }]) {
      expect(count(p, (px) => near(px, [255, 255, 0], 40), band)).toBeGreaterThan(300);
      expect(count(p, (px) => near(px, [0, 128, 0], 40), band)).toBeGreaterThan(300);
    }
  });

  test("line-blur fades the line toward its edges instead of a hard edge", async () => {
    const sources = { vector: { v: { layers: { roads: [line([[-4, 0], [4, 0]])] } } } };
    const blue = (blur: number) => [BG, { id: "l", type: "line", source: "v", "source-layer": "roads", paint: { "line-color": "#0000ff", "line-width": 12, "line-blur": blur } }];
    const sharp = (await render(sources, blue(0))).p;
    const soft = (await render(sources, blue(6))).p;
    // The red channel tells how much blue covers white: 0 is full blue, 255 none.
    const cover = (p: typeof sharp, dy: number) => 255 - p.at(128, 128 + dy)[0];
    expect(cover(sharp, 0)).toBeGreaterThan(250);
    expect(cover(sharp, 4)).toBeGreaterThan(250);
    expect(cover(soft, 0)).toBeGreaterThan(200);
    // Between the centre and the edge: full blue when sharp, fading when blurred (MapLibre: a third at 4 px).
    expect(cover(soft, 4)).toBeLessThan(160);
    expect(cover(soft, 4)).toBeGreaterThan(20);
    expect(cover(soft, 9)).toBeLessThan(15);
  });

  test("icons from the sprite are drawn at the point, scaled by icon-size", async () => {
    const sources = { vector: { v: { layers: { pts: [point(0, 0)] } } } };
    const icon = (size: number) => ({ id: "i", type: "symbol", source: "v", "source-layer": "pts", layout: { "icon-image": "square", "icon-size": size } });
    const one = await render(sources, [BG, icon(1)], {}, { sprite: true });
    const two = await render(sources, [BG, icon(2)], {}, { sprite: true });
    const red = (px: [number, number, number, number]) => near(px, [255, 0, 0], 20);
    expect(red(one.p.at(128, 128))).toBe(true);
    expect(count(one.p, red)).toBeGreaterThan(300);
    expect(count(two.p, red) / count(one.p, red)).toBeCloseTo(4, 0);
  });

  test("raster tiles are placed and scaled, with raster-opacity", async () => {
    const tiles = new Map<string, Uint8Array>();
    const solid = (rgb: [number, number, number]) => {
      const key = rgb.join();
      if (tiles.has(key)) return tiles.get(key)!;
      const data = new Uint8Array(256 * 256 * 4);
      for (let i = 0; i < data.length; i += 4) data.set([...rgb, 255], i);
      tiles.set(key, encodePng({ width: 256, height: 256, data }));
      return tiles.get(key)!;
    };
    // western tiles green, eastern tiles blue
    const raster = { r: { tile: (z: number, x: number) => solid(x < 2 ** z / 2 ? [0, 200, 0] : [0, 0, 200]) } };
    const { p } = await render({ raster }, [BG, { id: "r", type: "raster", source: "r", paint: { "raster-opacity": 1 } }]);
    expect(near(p.at(60, 128), [0, 200, 0], 2)).toBe(true);
    expect(near(p.at(200, 128), [0, 0, 200], 2)).toBe(true);
    const faded = await render({ raster }, [BG, { id: "r", type: "raster", source: "r", paint: { "raster-opacity": 0.5 } }]);
    expect(near(faded.p.at(60, 128), [128, 228, 128], 3)).toBe(true);
  });

  test("JPEG and WebP raster tiles are drawn as PNG ones are; a tile that is no image leaves the layer to resvg, which skips it", async () => {
    const rgb: [number, number, number] = [200, 40, 40];
    const data = new Uint8Array(256 * 256 * 4);
    for (let i = 0; i < data.length; i += 4) data.set([...rgb, 255], i);
    const jpg = new Uint8Array(jpeg.encode({ data, width: 256, height: 256 }, 95).data);
    for (const bytes of [jpg, await encodeImage({ width: 256, height: 256, data }, "webp")]) {
      const { p } = await render({ raster: { r: { tile: () => bytes } } }, [BG, { id: "r", type: "raster", source: "r" }]);
      expect(near(p.at(128, 128), rgb, 6)).toBe(true);
    }
    const garbage = new Uint8Array(300).fill(7);
    const { p } = await render({ raster: { r: { tile: () => garbage } } }, [BG, { id: "r", type: "raster", source: "r" }]);
    expect(near(p.at(128, 128), [255, 255, 255], 1)).toBe(true);
  });

  test("16-bit and interlaced PNG raster tiles are decoded here, so raster-saturation: -1 turns them grey", async () => {
    // resvg, the fallback for a tile that is not decoded, ignores raster colour paint: red would stay red
    const rgb: [number, number, number] = [200, 40, 40];
    const tiles = [
      { colorType: 2, bitDepth: 16, samples: Uint16Array.from({ length: 256 * 256 * 3 }, (_, i) => rgb[i % 3]! * 257) },
      { colorType: 2, bitDepth: 8, samples: Uint16Array.from({ length: 256 * 256 * 3 }, (_, i) => rgb[i % 3]!), interlaced: true },
      { colorType: 3, bitDepth: 1, samples: new Uint16Array(256 * 256), palette: Uint8Array.from(rgb), interlaced: true },
    ] as const;
    for (const tile of tiles) {
      const bytes = encodeAnyPng({ width: 256, height: 256, ...tile });
      const raster = { r: { tile: () => bytes } };
      const plain = await render({ raster }, [BG, { id: "r", type: "raster", source: "r" }]);
      expect(near(plain.p.at(128, 128), rgb, 2)).toBe(true);
      const { p } = await render({ raster }, [BG, { id: "r", type: "raster", source: "r", paint: { "raster-saturation": -1 } }]);
      const [r, g, b] = p.at(128, 128);
      expect({ tile: `${tile.bitDepth}-bit type ${tile.colorType}`, spread: Math.max(r!, g!, b!) - Math.min(r!, g!, b!), white: r === 255 }).toEqual({ tile: `${tile.bitDepth}-bit type ${tile.colorType}`, spread: 0, white: false });
    }
  });

  test("big raster tiles over a big view are halved before they are joined, and still drawn", async () => {
    // 1024-px tiles (an @2x tileset of 512-px tiles), more than 16 under a 900x900 view: joined whole
    // they would pass the 64 MiB budget; halved once they fit
    const data = new Uint8Array(1024 * 1024 * 4);
    for (let i = 0; i < data.length; i += 4) data.set([30, 160, 90, 255], i);
    const big = encodeRenderPng({ width: 1024, height: 1024, data });
    const { p } = await render({ raster: { r: { tile: () => big } } }, [BG, { id: "r", type: "raster", source: "r" }], { zoom: 3.5, width: 900, height: 900 });
    for (const [x, y] of [[10, 10], [450, 450], [890, 890]] as const) expect(near(p.at(x, y), [30, 160, 90], 2)).toBe(true);
  });

  test("resampling: nearest (MapLibre 5's name, over raster-resampling) magnifies a raster tile's pixels as squares", async () => {
    // a 2x2-pixel tile of black and white, stretched over the whole world at zoom 4
    const checker = new Uint8Array(2 * 2 * 4).fill(255);
    checker.set([0, 0, 0, 255], 0);
    checker.set([0, 0, 0, 255], 12);
    const png = encodePng({ width: 2, height: 2, data: checker });
    const raster = { r: { tile: () => png, maxzoom: 0 } };
    const greys = async (paint: Record<string, string>) => {
      const { p } = await render({ raster }, [BG, { id: "r", type: "raster", source: "r", paint }], { zoom: 0, width: 512, height: 512 });
      return new Set(Array.from({ length: 512 }, (_, x) => p.at(x, 100)[0]));
    };
    // each tile pixel covers 256 screen pixels: nearest leaves only black and white, linear every grey between
    expect((await greys({ resampling: "nearest" })).size).toBeLessThanOrEqual(4);
    expect((await greys({ resampling: "nearest", "raster-resampling": "linear" })).size).toBeLessThanOrEqual(4);
    expect((await greys({ "raster-resampling": "nearest" })).size).toBeLessThanOrEqual(4);
    expect((await greys({ resampling: "linear", "raster-resampling": "nearest" })).size).toBeGreaterThan(50);
  });
});

describe("geojson sources (overlays)", () => {
  test("inline geojson lines, polygons and points are drawn", async () => {
    const data: GeoJSON.FeatureCollection = {
      type: "FeatureCollection",
      features: [box(-4, 1, -1, 4), line([[0, -4], [4, -4]]), point(2, 2)],
    };
    const { p } = await render({ geojson: { o: data } }, [
      BG,
      { id: "f", type: "fill", source: "o", filter: ["==", ["geometry-type"], "Polygon"], paint: { "fill-color": "#00ff00" } },
      { id: "l", type: "line", source: "o", paint: { "line-color": "#0000ff", "line-width": 6 } },
      { id: "c", type: "circle", source: "o", filter: ["==", "$type", "Point"], paint: { "circle-color": "#ff0000", "circle-radius": 5 } },
    ]);
    expect(near(p.at(128 - 2.5 * DEG, 128 - 2.5 * DEG), [0, 255, 0])).toBe(true);
    expect(near(p.at(128 + 2 * DEG, 128 + 4 * DEG), [0, 0, 255], 30)).toBe(true);
    expect(near(p.at(128 + 2 * DEG, 128 - 2 * DEG), [255, 0, 0], 30)).toBe(true);
  });
});

describe("bad input", () => {
  test("views outside the limits are refused with a RenderInputError naming the field", async () => {
    const res = await resources({});
    const bad: [Partial<RenderView>, RegExp][] = [
      [{ width: 0 }, /width/],
      [{ height: 5000 }, /height/],
      [{ width: 2100, pixelRatio: 2 }, /width/],
      [{ zoom: -2.5 }, /zoom/], // below MapLibre's own minimum of -2
      [{ zoom: Number.NaN }, /zoom/],
      [{ center: [Number.POSITIVE_INFINITY, 0] }, /center/],
      [{ pixelRatio: 3 as 1 }, /pixelRatio/],
    ];
    for (const [v, message] of bad) {
      const err = await renderMap(style([BG]), view(v), res).catch((e) => e);
      expect(err).toBeInstanceOf(RenderInputError);
      expect(String(err.message)).toMatch(message);
    }
  });

  test("unknown sources, broken tiles and invalid properties draw nothing instead of failing", async () => {
    const res = await resources({});
    const broken = { ...res, sourceInfo: () => ({ type: "vector" as const, tileSize: 512, minzoom: 0, maxzoom: 14 }), tile: async () => new Uint8Array([1, 2, 3, 4, 5]) };
    const png = await renderMap(
      style([BG, { id: "x", type: "fill", source: "v", "source-layer": "a", paint: { "fill-color": ["nonsense"] } }, { id: "y", type: "line", source: "nope" }]),
      view(),
      broken,
    );
    expect(near(pixels(png).at(128, 128), WHITE, 0)).toBe(true);
  });

  test("an aborted render stops with RenderAborted", async () => {
    const res = await resources({});
    const controller = new AbortController();
    controller.abort();
    expect(renderMap(style([BG]), view(), res, { signal: controller.signal })).rejects.toBeInstanceOf(RenderAborted);
  });
});

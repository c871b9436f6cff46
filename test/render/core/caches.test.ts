// What the renderer keeps between renders (decoded tiles, sprite sheets, properties evaluated once per
// zoom) must never show an old map: a tile or sprite that changed is drawn as it is now, and one style
// object drawn at another zoom gets that zoom's values.
import { describe, expect, test } from "bun:test";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import { renderMap } from "../../../src/render";
import type { RenderResources, RenderView } from "../../../src/render/types";
import { buildSprite } from "../../../src/sprites/build";
import { box, count, near, pixels, point, resources } from "./fixtures";

const view = (over: Partial<RenderView> = {}): RenderView => ({ center: [0, 0], zoom: 4, bearing: 0, width: 256, height: 256, pixelRatio: 1, ...over });
const BG = { id: "bg", type: "background", paint: { "background-color": "#ffffff" } };
const style = (layers: unknown[]) => ({ version: 8, sources: { v: { type: "vector" } }, layers }) as StyleSpecification;
const RED: [number, number, number] = [255, 0, 0];
const BLUE: [number, number, number] = [0, 0, 255];

/** Resources whose tiles come from `current()`, so a test can swap the data between renders. */
function swappable(current: () => Awaited<ReturnType<typeof resources>>): RenderResources {
  return {
    tile: (...args) => current().tile(...args),
    sourceInfo: (id) => current().sourceInfo(id),
    geojson: (id) => current().geojson(id),
    sprite: (ratio) => current().sprite(ratio),
    font: (name) => current().font(name),
  };
}

describe("caches across renders", () => {
  test("a tile whose bytes changed (a republished tileset) is drawn with its new features", async () => {
    const fill = { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#ff0000" } };
    const west = await resources({ vector: { v: { layers: { land: [box(-4, -2, -1, 2)] } } } });
    const east = await resources({ vector: { v: { layers: { land: [box(1, -2, 4, 2)] } } } });
    let now = west;
    const res = swappable(() => now);
    const first = pixels(await renderMap(style([BG, fill]), view(), res));
    expect(near(first.at(128 - 60, 128), RED)).toBe(true);
    expect(near(first.at(128 + 60, 128), RED)).toBe(false);
    now = east;
    const second = pixels(await renderMap(style([BG, fill]), view(), res));
    expect(near(second.at(128 - 60, 128), RED)).toBe(false);
    expect(near(second.at(128 + 60, 128), RED)).toBe(true);
  });

  test("a tile that is not a vector tile still draws nothing, render after render", async () => {
    const res: RenderResources = {
      ...(await resources({})),
      tile: async () => new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
      sourceInfo: () => ({ type: "vector", tileSize: 512, minzoom: 0, maxzoom: 14 }),
    };
    for (let i = 0; i < 2; i++) {
      const p = pixels(await renderMap(style([BG, { id: "f", type: "fill", source: "v", "source-layer": "land", paint: { "fill-color": "#ff0000" } }]), view(), res));
      expect(count(p, (px) => near(px, RED))).toBe(0);
    }
  });

  test("a sprite sheet that changed is drawn with its new images", async () => {
    const square = (fill: string) =>
      buildSprite([{ name: "square", bytes: new TextEncoder().encode(`<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><rect width="20" height="20" fill="${fill}"/></svg>`) }]);
    const redSheet = await square("#ff0000");
    const blueSheet = await square("#0000ff");
    const points = await resources({ vector: { v: { layers: { pts: [point(0, 0)] } } } });
    let sheet = redSheet;
    const res: RenderResources = { ...points, sprite: async () => ({ json: sheet["1x"].index, png: sheet["1x"].png }) };
    const layers = [BG, { id: "i", type: "symbol", source: "v", "source-layer": "pts", layout: { "icon-image": "square" } }];
    expect(near(pixels(await renderMap(style(layers), view(), res)).at(128, 128), RED)).toBe(true);
    sheet = blueSheet;
    expect(near(pixels(await renderMap(style(layers), view(), res)).at(128, 128), BLUE)).toBe(true);
  });

  test("a zoom-dependent property of one style object takes each render's zoom", async () => {
    const res = await resources({ vector: { v: { layers: { pts: [point(0, 0)] } } } });
    const circles = style([
      BG,
      { id: "c", type: "circle", source: "v", "source-layer": "pts", paint: { "circle-color": "#ff0000", "circle-radius": ["interpolate", ["linear"], ["zoom"], 2, 4, 6, 40] } },
    ]);
    const red = (z: number) => renderMap(circles, view({ zoom: z }), res).then((png) => count(pixels(png), (px) => near(px, RED)));
    const small = await red(2);
    const large = await red(6);
    expect(small).toBeGreaterThan(30); // radius 4: about 50 px
    expect(small).toBeLessThan(80);
    expect(large).toBeGreaterThan(4500); // radius 40: about 5000 px
    expect(await red(2)).toBe(small);
  });
});

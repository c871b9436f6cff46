// Hillshade and color-relief of a raster-DEM tileset in static images through the real app: a published
// Terrarium DEM with an east-west ridge, styles with a background and a DEM layer over it (mapstead://
// source). Hillshade lights the north slope (towards the default light from 335°) and shades the south;
// color-relief colours the crest and the slopes by their heights.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../support/app";
import { demMbtiles, demWebpMbtiles } from "../../support/dem";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { createTileset, publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { colorAt, createStyle, pixelsOf, type Pixels } from "./world";

let t: TestApp;
let key: string;
let headers: Record<string, string>;

/** A ridge along latitude 46.5 between lon 7 and 8: 15 km high there, falling 30 m per 1/1000 degree to either side. */
const ridge = (_lon: number, lat: number) => 15000 - 30000 * Math.abs(lat - 46.5);
const GREY = 128;

beforeAll(async () => {
  t = await makeTestApp();
  const orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  key = seedKey(t.ctx, orgId, ["static_maps"]).secret;
  const path = join(tempDir("hillshade-"), "ridge.mbtiles");
  demMbtiles(path, "terrarium", 8, [7, 46, 8, 47], ridge, { declareEncoding: true });
  await createTileset(t, "acme", headers, { slug: "ridge" });
  expect((await upload(t, "acme", "ridge", headers, new Uint8Array(readFileSync(path)))).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "ridge", 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "ridge", 1, headers)).status).toBe(200);
});
afterAll(() => t?.close());

function reliefStyle(hillshade: Record<string, unknown> = {}, type = "hillshade") {
  return {
    version: 8,
    sources: { dem: { type: "raster-dem", url: "mapstead://tilesets/acme/ridge", tileSize: 256 } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": `rgb(${GREY},${GREY},${GREY})` } },
      { id: "hills", type, source: "dem", ...hillshade },
    ],
  };
}

async function image(style: string, view = "7.5,46.5,8", size = "300x300"): Promise<Pixels> {
  const res = await t.fetch(`/static/v1/acme/${style}/${view}/${size}.png?attribution=false&logo=false`, { headers: { "x-api-key": key } });
  if (res.status !== 200) throw new Error(`${style}: ${res.status} ${await res.text()}`);
  return pixelsOf(new Uint8Array(await res.arrayBuffer()));
}

const grey = (px: Pixels, x: number, y: number) => colorAt(px, x, y)[0];

describe("hillshade in static images", () => {
  test("the ridge's north slope, facing the light, is lighter than the background; its south slope darker", async () => {
    await createStyle(t, headers, "relief", reliefStyle());
    const px = await image("relief");
    // rows a quarter of the way from the top and bottom: the north and south slopes
    expect(grey(px, 150, 75)).toBeGreaterThan(GREY + 30);
    expect(grey(px, 150, 225)).toBeLessThan(GREY - 30);
  });

  test("@2x and a turned map: the same shading at twice the pixels, the DEM tiles laid on as one seamless image", async () => {
    const one = await image("relief", "7.5,46.5,8,30", "300x200");
    const two = await image("relief", "7.5,46.5,8,30", "300x200@2x");
    expect([two.width, two.height]).toEqual([600, 400]);
    // the light is anchored to the viewport: turned 30°, the north slope still faces it
    for (const [x, y] of [[150, 50], [150, 150], [60, 100], [240, 100]] as const) expect(Math.abs(grey(two, x * 2, y * 2) - grey(one, x, y))).toBeLessThanOrEqual(6);
    expect(grey(one, 150, 50)).toBeGreaterThan(GREY + 30);
    expect(grey(one, 150, 150)).toBeLessThan(GREY - 30);
    // Centred on the seam between DEM tiles 132 and 133 of zoom 8 (lon 7.03125), turned: along a row of
    // the evenly lit north slope no pixel stands out from its neighbours, as a hairline would.
    const seam = await image("relief", "7.03125,46.62,9,20", "300x100");
    const row = Array.from({ length: 300 }, (_, x) => grey(seam, x, 50));
    expect(row[150]!).toBeGreaterThan(GREY + 30);
    for (let x = 1; x < 300; x++) expect(Math.abs(row[x]! - row[x - 1]!), `x ${x}`).toBeLessThanOrEqual(3);
  });

  test("a DEM of lossless WebP tiles is shaded the same as a PNG one (its tiles reach the render workers in shared memory)", async () => {
    const path = join(tempDir("hillshade-webp-"), "ridge.mbtiles");
    await demWebpMbtiles(path, "terrarium", 8, [7, 46, 8, 47], ridge, { declareEncoding: true });
    await createTileset(t, "acme", headers, { slug: "ridge-webp" });
    expect((await upload(t, "acme", "ridge-webp", headers, new Uint8Array(readFileSync(path)))).status).toBe(202);
    expect(((await waitForVersion(t, "acme", "ridge-webp", 1, headers)) as { state: string }).state).toBe("ready");
    expect((await publish(t, "acme", "ridge-webp", 1, headers)).status).toBe(200);
    const style = reliefStyle();
    style.sources.dem.url = "mapstead://tilesets/acme/ridge-webp";
    await createStyle(t, headers, "relief-webp", style);
    const [png, webp] = [await image("relief"), await image("relief-webp")];
    expect(grey(webp, 150, 75)).toBeGreaterThan(GREY + 30);
    expect(grey(webp, 150, 225)).toBeLessThan(GREY - 30);
    for (const [x, y] of [[150, 75], [150, 225], [40, 40]] as const) expect(grey(webp, x, y)).toBe(grey(png, x, y));
  });

  test("the light turns with the map: from the south (155°) the sides swap; the layer hidden draws only the background", async () => {
    await createStyle(t, headers, "relief-south", reliefStyle({ paint: { "hillshade-illumination-direction": 155 } }));
    const px = await image("relief-south");
    expect(grey(px, 150, 75)).toBeLessThan(GREY - 30);
    expect(grey(px, 150, 225)).toBeGreaterThan(GREY + 30);
    await createStyle(t, headers, "relief-hidden", reliefStyle({ maxzoom: 6 }));
    const hidden = await image("relief-hidden");
    expect(grey(hidden, 150, 75)).toBe(GREY);
    expect(grey(hidden, 150, 225)).toBe(GREY);
  });
});

describe("hillshade methods in static images", () => {
  test("multidirectional with arrays of lights is saved and drawn: a red light from the north and a blue one from the south", async () => {
    const paint = {
      "hillshade-method": "multidirectional",
      "hillshade-illumination-direction": [0, 180],
      "hillshade-highlight-color": ["#ff0000", "#0000ff"],
      "hillshade-shadow-color": "rgba(0, 0, 0, 0)",
    };
    await createStyle(t, headers, "relief-multi", reliefStyle({ paint }));
    const px = await image("relief-multi");
    // each slope faces one light and takes its colour (drawn as "standard", the south slope stayed grey)
    const [nr, , nb] = colorAt(px, 150, 75);
    const [sr, , sb] = colorAt(px, 150, 225);
    expect(nr).toBeGreaterThan(nb + 30);
    expect(sb).toBeGreaterThan(sr + 30);
  });
});

describe("color-relief in static images", () => {
  test("resampling: nearest magnifies each DEM pixel as a square, linear blends them", async () => {
    // zoom 13 over zoom-8 tiles of 256 px (each DEM pixel 64 screen pixels across), on the north slope
    // (13.2-13.8 km high there), with the ramp spread over those heights
    const steep = ["interpolate", ["linear"], ["elevation"], 13200, "#0000ff", 13800, "#ff0000"];
    const changes = async (slug: string) => {
      const px = await image(slug, "7.5,46.55,13", "300x300");
      const column = Array.from({ length: 300 }, (_, y) => colorAt(px, 150, y)[0]);
      return column.filter((v, i) => i > 0 && v !== column[i - 1]).length;
    };
    await createStyle(t, headers, "relief-linear", reliefStyle({ paint: { "color-relief-color": steep } }, "color-relief"));
    await createStyle(t, headers, "relief-nearest", reliefStyle({ paint: { "color-relief-color": steep, resampling: "nearest" } }, "color-relief"));
    // the column crosses about five DEM pixels: nearest changes colour only there, linear all along
    expect(await changes("relief-nearest")).toBeLessThanOrEqual(8);
    expect(await changes("relief-linear")).toBeGreaterThan(100);
    // hillshade takes it too, and still shades
    await createStyle(t, headers, "shade-nearest", reliefStyle({ paint: { resampling: "nearest" } }));
    expect(grey(await image("shade-nearest"), 150, 75)).toBeGreaterThan(GREY + 30);
  });

  test("the crest (15 km) takes the top stop's colour, the slope part way down a blend; translucent over the background", async () => {
    const blueToRed = ["interpolate", ["linear"], ["elevation"], 0, "#0000ff", 15000, "#ff0000"];
    await createStyle(t, headers, "colours", reliefStyle({ paint: { "color-relief-color": blueToRed } }, "color-relief"));
    const px = await image("colours");
    const [r, g, b] = colorAt(px, 150, 150);
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(15);
    expect(b).toBeLessThan(15);
    // 140 px north (about 0.27° at zoom 8 with 512-px tiles), about 7 km up: more blue than red, no green
    const [sr, sg, sb] = colorAt(px, 150, 10);
    expect(sb).toBeGreaterThan(sr);
    expect(sr).toBeGreaterThan(60);
    expect(sg).toBeLessThan(15);
    await createStyle(t, headers, "colours-half", reliefStyle({ paint: { "color-relief-color": blueToRed, "color-relief-opacity": 0.5 } }, "color-relief"));
    const half = colorAt(await image("colours-half"), 150, 150);
    expect(Math.abs(half[0] - (255 + GREY) / 2)).toBeLessThan(6);
    expect(Math.abs(half[2] - GREY / 2)).toBeLessThan(6);
  });

  test("a step over elevation draws nothing, as MapLibre reads ramp stops only from an interpolate", async () => {
    await createStyle(t, headers, "colours-step", reliefStyle({ paint: { "color-relief-color": ["step", ["elevation"], "blue", 5000, "red"] } }, "color-relief"));
    const px = await image("colours-step");
    expect(colorAt(px, 150, 150).slice(0, 3)).toEqual([GREY, GREY, GREY]);
  });
});

// A heatmap of a published GeoJSON point tileset in static images through the real app: a tight
// cluster of twenty points north-east of 0,0 and one lone point south-west, coloured by the classic
// blue-to-red ramp over a dark background. The cluster sums to a hot core, the lone point stays cool,
// and the ground between them keeps the background.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { createTileset, publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { colorAt, createStyle, pixelsOf, type Pixels } from "./world";

let t: TestApp;
let key: string;
let headers: Record<string, string>;

const BACKGROUND: [number, number, number] = [48, 48, 48];
const RED: [number, number, number] = [178, 24, 43];

function quakes(): GeoJSON.FeatureCollection {
  const cluster = Array.from({ length: 20 }, (_, i) => [10 + ((i % 5) - 2) * 0.2, 10 + (Math.floor(i / 5) - 1.5) * 0.2]);
  return {
    type: "FeatureCollection",
    features: [...cluster, [-20, -10]].map((coordinates) => ({ type: "Feature", properties: {}, geometry: { type: "Point", coordinates } })),
  };
}

beforeAll(async () => {
  t = await makeTestApp();
  const orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  key = seedKey(t.ctx, orgId, ["static_maps"]).secret;
  await createTileset(t, "acme", headers, { slug: "quakes" });
  expect((await upload(t, "acme", "quakes", headers, JSON.stringify(quakes()), "?maxzoom=4&layer=quakes")).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "quakes", 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "quakes", 1, headers)).status).toBe(200);
  await createStyle(t, headers, "heat", {
    version: 8,
    sources: { quakes: { type: "vector", url: "mapstead://tilesets/acme/quakes" } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": `rgb(${BACKGROUND})` } },
      {
        id: "heat",
        type: "heatmap",
        source: "quakes",
        "source-layer": "quakes",
        paint: {
          "heatmap-radius": ["interpolate", ["linear"], ["zoom"], 0, 10, 4, 20],
          "heatmap-color": ["interpolate", ["linear"], ["heatmap-density"], 0, "rgba(33,102,172,0)", 0.2, "rgb(103,169,207)", 0.4, "rgb(209,229,240)", 0.6, "rgb(253,219,199)", 0.8, "rgb(239,138,98)", 1, `rgb(${RED})`],
        },
      },
    ],
  });
});
afterAll(() => t?.close());

/** One point 130 CSS px east of the edge between raster tiles 2/1/1 and 2/2/1, at 30°N: beyond what a tile draws around itself. */
const EDGE_POINT: [number, number] = [(130 / 256) * 90, 30];

/** A heatmap of one point whose kernel (radius 160 px) reaches 30 px past the edge into the western tile. */
async function createEdgeHeatmap() {
  await createTileset(t, "acme", headers, { slug: "edge" });
  const point = { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: EDGE_POINT } }] };
  expect((await upload(t, "acme", "edge", headers, JSON.stringify(point), "?maxzoom=4&layer=quakes")).status).toBe(202);
  expect(((await waitForVersion(t, "acme", "edge", 1, headers)) as { state: string }).state).toBe("ready");
  expect((await publish(t, "acme", "edge", 1, headers)).status).toBe(200);
  await createStyle(t, headers, "edge-heat", {
    version: 8,
    sources: { edge: { type: "vector", url: "mapstead://tilesets/acme/edge" } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": `rgb(${BACKGROUND})` } },
      { id: "heat", type: "heatmap", source: "edge", "source-layer": "quakes", paint: { "heatmap-radius": 160, "heatmap-intensity": 3 } },
    ],
  });
}

async function rasterTile(path: string): Promise<Pixels> {
  const res = await t.fetch(`/styles/v1/acme/edge-heat/tiles/256/${path}.png`);
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return pixelsOf(new Uint8Array(await res.arrayBuffer()));
}

async function image(view: string, size: string): Promise<Pixels> {
  const res = await t.fetch(`/static/v1/acme/heat/${view}/${size}.png?attribution=false&logo=false`, { headers: { "x-api-key": key } });
  if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
  return pixelsOf(new Uint8Array(await res.arrayBuffer()));
}

/** Screen px of lon, lat in a view centred on 0,0 at zoom 2 (2048 world px), `size` px square. */
function project(lon: number, lat: number, size: number): [number, number] {
  const world = 512 * 4;
  const y = (world / (2 * Math.PI)) * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
  return [Math.round(size / 2 + (lon / 360) * world), Math.round(size / 2 - y)];
}

const near = (c: number[], rgb: [number, number, number], tolerance = 16) => rgb.every((v, k) => Math.abs(c[k]! - v) <= tolerance);

describe("heatmap in static images", () => {
  test("the cluster's core is hot, the lone point cool, the ground between them the background", async () => {
    const px = await image("0,0,2", "300x300");
    const core = colorAt(px, ...project(10, 10, 300));
    const lone = colorAt(px, ...project(-20, -10, 300));
    expect(near(core, RED)).toBe(true);
    // one point's density (0.4 at its centre) is blue-white: more blue than red
    expect(lone[2]).toBeGreaterThan(lone[0] + 20);
    expect(lone[2]).toBeGreaterThan(BACKGROUND[2] + 60);
    expect(near(colorAt(px, ...project(-5, 0, 300)), BACKGROUND, 2)).toBe(true);
    expect(near(colorAt(px, 5, 295), BACKGROUND, 2)).toBe(true);
  });

  test("@2x draws the same heatmap at twice the pixels", async () => {
    const one = await image("0,0,2", "300x300");
    const two = await image("0,0,2", "300x300@2x");
    expect([two.width, two.height]).toEqual([600, 600]);
    for (const [lon, lat] of [[10, 10], [-20, -10], [11, 11]] as const) {
      const [x, y] = project(lon, lat, 300);
      const a = colorAt(one, x, y);
      const b = colorAt(two, 2 * x, 2 * y);
      expect(near(b, [a[0], a[1], a[2]], 24)).toBe(true);
    }
  });
});

describe("heatmap in raster tiles", () => {
  test("a kernel from a point past the drawn margin reaches into the neighbouring tile, with no seam between the two", async () => {
    await createEdgeHeatmap();
    const west = await rasterTile("2/1/1");
    const east = await rasterTile("2/2/1");
    // the point's row: 30°N in a 1024-px world, less the 256 px of row 0
    const row = Math.round((1 - Math.log(Math.tan(Math.PI / 4 + (EDGE_POINT[1] * Math.PI) / 360)) / Math.PI) * 512 - 256);
    // the western tile's last column is coloured by the kernel, 130 px from its point
    expect(near(colorAt(west, 255, row), BACKGROUND, 8)).toBe(false);
    let worst = 0;
    for (let y = 0; y < 256; y++) {
      const a = colorAt(west, 255, y);
      const b = colorAt(east, 0, y);
      worst = Math.max(worst, ...[0, 1, 2].map((k) => Math.abs(a[k]! - b[k]!)));
    }
    // one column apart, a smooth kernel changes by a few levels; a seam by far more
    expect(worst).toBeLessThan(24);
  });
});

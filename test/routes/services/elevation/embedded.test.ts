// Embedded elevation over HTTP: the elevation API answered from the raster-DEM tileset named by
// ELEVATION_TILESET (no OpenTopoData), with /health/detailed and /setup/preflight saying what is wrong
// until it is set up. Heights follow a known plane, so every answer can be checked (bilinear, < 0.5 m).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { demMbtiles, demWebpMbtiles, geotiffBytes, hgtBytes, lonLatOfPixel, ramp, type HeightAt } from "../../../support/dem";
import { encodeDemTile } from "../../../../src/tiles/dem/encoding";
import { createTileset, publish, upload, waitForVersion, writeMbtiles, vectorTiles, cities } from "../../management/tilesets/fixtures";

let t: TestApp;
let admin: Record<string, string>;
let key: Record<string, string>;
let versions = 0;
const dir = tempDir("embedded-elevation-");
const ALPS: [number, number, number, number] = [7, 46, 8, 47];

beforeAll(async () => {
  t = await makeTestApp({ ELEVATION_TILESET: "acme/dem" });
  const org = seedOrg(t.ctx, "acme");
  admin = (await seedSession(t.ctx, { orgId: org.id, isAdmin: true })).headers;
  key = { "x-api-key": seedKey(t.ctx, org.id, ["elevation"]).secret };
});
afterAll(() => t.close());

const get = (path: string) => t.fetch(path, { headers: key });

/** Uploads a new version of acme/dem, waits until it is ready, publishes it and returns its record. */
async function publishDem(body: BodyInit | Uint8Array, query = "") {
  const res = await upload(t, "acme", "dem", admin, body, query);
  expect(res.status).toBe(202);
  const n = ++versions;
  const v = await waitForVersion(t, "acme", "dem", n, admin);
  expect(v.error ?? null).toBeNull();
  expect((await publish(t, "acme", "dem", n, admin)).status).toBe(200);
  return v as unknown as { version: number; warnings: string[] };
}

function demArchive(encoding: "terrarium" | "mapbox", height: HeightAt = ramp): Uint8Array {
  const path = join(dir, `${encoding}-${versions}.mbtiles`);
  demMbtiles(path, encoding, 10, ALPS, height, { declareEncoding: true });
  return new Uint8Array(readFileSync(path));
}

/** Random points well inside the test area, fixed per call site so failures reproduce. */
function randomPoints(n: number, seed: number): [number, number][] {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const round = (v: number) => Math.round(v * 1e5) / 1e5;
  return Array.from({ length: n }, () => [round(7.02 + next() * 0.96), round(46.02 + next() * 0.96)]);
}

async function lookup(points: [number, number][]): Promise<number[]> {
  const res = await get(`/elevation/v1/${points.map((p) => p.join(",")).join(";")}`);
  expect(res.status).toBe(200);
  return (await res.json()).elevations.map((e: { elevation: number }) => e.elevation);
}

async function health() {
  return (await (await t.fetch("/health/detailed")).json()).components.elevation;
}
async function preflightCheck() {
  const body = await (await t.fetch("/setup/preflight", { headers: admin })).json();
  return body.checks.find((c: { id: string }) => c.id === "elevation");
}

describe("until the DEM tileset is usable", () => {
  test("a missing tileset: 503 ELEVATION_NOT_CONFIGURED, health and preflight say how to fix it", async () => {
    const res = await get("/elevation/v1/7.5,46.5");
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("ELEVATION_NOT_CONFIGURED");
    expect(await health()).toMatchObject({ status: "down", backend: "embedded", detail: "the DEM tileset acme/dem does not exist" });
    const check = await preflightCheck();
    expect(check.status).toBe("fail");
    expect(check.fix).toContain("Create the tileset acme/dem");
  });

  test("an unpublished tileset, then a vector one, are named as such", async () => {
    await createTileset(t, "acme", admin, { slug: "dem", attribution: "Test DEM (CC0)" });
    expect((await health()).detail).toBe("the DEM tileset acme/dem has no published version");
    expect((await preflightCheck()).fix).toContain("Publish a ready version of acme/dem");
    const path = join(dir, "vector.mbtiles");
    writeMbtiles(path, vectorTiles(await cities(10), "cities", 1), { format: "pbf" });
    await publishDem(new Uint8Array(readFileSync(path)));
    expect((await health()).detail).toMatch(/acme\/dem is not a raster DEM \(its tiles are pbf/);
    expect((await get("/elevation/v1/7.5,46.5")).status).toBe(503);
  });
});

describe("answers from a Terrarium DEM", () => {
  beforeAll(async () => {
    await publishDem(demArchive("terrarium"));
  });

  test("random points come back within 0.5 m of the known heights, with the tileset's attribution", async () => {
    const points = randomPoints(50, 1);
    const res = await get(`/elevation/v1/${points.map((p) => p.join(",")).join(";")}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, max-age=86400");
    const body = await res.json();
    expect(body.attribution).toBe("Test DEM (CC0)");
    expect(body.units).toBe("m");
    body.elevations.forEach((e: { elevation: number; location: { lon: number; lat: number } }, i: number) => {
      expect(e.location).toEqual({ lon: points[i]![0], lat: points[i]![1] });
      expect(Math.abs(e.elevation - ramp(points[i]![0], points[i]![1]))).toBeLessThan(0.5);
    });
  });

  test("points on tile edges and pixel centres interpolate across tiles", async () => {
    // 7.03125 is a tile edge at z10 (x = 532); bilinear must read the pixels of both neighbours.
    const points: [number, number][] = [[7.03125, 46.3], [7.5, 46.5], [7.9999, 46.0001]];
    const got = await lookup(points);
    got.forEach((h, i) => expect(Math.abs(h - ramp(points[i]![0], points[i]![1]))).toBeLessThan(0.5));
  });

  test("a profile along a path samples the same surface", async () => {
    const res = await get("/elevation/v1/along/7.1,46.1;7.9,46.9?samples=20");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.profile).toHaveLength(20);
    for (const p of body.profile) expect(Math.abs(p.elevation - ramp(p.location.lon, p.location.lat))).toBeLessThan(0.5);
    expect(body.summary.total_ascent).toBeGreaterThan(390);
    expect(body.attribution).toBe("Test DEM (CC0)");
  });

  test("points outside the coverage: 404 NO_ELEVATION_DATA with their indices", async () => {
    const res = await get("/elevation/v1/7.5,46.5;20,10;7.2,46.1;-100,40");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NO_ELEVATION_DATA");
    expect(body.error.details).toEqual({ indices: [1, 3] });
    const along = await get("/elevation/v1/along/7.5,46.5;9.5,46.5?samples=5");
    expect(along.status).toBe(404);
    expect((await along.json()).error.details.indices).toEqual([2, 3, 4]);
  });

  test("bad coordinates are still 400 naming the point", async () => {
    const res = await get("/elevation/v1/7.5,46.5;7.5,146");
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain("Point 1");
  });

  test("health and preflight report the embedded backend with coverage, size and age", async () => {
    const h = await health();
    expect(h.status).toBe("ok");
    expect(h.backend).toBe("embedded");
    expect(h.detail).toMatch(/^embedded DEM acme\/dem@\d+ \(terrarium, zoom 10-10, covers 7,46,8,47, [\d.]+ MiB, built \d{4}-\d\d-\d\d\)$/);
    expect((await preflightCheck()).status).toBe("pass");
  });
});

describe("replacing the DEM", () => {
  test("Terrain-RGB decodes to the same heights as Terrarium; a newly published version answers at once", async () => {
    const points = randomPoints(30, 7);
    const terrarium = await lookup(points);
    await publishDem(demArchive("mapbox"));
    const mapbox = await lookup(points);
    mapbox.forEach((h, i) => expect(Math.abs(h - terrarium[i]!)).toBeLessThan(0.2));
    await publishDem(demArchive("terrarium", (lon, lat) => ramp(lon, lat) + 100));
    const raised = await lookup(points);
    raised.forEach((h, i) => expect(Math.abs(h - terrarium[i]! - 100)).toBeLessThan(0.5));
  });

  test("between pixel centres the answer is the exact bilinear blend (one 2 x 2 pixel tile)", async () => {
    const path = join(dir, "two-by-two.mbtiles");
    writeMbtiles(path, [[0, 0, 0, encodeDemTile([0, 100, 200, 300], 2, "terrarium")]], { format: "png", encoding: "terrarium", minzoom: "0", maxzoom: "0" });
    await publishDem(new Uint8Array(readFileSync(path)));
    // A quarter of the way from the west pixel centre to the east one, half way south: 125 m.
    const [lon, lat] = lonLatOfPixel(0.25, 0.5, 0, 2).map((v) => Math.round(v * 1e7) / 1e7) as [number, number];
    expect(await lookup([[lon, lat]])).toEqual([125]);
  });

  test("a Terrarium MBTiles of lossless WebP tiles answers within 0.5 m at random points, as its PNG twin does", async () => {
    const path = join(dir, "terrarium-webp.mbtiles");
    await demWebpMbtiles(path, "terrarium", 10, ALPS, ramp, { declareEncoding: true });
    await publishDem(new Uint8Array(readFileSync(path)));
    const points = randomPoints(40, 11);
    const got = await lookup(points);
    got.forEach((h, i) => expect(Math.abs(h - ramp(points[i]![0], points[i]![1]))).toBeLessThan(0.5));
    expect((await (await t.fetch("/tiles/v1/acme/dem.json")).json()).format).toBe("webp");
    await publishDem(demArchive("terrarium"));
    expect(await lookup(points)).toEqual(got);
  });

  test("a DEM built from an .hgt answers within 0.5 m at random points", async () => {
    await publishDem(hgtBytes(121, { lon: 7, lat: 46 }, ramp), "?filename=N46E007.hgt&maxzoom=10");
    const points = randomPoints(40, 3);
    const got = await lookup(points);
    got.forEach((h, i) => expect(Math.abs(h - ramp(points[i]![0], points[i]![1]))).toBeLessThan(0.5));
    // On its edges too: the tiles' pixels beyond the data (0 m) are not blended in (they were: 8,46.5
    // answered 426 m for 1,350 m). Off by at most the ramp's rise over one z10 pixel there.
    const edges: [number, number][] = [[8, 46.5], [7.9999, 46.5], [7.5, 47], [7.5, 46.9999], [7, 47], [7, 46], [8, 46]];
    (await lookup(edges)).forEach((h, i) => expect({ at: edges[i], off: Math.abs(h - ramp(...edges[i]!)) < 0.6 }).toEqual({ at: edges[i], off: true }));
  });

  test("a DEM built from a GeoTIFF answers within 0.5 m at random points", async () => {
    await publishDem(geotiffBytes(100, 100, ALPS, ramp), "?filename=alps.tif&encoding=mapbox&maxzoom=10");
    const points = randomPoints(40, 5);
    const got = await lookup(points);
    got.forEach((h, i) => expect(Math.abs(h - ramp(points[i]![0], points[i]![1]))).toBeLessThan(0.5));
    expect((await health()).detail).toContain("(mapbox, zoom 0-10");
  });
});

describe("where the DEM has no data", () => {
  const NO_DATA_WARNING = "maps show 0 m there and the elevation API answers 404 NO_ELEVATION_DATA";

  async function noData(path: string): Promise<number[]> {
    const res = await get(path);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NO_ELEVATION_DATA");
    return body.error.details.indices;
  }
  const within = async (points: [number, number][], metres: number) =>
    (await lookup(points)).forEach((h, i) => expect({ at: points[i], off: Math.abs(h - ramp(...points[i]!)) < metres }).toEqual({ at: points[i], off: true }));

  test("a mosaic with a gap between its files: points in the gap are 404 like points outside, the files' edges answer their own heights, and the build warns", async () => {
    // N46E007 and N46E009 without N46E008: they answered 0 m at 8.01 and 8.99, 1048.89 m at 8,46.5 (the
    // edge blended with the 0 m drawn in the gap), and 404 only at 8.5, whose tile held nothing.
    const zip = zipSync({ "N46E007.hgt": hgtBytes(121, { lon: 7, lat: 46 }, ramp), "N46E009.hgt": hgtBytes(121, { lon: 9, lat: 46 }, ramp) });
    const v = await publishDem(zip, "?filename=gap.hgt.zip&maxzoom=10");
    expect(v.warnings).toEqual([`gap.hgt.zip: the files leave gaps in their bounding box 7,46,10,47 (33% of it has no file); ${NO_DATA_WARNING}`]);
    expect(await noData("/elevation/v1/8.01,46.5;7.5,46.5;8.05,46.5;8.5,46.5;8.99,46.5;9.5,46.5")).toEqual([0, 2, 3, 4]);
    // On the last column of N46E007 and the first of N46E009, and next to them: within the ramp's rise over a z10 pixel.
    await within([[8, 46.5], [7.9999, 46.5], [9, 46.5], [9.0001, 46.5], [8, 46.01], [9, 46.99]], 0.6);
    // A profile across the gap reports its samples there as it does samples outside the coverage.
    expect(await noData("/elevation/v1/along/7.5,46.5;9.5,46.5?samples=3")).toEqual([1]);
  });

  test("SRTM voids: a point in one is 404 whether its tile holds other data or none, a profile over one is 404 naming its samples, and points beside one answer real heights", async () => {
    // Two voids in N46E007: a small one in the north-west and one so large that whole tiles hold nothing.
    const withVoids: HeightAt = (lon, lat) => ((lon <= 7.1 && lat >= 46.9) || (lon >= 7.5 && lat <= 46.4) ? -32768 : ramp(lon, lat));
    const v = await publishDem(hgtBytes(121, { lon: 7, lat: 46 }, withVoids), "?filename=N46E007.hgt&maxzoom=10");
    expect(v.warnings).toEqual([expect.stringMatching(new RegExp(`^N46E007\\.hgt: \\d+ of 14641 samples are voids \\(no data\\); ${NO_DATA_WARNING}$`))]);
    // The profile that answered 0, 0, 2462 ... with a total ascent of 2470 m.
    expect(await noData("/elevation/v1/along/7.04,46.95;7.2,46.95?samples=5")).toEqual([0, 1]);
    // 7.05,46.95 and 7.6,46.2 lie in tiles that hold data elsewhere (they answered 0 m); tile 10/534/363
    // holds none and is left out (7.9,46.2 was already 404): all are the same 404 now.
    expect((await t.fetch(`/tiles/v1/acme/dem@${v.version}/10/534/363.png`)).status).toBe(204);
    expect(await noData("/elevation/v1/7.5,46.9;7.05,46.95;7.6,46.2;7.9,46.2")).toEqual([1, 2, 3]);
    // Beside the voids only real samples are blended: off by at most the ramp's rise over half a sample.
    await within([[7.12, 46.95], [7.05, 46.88], [7.48, 46.2], [7.7, 46.42], [7.3, 46.6]], 1);
  });

  test("a DEM built before the no-data mark (0 m drawn for no data, unmarked) answers as it always did", async () => {
    // Its tiles say 0 m wherever the old build had no data; without the mark that is a height like any other.
    const path = join(dir, "unmarked.mbtiles");
    demMbtiles(path, "terrarium", 10, ALPS, (lon, lat) => (lon < 7.5 ? 0 : ramp(lon, lat)), { declareEncoding: true });
    await publishDem(new Uint8Array(readFileSync(path)));
    expect(await lookup([[7.25, 46.5]])).toEqual([0]);
    await within([[7.75, 46.5]], 0.5);
  });
});

describe("the edges of the world", () => {
  // A world DEM at z0 (one 256 px tile) declared to reach the poles; Web Mercator stops at ±85.0511, and
  // so do the archive's bounds. A plane in lon/lat keeps every height inside Terrarium's range.
  const plane: HeightAt = (lon, lat) => 100 + 10 * lon + 20 * lat;
  const atPixel = (px: number, py: number) => plane(...lonLatOfPixel(px, py, 0, 256));

  beforeAll(async () => {
    const path = join(dir, "world.mbtiles");
    demMbtiles(path, "terrarium", 0, [-180, -90, 180, 90], plane, { declareEncoding: true });
    await publishDem(new Uint8Array(readFileSync(path)));
  });

  test("lon ±180 at the top and bottom rows and the equator answer the edge pixels' heights", async () => {
    const points: [number, number][] = [[-180, 85.0511], [180, 85.0511], [-180, -85.0511], [180, -85.0511], [-180, 0], [180, 0], [0, -85.0511]];
    const expected = [atPixel(0, 0), atPixel(255, 0), atPixel(0, 255), atPixel(255, 255), atPixel(0, 127.5), atPixel(255, 127.5), atPixel(127.5, 255)];
    // The plane at the pixel centres nearest the corners (half a pixel in from ±180 and ±85.0511).
    expect(expected.map(Math.round)).toEqual([7, 3593, -3393, 193, -1693, 1893, -1600]);
    (await lookup(points)).forEach((h, i) => expect({ at: points[i], h }).toEqual({ at: points[i], h: expect.closeTo(expected[i]!, 0) }));
  });

  test("lat ±90 lie beyond the DEM (Web Mercator ends at ±85.0511): 404 NO_ELEVATION_DATA naming them, not a height read past the tile", async () => {
    const res = await get("/elevation/v1/0,-90;-180,-90;180,90;0,90;0,0");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(body.error.code).toBe("NO_ELEVATION_DATA");
    expect(body.error.details).toEqual({ indices: [0, 1, 2, 3] });
    expect(await lookup([[0, 0]])).toEqual([expect.closeTo(atPixel(127.5, 127.5), 0)]);
  });
});

// Raster tiles of published styles and their TileJSON over HTTP: what they draw, their addressing
// (256 tiles one zoom below 512 tiles, @2x), caching (immutable versioned, max-age=60 stable, private),
// ETag/304, private styles, and every bad address.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import jpeg from "jpeg-js";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedSession } from "../../support/seed";
import { buildWorld, createStyle, worldStyle, CITY, countColor, LAND, OCEAN, pixelsOf, type Pixels, type World } from "./world";

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await makeTestApp();
  w = await buildWorld(t);
});
afterAll(() => t?.close());

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

async function tile(path: string, headers: Record<string, string> = {}) {
  const res = await t.fetch(path, { headers });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toBe("image/png");
  return { res, px: pixelsOf(new Uint8Array(await res.arrayBuffer())) };
}

describe("tiles", () => {
  test("256 and 512 tiles, @2x; anonymous for a public style, with CORS for any origin", async () => {
    const { res, px } = await tile("/styles/v1/acme/world/tiles/256/1/1/0.png", { origin: "https://leaflet.example" });
    expect([px.width, px.height]).toEqual([256, 256]);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // North-east quarter of the world: Eurasia and the Arctic ocean.
    expect(countColor(px, LAND)).toBeGreaterThan(256 * 256 * 0.25);
    expect(countColor(px, OCEAN)).toBeGreaterThan(256 * 256 * 0.1);
    expect((await tile("/styles/v1/acme/world/tiles/512/1/1/0.png")).px.width).toBe(512);
    expect((await tile("/styles/v1/acme/world/tiles/256/1/1/0@2x.png")).px.width).toBe(512);
  });

  test("a 256 tile shows what the 512 tile one zoom lower shows at the same place", async () => {
    // 256 tile 2/2/0 is the top-left quarter of 512 tile 1/1/0: the same area, drawn at the same zoom.
    const small = (await tile("/styles/v1/acme/world/tiles/256/2/2/0.png")).px;
    const big = (await tile("/styles/v1/acme/world/tiles/512/1/1/0.png")).px;
    let same = 0;
    for (let y = 0; y < 256; y++)
      for (let x = 0; x < 256; x++) {
        const a = (y * 256 + x) * 4;
        const b = (y * 512 + x) * 4;
        if (Math.abs(small.data[a]! - big.data[b]!) + Math.abs(small.data[a + 1]! - big.data[b + 1]!) + Math.abs(small.data[a + 2]! - big.data[b + 2]!) < 30) same++;
      }
    // Labels may be placed differently near tile edges; the rest is the same map.
    expect(same / (256 * 256)).toBeGreaterThan(0.85);
  });

  test("the whole world as one 256 tile at zoom 0", async () => {
    const { px } = await tile("/styles/v1/acme/world/tiles/256/0/0/0.png");
    expect([px.width, px.height]).toEqual([256, 256]);
    expect(countColor(px, LAND)).toBeGreaterThan(256 * 256 * 0.15);
    expect(countColor(px, OCEAN)).toBeGreaterThan(256 * 256 * 0.3);
  });

  test("a 256 tile at zoom 0 draws circles at their size in pixels, as every other tile does", async () => {
    // The town circles have radius 3: 5-6 px across at full colour. Drawing the world at 512 and halving it made
    // them (and labels) half that.
    const z0 = commonBlobWidth((await tile("/styles/v1/acme/world/tiles/256/0/0/0.png")).px, CITY);
    const z1 = commonBlobWidth((await tile("/styles/v1/acme/world/tiles/256/1/1/0.png")).px, CITY);
    expect(z1).toBeGreaterThanOrEqual(5);
    expect(z0).toBe(z1);
  });

  test("caching: versioned immutable, stable one minute, strong ETag and 304", async () => {
    const versioned = (await tile("/styles/v1/acme/world@1/tiles/256/1/0/0.png")).res;
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = versioned.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await t.fetch("/styles/v1/acme/world@1/tiles/256/1/0/0.png", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const stable = (await tile("/styles/v1/acme/world/tiles/256/1/0/0.png")).res;
    expect(stable.headers.get("cache-control")).toBe("public, max-age=60");
    expect(stable.headers.get("etag")).toBeTruthy();
  });

  test("a private style: 404 for anyone who may not read it, private caching for who may", async () => {
    const anon = await t.fetch("/styles/v1/acme/secret/tiles/256/1/0/0.png");
    expect(anon.status).toBe(404);
    expect((await errorOf(anon)).code).toBe("STYLE_NOT_FOUND");
    const noMapsRead = await t.fetch("/styles/v1/acme/secret/tiles/256/1/0/0.png", { headers: { "x-api-key": w.staticKey } });
    expect(noMapsRead.status).toBe(404);
    const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
    const ok = (await tile("/styles/v1/acme/secret/tiles/256/1/0/0.png", { "x-api-key": key })).res;
    expect(ok.headers.get("cache-control")).toBe("private");
  });

  test("a private style with a maps:read key in access_token, for URL templates that cannot send headers", async () => {
    const key = seedKey(t.ctx, w.orgId, ["maps:read"]).secret;
    const token = `access_token=${encodeURIComponent(key)}`;
    const { res, px } = await tile(`/styles/v1/acme/secret/tiles/256/1/1/0.png?${token}`);
    expect(res.headers.get("cache-control")).toBe("private");
    expect(countColor(px, LAND)).toBeGreaterThan(256 * 256 * 0.25);
    const tj = await t.fetch(`/styles/v1/acme/secret/tiles.json?tile_size=512&${token}`);
    expect(tj.status).toBe(200);
    expect(tj.headers.get("cache-control")).toBe("private");
    // A client given only the TileJSON URL requests the tiles as listed, so the key it came with is
    // repeated there (as Mapbox's TileJSON does), and each of those tiles loads.
    const tiles = (await tj.json()).tiles as string[];
    expect(tiles).toEqual([`${t.baseUrl}/styles/v1/acme/secret/tiles/512/{z}/{x}/{y}.png?${token}`]);
    expect((await t.fetch(tiles[0]!.replace(t.baseUrl, "").replace("{z}/{x}/{y}", "1/1/0"))).status).toBe(200);
    // A key sent as X-API-Key is sent with the tiles too, so it is not written into the TileJSON.
    const byHeader = await (await t.fetch("/styles/v1/acme/secret/tiles.json", { headers: { "x-api-key": key } })).text();
    expect(byHeader).not.toContain(key);
    // A public style asked for with a key lists tiles that carry it as well, and is then private.
    const pub = await t.fetch(`/styles/v1/acme/world@1/tiles.json?${token}`);
    expect(pub.headers.get("cache-control")).toBe("private");
    expect((await pub.json()).tiles[0]).toEndWith(`.png?${token}`);
    // Without maps:read, or with a key that is no key, the private style is the same 404 as a missing one;
    // a public style still loads.
    for (const other of [w.staticKey, "nope"]) {
      const hidden = await t.fetch(`/styles/v1/acme/secret/tiles/256/1/1/0.png?access_token=${encodeURIComponent(other)}`);
      expect(hidden.status).toBe(404);
      expect((await errorOf(hidden)).code).toBe("STYLE_NOT_FOUND");
      expect((await t.fetch(`/styles/v1/acme/world/tiles/256/1/1/0.png?access_token=${encodeURIComponent(other)}`)).status).toBe(200);
    }
  });

  test("Mapbox's Static Tiles URL without an extension is a PNG, @2x included", async () => {
    const plain = await tile("/styles/v1/acme/world/tiles/256/1/1/0");
    const png = await tile("/styles/v1/acme/world/tiles/256/1/1/0.png");
    expect([plain.px.width, plain.px.height]).toEqual([256, 256]);
    // The same tile as the .png URL: the same pixels and the same ETag.
    expect(plain.res.headers.get("etag")).toBe(png.res.headers.get("etag"));
    expect(countColor(plain.px, LAND)).toBe(countColor(png.px, LAND));
    expect((await tile("/styles/v1/acme/world/tiles/512/1/1/0@2x")).px.width).toBe(1024);
  });

  test(".jpg (.jpeg) and .webp tiles, as for static images, each with an ETag of its own", async () => {
    const etags = new Set<string>();
    for (const [ext, type] of [["jpg", "image/jpeg"], ["jpeg", "image/jpeg"], ["webp", "image/webp"], ["png", "image/png"]] as const) {
      const res = await t.fetch(`/styles/v1/acme/world@1/tiles/256/1/1/0@2x.${ext}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(type);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (type === "image/jpeg") {
        const decoded = jpeg.decode(bytes, { useTArray: true });
        expect([decoded.width, decoded.height]).toEqual([512, 512]);
        expect(countColor(decoded, LAND, 20)).toBeGreaterThan(512 * 512 * 0.25);
      }
      if (type === "image/webp") expect(new TextDecoder().decode(bytes.subarray(8, 12))).toBe("WEBP");
      etags.add(`${ext === "jpeg" ? "jpg" : ext}|${res.headers.get("etag")}`);
    }
    // .jpeg is .jpg under another name; the formats differ from each other.
    expect(new Set([...etags].map((e) => e.split("|")[1])).size).toBe(3);
  });

  test("an unsupported extension is a 400 naming it and the supported ones", async () => {
    for (const ext of ["gif", "tiff", "PNG"]) {
      const res = await t.fetch(`/styles/v1/acme/world/tiles/256/1/0/0.${ext}`);
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("BAD_REQUEST");
      expect(error.message).toContain(`'.${ext}'`);
      expect(error.message).toContain(".png, .jpg or .webp");
      expect(error.message).not.toContain("non-negative integers");
    }
  });

  test("bad addresses: 400 for malformed numbers and sizes, 404 outside the world", async () => {
    for (const p of ["/styles/v1/acme/world/tiles/300/1/0/0.png", "/styles/v1/acme/world/tiles/256/a/0/0.png", "/styles/v1/acme/world/tiles/256/1/0/0.gif", "/styles/v1/acme/world/tiles/256/1/-1/0.png", "/styles/v1/acme/world/tiles/256/1/0/0@3x.png", "/styles/v1/acme/world/tiles/256/1/0/0@2x@2x", "/styles/v1/acme/world/tiles/256/1/0/0."]) {
      const res = await t.fetch(p);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).code).toBe("BAD_REQUEST");
    }
    for (const p of ["/styles/v1/acme/world/tiles/256/1/2/0.png", "/styles/v1/acme/world/tiles/256/23/0/0.png"]) {
      const res = await t.fetch(p);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe("TILE_NOT_FOUND");
    }
    for (const p of ["/styles/v1/acme/nope/tiles/256/0/0/0.png", "/styles/v1/acme/world@7/tiles/256/0/0/0.png"]) {
      const res = await t.fetch(p);
      expect(res.status).toBe(404);
      expect((await errorOf(res)).code).toBe("STYLE_NOT_FOUND");
    }
  });
});

test("metrics count raster tiles and static images in groups of their own", async () => {
  await t.fetch("/styles/v1/acme/world@1/tiles/256/1/0/0.png");
  await t.fetch("/styles/v1/acme/world/tiles.json");
  await t.fetch("/static/v1/acme/world/0,0,1/64x64.png"); // no key: 401, counted all the same
  await Bun.sleep(10); // after-response hooks run once the response is handed back
  const body = await (await t.fetch("/metrics")).text();
  expect(body).toMatch(/mapstead_http_requests_total\{group="raster_tiles",method="GET",status="2xx"\} [1-9]/);
  expect(body).toMatch(/mapstead_http_requests_total\{group="static",method="GET",status="4xx"\} [1-9]/);
});

describe("TileJSON", () => {
  test("points at the tiles of the URL asked (stable or versioned), carries the attribution, caches like the style", async () => {
    const res = await t.fetch("/styles/v1/acme/world/tiles.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    const tj = await res.json();
    expect(tj).toMatchObject({
      tilejson: "3.0.0",
      name: "World",
      scheme: "xyz",
      tileSize: 256,
      minzoom: 0,
      maxzoom: 22,
      format: "png",
      attribution: "© Test Atlas",
      tiles: [`${t.baseUrl}/styles/v1/acme/world/tiles/256/{z}/{x}/{y}.png`],
    });
    const big = await (await t.fetch("/styles/v1/acme/world@1/tiles.json?tile_size=512")).json();
    expect(big.tiles).toEqual([`${t.baseUrl}/styles/v1/acme/world@1/tiles/512/{z}/{x}/{y}.png`]);
    const versioned = await t.fetch("/styles/v1/acme/world@1/tiles.json");
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = versioned.headers.get("etag")!;
    expect((await t.fetch("/styles/v1/acme/world@1/tiles.json", { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  test("its centre zoom is a whole zoom in the numbering of its tiles (256 tiles one above MapLibre's zoom)", async () => {
    const session = await seedSession(t.ctx, { orgId: w.orgId, email: "centre@example.com" });
    await createStyle(t, session.headers, "centred", { ...worldStyle(), center: [10, 20], zoom: 2.6 });
    const small = await (await t.fetch("/styles/v1/acme/centred/tiles.json")).json();
    expect(small.center).toEqual([10, 20, 4]);
    const big = await (await t.fetch("/styles/v1/acme/centred/tiles.json?tile_size=512")).json();
    expect(big.center).toEqual([10, 20, 3]);
  });

  test("a style JSON without a name is named as the style is in the console (TileJSON and WMTS), renames included", async () => {
    const session = await seedSession(t.ctx, { orgId: w.orgId, email: "unnamed@example.com" });
    const { name: _, ...unnamed } = worldStyle();
    const created = await t.fetch("/api/v1/orgs/acme/styles", {
      method: "POST",
      headers: { ...session.headers, "content-type": "application/json" },
      body: JSON.stringify({ slug: "unnamed", name: "Harbour Map", style: unnamed }),
    });
    expect(created.status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/acme/styles/unnamed/publish", { method: "POST", headers: session.headers })).status).toBe(200);
    expect((await (await t.fetch("/styles/v1/acme/unnamed/tiles.json")).json()).name).toBe("Harbour Map");
    expect(await (await t.fetch("/styles/v1/acme/unnamed/wmts.xml")).text()).toContain("<ows:Title>Harbour Map</ows:Title>");
    const renamed = await t.fetch("/api/v1/orgs/acme/styles/unnamed", { method: "PATCH", headers: { ...session.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "Port Map" }) });
    expect(renamed.status).toBe(200);
    expect((await (await t.fetch("/styles/v1/acme/unnamed/tiles.json")).json()).name).toBe("Port Map");
  });

  test("a URL from the TileJSON serves a tile; bad tile_size is 400, private styles 404", async () => {
    const tj = await (await t.fetch("/styles/v1/acme/world/tiles.json")).json();
    const url = (tj.tiles[0] as string).replace(t.baseUrl, "").replace("{z}/{x}/{y}", "1/0/0");
    expect((await t.fetch(url)).status).toBe(200);
    const bad = await t.fetch("/styles/v1/acme/world/tiles.json?tile_size=300");
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).message).toContain("tile_size");
    expect((await t.fetch("/styles/v1/acme/secret/tiles.json")).status).toBe(404);
  });

  test("a query parameter given twice is a 400 naming it, on the TileJSON and on a tile (not the last one taken)", async () => {
    for (const path of ["/styles/v1/acme/world/tiles.json?tile_size=512&tile_size=256", "/styles/v1/acme/world/tiles/256/1/0/0.png?v=1&v=2"]) {
      const res = await t.fetch(path);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string; details: unknown } };
      const name = path.includes("tile_size") ? "tile_size" : "v";
      expect(body.error).toMatchObject({ code: "BAD_REQUEST", message: `${name} is given more than once`, details: { parameter: name } });
    }
  });
});

/**
 * The most common width of the connected blobs of one colour at least 3 px wide: single circles, since
 * circles that touch make wider blobs and labels over circles cut off slivers.
 */
function commonBlobWidth(px: Pixels, rgb: [number, number, number]): number {
  const { width, height, data } = px;
  const hit = (i: number) => Math.abs(data[i * 4]! - rgb[0]) < 40 && Math.abs(data[i * 4 + 1]! - rgb[1]) < 40 && Math.abs(data[i * 4 + 2]! - rgb[2]) < 40;
  const seen = new Uint8Array(width * height);
  const counts = new Map<number, number>();
  for (let start = 0; start < width * height; start++) {
    if (seen[start] || !hit(start)) continue;
    let [minX, maxX] = [Infinity, -Infinity];
    const stack = [start];
    seen[start] = 1;
    while (stack.length) {
      const i = stack.pop()!;
      const x = i % width;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      for (const j of [i - 1, i + 1, i - width, i + width]) {
        if (j < 0 || j >= width * height || seen[j] || Math.abs((j % width) - x) > 1 || !hit(j)) continue;
        seen[j] = 1;
        stack.push(j);
      }
    }
    const w = maxX - minX + 1;
    if (w >= 3) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 0;
}

describe("renders for callers without a key", () => {
  test("one address gets ANONYMOUS_RENDERS_PER_MINUTE tiles drawn a minute, then 429; cached tiles and keyed callers go on", async () => {
    const limited = await makeTestApp({ ANONYMOUS_RENDERS_PER_MINUTE: "3" });
    try {
      const world = await buildWorld(limited);
      const get = (path: string, headers: Record<string, string> = {}) => limited.fetch(`/styles/v1/acme/world/tiles/256/${path}.png`, { headers });
      for (const path of ["2/0/0", "2/1/0", "2/2/0"]) expect((await get(path)).status).toBe(200);
      const refused = await get("2/3/0");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const error = await errorOf(refused);
      expect(error.code).toBe("RATE_LIMITED");
      expect(error.message).toContain("3 map tiles drawn per minute");
      // a tile drawn already comes from the render cache: no render, no token
      expect((await get("2/1/0")).status).toBe(200);
      // a caller with a key is not an anonymous address
      expect((await get("2/3/0", { "x-api-key": world.privateKey })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test("0 turns the limit off", async () => {
    const open = await makeTestApp({ ANONYMOUS_RENDERS_PER_MINUTE: "0" });
    try {
      await buildWorld(open);
      for (const path of ["2/0/0", "2/1/0", "2/2/0", "2/3/0"]) expect((await open.fetch(`/styles/v1/acme/world/tiles/256/${path}.png`)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

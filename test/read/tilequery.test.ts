// The Tilequery request's parsing (each refusal names its parameter) and which tiles a query reads.
import { describe, expect, test } from "bun:test";
import { createTilequery, parseTilequery, tilesAround } from "../../src/read/tilequery";
import { ANONYMOUS_VIEWER } from "../../src/domain/accounts/auth";
import { GeoJSONVT } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import type { Served, TileCatalog } from "../../src/read/tiles";
import type { PublishedCache } from "../../src/read/published-cache";
import { AppError } from "../../src/errors";

const parse = (coordinates: string, query = "") => parseTilequery(coordinates, new URLSearchParams(query));

function parameterOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    return ((err as AppError).details as { parameter?: string }).parameter;
  }
  throw new Error("not refused");
}

describe("parseTilequery", () => {
  test("Mapbox's defaults: radius 0, limit 5, dedupe on, every geometry and layer", () => {
    expect(parse("-122.42901,37.80633.json")).toEqual({ lon: -122.42901, lat: 37.80633, radius: 0, limit: 5, dedupe: true, geometry: null, layers: null });
  });

  test("every parameter read", () => {
    expect(parse("10,50.json", "radius=250.5&limit=50&dedupe=false&geometry=linestring&layers=roads,zones")).toEqual({
      lon: 10, lat: 50, radius: 250.5, limit: 50, dedupe: false, geometry: "linestring", layers: ["roads", "zones"],
    });
    expect(parse("180,-90.json", "radius=10000&limit=1").radius).toBe(10000);
  });

  test("refusals name the parameter", () => {
    expect(parameterOf(() => parse("180.1,0.json"))).toBe("lon");
    expect(parameterOf(() => parse("Infinity,0.json"))).toBe("lon");
    expect(parameterOf(() => parse("0,-90.5.json"))).toBe("lat");
    expect(parameterOf(() => parse("0,0x10.json"))).toBe("lat");
    expect(parameterOf(() => parse("0,0"))).toBe("lon,lat");
    expect(parameterOf(() => parse("0,0.json", "radius=1e4"))).toBe("radius");
    expect(parameterOf(() => parse("0,0.json", "limit=05000"))).toBe("limit");
    expect(parameterOf(() => parse("0,0.json", "dedupe=1"))).toBe("dedupe");
    expect(parameterOf(() => parse("0,0.json", "geometry=Point"))).toBe("geometry");
    expect(parameterOf(() => parse("0,0.json", "layers=a,"))).toBe("layers");
    expect(() => parse("0,0.json", `layers=${"a".repeat(2001)}`)).toThrow("layers must be at most 2000 characters long");
  });
});

describe("tilesAround", () => {
  test("radius 0: the one tile holding the point", () => {
    expect(tilesAround(10.005, 50.01, 0, 12)).toEqual([{ x: 2161, y: 1388 }]);
  });

  test("a radius past the tile's edge adds its neighbours", () => {
    const tiles = tilesAround(10.0194, 50.01, 100, 12);
    expect(tiles).toContainEqual({ x: 2161, y: 1388 });
    expect(tiles).toContainEqual({ x: 2162, y: 1388 });
    expect(tiles).toHaveLength(2);
  });

  test("across the antimeridian, columns wrap to the other side of the world", () => {
    const xs = new Set(tilesAround(179.999, 0.5, 1000, 10).map((t) => t.x));
    expect(xs).toEqual(new Set([1023, 0]));
  });
});

/** A public vector tileset acme/deep@1 of `facts`, whose tiles `getTile` gives, behind a tilequery. */
function queryOver(facts: Record<string, unknown>, getTile: (z: number, x: number, y: number) => unknown) {
  const full = { format: "pbf", minzoom: 0, bounds: [-180, -85.0511287798066, 180, 85.0511287798066], center: [0, 0, 0], ...facts };
  const served = { tilesetId: 1, orgId: 1, owner: "acme", slug: "deep", version: 1, name: "deep@1", private: false, facts: full, ext: "mvt", source: { facts: full, getTile, close() {} } } as unknown as Served;
  const catalog = { version: () => served, stable: () => null } as unknown as TileCatalog;
  const published = { slot: () => ({ get: () => undefined, set() {} }) } as unknown as PublishedCache;
  return (coordinates: string, query: string) => createTilequery(catalog, published).query("acme", "deep@1", coordinates, new URLSearchParams(query), ANONYMOUS_VIEWER);
}

describe("tiles read by one query", () => {
  test("a damaged tile holds nothing; its neighbours still answer (no 500)", async () => {
    const shop = { type: "FeatureCollection", features: [{ type: "Feature", id: 1, properties: { name: "Shop" }, geometry: { type: "Point", coordinates: [0.02, 10] } }] };
    const good = fromGeojsonVt({ shops: new GeoJSONVT(shop as never, { maxZoom: 1, indexMaxZoom: 1 }).getTile(1, 1, 0)! });
    for (const damaged of [
      { data: Uint8Array.from([0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]), encoding: "identity" },
      { data: Bun.gzipSync(new Uint8Array(1000)).slice(0, 15), encoding: "gzip" },
      { data: Bun.gzipSync(Uint8Array.from([0x1a, 0x80])), encoding: "gzip" },
    ]) {
      const query = queryOver({ maxzoom: 1, vector_layers: [{ id: "shops", fields: {} }] }, (_z, x) => (x === 1 ? { data: good, encoding: "identity" } : damaged));
      const answer = await query("-0.01,10.json", "radius=10000");
      expect(answer.status).toBe(200);
      expect((JSON.parse(answer.body as string) as { features: { id: number }[] }).features.map((f) => f.id)).toEqual([1]);
    }
  });

  test("a tile that unzips past 32 MiB is read as holding nothing, and never unzipped whole into the cache", async () => {
    const sizes: number[] = [];
    const full = { format: "pbf", minzoom: 0, maxzoom: 0, bounds: [-180, -85.0511287798066, 180, 85.0511287798066], center: [0, 0, 0], vector_layers: [] };
    const bomb = Bun.gzipSync(new Uint8Array(200 * 1024 * 1024));
    const served = { tilesetId: 1, orgId: 1, owner: "acme", slug: "bomb", version: 1, name: "bomb@1", private: false, facts: full, ext: "mvt", source: { facts: full, getTile: () => ({ data: bomb, encoding: "gzip" }), close() {} } } as unknown as Served;
    const catalog = { version: () => served, stable: () => null } as unknown as TileCatalog;
    const published = { slot: () => ({ get: () => undefined, set: (_o: string, _n: string, _a: string, _v: unknown, bytes: number) => void sizes.push(bytes) }) } as unknown as PublishedCache;
    const answer = await createTilequery(catalog, published).query("acme", "bomb@1", "0,0.json", new URLSearchParams(), ANONYMOUS_VIEWER);
    expect(answer.status).toBe(200);
    expect(sizes).toEqual([128]);
  });

  test("at most 144 in all, however many zooms its layers ask for (an archive may give each of 31 layers a zoom of its own)", async () => {
    const reads: string[] = [];
    const facts = {
      format: "pbf" as const,
      minzoom: 0,
      maxzoom: 30,
      bounds: [-180, -85.0511287798066, 180, 85.0511287798066] as [number, number, number, number],
      center: [0, 0, 0] as [number, number, number],
      vector_layers: Array.from({ length: 31 }, (_, z) => ({ id: `z${z}`, fields: {}, minzoom: z, maxzoom: z })),
    };
    const served = {
      tilesetId: 1, orgId: 1, owner: "acme", slug: "deep", version: 1, name: "deep@1", private: false, facts, ext: "mvt",
      source: { facts, getTile: (z: number, x: number, y: number) => (reads.push(`${z}/${x}/${y}`), null), close() {} },
    } as unknown as Served;
    const catalog = { version: () => served, stable: () => null } as unknown as TileCatalog;
    const published = { slot: () => ({ get: () => undefined, set() {} }) } as unknown as PublishedCache;
    const answer = await createTilequery(catalog, published).query("acme", "deep@1", "10,50.json", new URLSearchParams("radius=10000"), ANONYMOUS_VIEWER);
    expect(answer.status).toBe(200);
    expect(reads.length).toBeLessThanOrEqual(144);
    // Every zoom still reads the tile holding the point.
    for (let z = 0; z <= 30; z++) expect(reads.filter((r) => r.startsWith(`${z}/`)).length).toBeGreaterThan(0);
  });
});

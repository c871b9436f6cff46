// The tiler's own vector tile encoder must write what vt-pbf (the reference encoder for geojson-vt
// tiles) writes, byte for byte, for every kind of geometry and attribute value, and leave out the
// tiler's hidden (NUL-prefixed) attributes.
import { expect, test } from "bun:test";
import { VectorTile } from "@mapbox/vector-tile";
import { GeoJSONVT, type GeoJSONVTTile } from "@maplibre/geojson-vt";
import { fromGeojsonVt } from "@maplibre/vt-pbf";
import { PbfReader } from "pbf";
import { encodeTile } from "../../src/tiles/mvt-encode";

/** A seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

function features(rnd: () => number, n: number): GeoJSON.Feature[] {
  const at = () => [-20 + rnd() * 40, -20 + rnd() * 40];
  const ring = () => {
    const [x, y] = at() as [number, number];
    const d = rnd() * 5;
    return [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]];
  };
  const values = () => [rnd() > 0.5 ? "a" : "b", Math.floor(rnd() * 5), -Math.floor(rnd() * 5), rnd() * 10, rnd() > 0.5, { nested: [1, 2] }, null, "", 0][Math.floor(rnd() * 9)];
  const geometries: (() => GeoJSON.Geometry)[] = [
    () => ({ type: "Point", coordinates: at() }),
    () => ({ type: "MultiPoint", coordinates: [at(), at(), at()] }),
    () => ({ type: "LineString", coordinates: [at(), at(), at()] }),
    () => ({ type: "MultiLineString", coordinates: [[at(), at()], [at(), at(), at()]] }),
    () => ({ type: "Polygon", coordinates: [ring()] }),
    () => ({ type: "MultiPolygon", coordinates: [[ring()], [ring()]] }),
  ];
  return Array.from({ length: n }, (_, i) => ({
    type: "Feature",
    ...(i % 3 === 0 ? { id: i } : {}),
    geometry: geometries[i % geometries.length]!(),
    properties: { kind: values(), rank: values(), [`k${i % 4}`]: values() },
  }));
}

test("tiles are encoded byte for byte as vt-pbf encodes them", () => {
  const rnd = random(7);
  const options = { maxZoom: 4, extent: 4096, buffer: 64, indexMaxZoom: 4, indexMaxPoints: 0 };
  const roads = new GeoJSONVT({ type: "FeatureCollection", features: features(rnd, 600) }, options);
  const places = new GeoJSONVT({ type: "FeatureCollection", features: features(rnd, 300) }, options);
  let compared = 0;
  for (let z = 0; z <= 4; z++)
    for (let x = 0; x < 2 ** z; x++)
      for (let y = 0; y < 2 ** z; y++) {
        const layers: Record<string, GeoJSONVTTile> = {};
        const a = roads.getTile(z, x, y);
        const b = places.getTile(z, x, y);
        if (a?.features.length) layers.roads = a;
        if (b?.features.length) layers.places = b;
        if (!Object.keys(layers).length) continue;
        expect(encodeTile(layers, 4096)).toEqual(fromGeojsonVt(layers, { version: 2, extent: 4096 }));
        compared++;
      }
  expect(compared).toBeGreaterThan(20);
});

test("hidden attributes are left out, the others read back", () => {
  const index = new GeoJSONVT(
    { type: "Feature", geometry: { type: "Point", coordinates: [1, 1] }, properties: { "\u0000minzoom": 3, name: "x", n: 2.5, ok: true, json: { a: 1 } } },
    { maxZoom: 0, extent: 4096 },
  );
  const tile = new VectorTile(new PbfReader(encodeTile({ places: index.getTile(0, 0, 0)! }, 4096)));
  expect(Object.keys(tile.layers)).toEqual(["places"]);
  expect(tile.layers.places!.feature(0).properties).toEqual({ name: "x", n: 2.5, ok: true, json: '{"a":1}' });
});

test("numbers past 2^53 are written as doubles: no-data values no longer fail the tile, and large negatives keep their sign", () => {
  const values = { nodata: -3.4028235e38, huge: 1e20, hash: -6917529027641081856, big: 2 ** 60, exact: 2 ** 53 - 1, negative: -(2 ** 53 - 1), sint: -(2 ** 52), small: -5 };
  const index = new GeoJSONVT({ type: "Feature", geometry: { type: "Point", coordinates: [1, 1] }, properties: values }, { maxZoom: 0, extent: 4096 });
  const tile = new VectorTile(new PbfReader(encodeTile({ places: index.getTile(0, 0, 0)! }, 4096)));
  expect(tile.layers.places!.feature(0).properties).toEqual(values);
});

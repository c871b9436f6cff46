// The Tilequery geometry core: great-circle distances, tile <-> lon/lat, and the closest point of a
// point, line or polygon feature (holes and the antimeridian included), in a tile's own coordinates.
import { describe, expect, test } from "bun:test";
import { haversine, lonLatToTile, nearestOnFeature, tileToLonLat, type TileFrame } from "../../src/tiles/nearest";

const frame: TileFrame = { z: 12, x: 2161, y: 1388, extent: 4096 };
/** A ring of tile points from [lon, lat] corners, as @mapbox/vector-tile's loadGeometry gives them. */
const ring = (f: TileFrame, points: [number, number][]) => points.map(([lon, lat]) => {
  const [x, y] = lonLatToTile(f, lon, lat);
  return { x, y };
});

describe("haversine", () => {
  test("a degree of latitude is about 111.2 km; a degree of longitude shrinks with cos(lat); across the antimeridian is short", () => {
    expect(haversine([0, 0], [0, 1])).toBeCloseTo(111_195, -1);
    expect(haversine([10, 60], [11, 60])).toBeCloseTo(111_195 * 0.5, -2);
    expect(haversine([179.9, 0], [-179.9, 0])).toBeCloseTo(22_239, -1);
  });
});

describe("tile coordinates", () => {
  test("lon/lat -> tile -> lon/lat comes back", () => {
    const [x, y] = lonLatToTile(frame, 10.005, 50.01);
    const [lon, lat] = tileToLonLat(frame, x, y);
    expect(lon).toBeCloseTo(10.005, 9);
    expect(lat).toBeCloseTo(50.01, 9);
    expect(tileToLonLat({ z: 0, x: 0, y: 0, extent: 4096 }, 2048, 2048)).toEqual([0, 0]);
  });
});

describe("nearestOnFeature", () => {
  const square: [number, number][] = [[10.0, 50.0], [10.01, 50.0], [10.01, 50.02], [10.0, 50.02], [10.0, 50.0]];
  const hole: [number, number][] = [[10.003, 50.008], [10.007, 50.008], [10.007, 50.012], [10.003, 50.012], [10.003, 50.008]];

  test("a polygon holding the point: distance 0 at the point itself; in its hole, the hole's edge", () => {
    expect(nearestOnFeature(3, [ring(frame, square)], frame, [10.001, 50.019])).toEqual({ distance: 0, point: [10.001, 50.019] });
    const inHole = nearestOnFeature(3, [ring(frame, square), ring(frame, hole)], frame, [10.005, 50.0115])!;
    expect(inHole.distance).toBeCloseTo(haversine([10.005, 50.0115], [10.005, 50.012]), 0);
    expect(inHole.point[1]).toBeCloseTo(50.012, 5);
  });

  test("outside a polygon: the closest point of its boundary", () => {
    const near = nearestOnFeature(3, [ring(frame, square)], frame, [10.012, 50.01])!;
    expect(near.point[0]).toBeCloseTo(10.01, 6);
    expect(near.point[1]).toBeCloseTo(50.01, 4);
    expect(near.distance).toBeCloseTo(haversine([10.012, 50.01], [10.01, 50.01]), 0);
  });

  test("a line: the closest point along a segment, or its nearer end", () => {
    const line = [ring(frame, [[10.0, 50.0], [10.0, 50.02]])];
    const beside = nearestOnFeature(2, line, frame, [10.002, 50.01])!;
    expect(beside.point[0]).toBeCloseTo(10.0, 6);
    expect(beside.point[1]).toBeCloseTo(50.01, 4);
    const beyond = nearestOnFeature(2, line, frame, [10.0, 50.03])!;
    expect(beyond.point[1]).toBeCloseTo(50.02, 6);
  });

  test("points: the nearest of a multipoint", () => {
    const points = [ring(frame, [[10.001, 50.001]]), ring(frame, [[10.009, 50.001]])];
    expect(nearestOnFeature(1, points, frame, [10.008, 50.001])!.point[0]).toBeCloseTo(10.009, 6);
  });

  test("across the antimeridian: a line just east of 180° is metres from a point just west of it", () => {
    const east: TileFrame = { z: 12, x: 0, y: 2047, extent: 4096 };
    const line = [ring(east, [[-179.9999, 0.01], [-179.9999, -0.01]])];
    const near = nearestOnFeature(2, line, east, [179.9999, 0])!;
    expect(near.distance).toBeLessThan(30);
    expect(near.point[1]).toBeCloseTo(0, 4);
  });
});

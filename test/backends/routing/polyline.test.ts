// polyline6 encoding and the small geometry helpers behind the adapters.
import { describe, expect, test } from "bun:test";
import { decodePolyline6, encodePolyline6 } from "../../../src/backends/routing/polyline";
import { bearingDegrees, haversineMetres, simplifyLine } from "../../../src/backends/routing/geometry";
import type { Position } from "../../../src/backends/routing/types";

describe("polyline6", () => {
  // Google's documented example (38.5,-120.2 ...) at 1e-5 is the same integers as these points at 1e-6.
  const points: Position[] = [
    [-12.02, 3.85],
    [-12.095, 4.07],
    [-12.6453, 4.3252],
  ];
  const encoded = "_p~iF~ps|U_ulLnnqC_mqNvxq`@";

  test("encodes and decodes the reference example", () => {
    expect(encodePolyline6(points)).toBe(encoded);
    expect(decodePolyline6(encoded)).toEqual(points);
  });

  test("round-trips extremes, negatives and repeated points at 1e-6 precision", () => {
    const line: Position[] = [
      [-180, -90],
      [180, 90],
      [0, 0],
      [0, 0],
      [13.388861, 52.517037],
      [-0.000001, 0.000001],
    ];
    expect(decodePolyline6(encodePolyline6(line))).toEqual(line);
    expect(decodePolyline6("")).toEqual([]);
  });

  test("a truncated or corrupt string throws instead of returning a wrong line", () => {
    expect(() => decodePolyline6(encoded.slice(0, -1))).toThrow("truncated");
    expect(() => decodePolyline6("_p~iF ps|U")).toThrow("invalid");
  });
});

describe("geometry", () => {
  test("haversine distance and bearings", () => {
    expect(haversineMetres([13.38886, 52.517037], [13.397634, 52.529407])).toBeCloseTo(1500, -2);
    expect(bearingDegrees([0, 0], [0, 1])).toBe(0);
    expect(bearingDegrees([0, 0], [1, 0])).toBe(90);
    expect(bearingDegrees([0, 0], [0, -1])).toBe(180);
    expect(bearingDegrees([0, 0], [-1, 0])).toBe(270);
    expect(bearingDegrees([5, 5], [5, 5])).toBe(0);
  });

  test("simplification keeps the ends and the corners, drops points on a straight run", () => {
    const straight: Position[] = Array.from({ length: 101 }, (_, i) => [i / 100, 0]);
    expect(simplifyLine(straight)).toEqual([
      [0, 0],
      [1, 0],
    ]);
    const corner: Position[] = [...Array.from({ length: 11 }, (_, i): Position => [i / 10, 0]), ...Array.from({ length: 10 }, (_, i): Position => [1, (i + 1) / 10])];
    expect(simplifyLine(corner)).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
    ]);
    expect(simplifyLine([[1, 2]])).toEqual([[1, 2]]);
  });
});

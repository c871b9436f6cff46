// The small geometry helpers behind the routing adapters.
import { describe, expect, test } from "bun:test";
import { bearingDegrees, haversineMetres, simplifyLine } from "../../../src/backends/routing/geometry";
import type { Position } from "../../../src/backends/routing/types";

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

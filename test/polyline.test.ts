// The one encoded polyline codec, at both precisions its users speak: 5 (static image overlays, OSRM's
// and Mapbox Directions' default answers) and 6 (Valhalla's shapes, OSRM's polyline6).
import { describe, expect, test } from "bun:test";
import { decodePolyline, encodePolyline, PolylineError, type LonLat } from "../src/polyline";

// Google's documented example: (38.5,-120.2), (40.7,-120.95), (43.252,-126.453) at 1e-5.
const GOOGLE = "_p~iF~ps|U_ulLnnqC_mqNvxq`@";
const GOOGLE_POINTS: LonLat[] = [
  [-120.2, 38.5],
  [-120.95, 40.7],
  [-126.453, 43.252],
];

describe("precision 5", () => {
  test("encodes and decodes Google's reference example", () => {
    expect(encodePolyline(GOOGLE_POINTS, 5)).toBe(GOOGLE);
    expect(decodePolyline(GOOGLE, 5)).toEqual(GOOGLE_POINTS);
  });
});

describe("precision 6", () => {
  test("the same integers are the points at a tenth of their size", () => {
    const tenth: LonLat[] = [
      [-12.02, 3.85],
      [-12.095, 4.07],
      [-12.6453, 4.3252],
    ];
    expect(encodePolyline(tenth, 6)).toBe(GOOGLE);
    expect(decodePolyline(GOOGLE, 6)).toEqual(tenth);
  });

  test("round-trips extremes, negatives and repeated points", () => {
    // The largest delta on the globe (-180 to 180) still fits the decoder's 30 bits.
    const line: LonLat[] = [
      [-180, -90],
      [180, 90],
      [0, 0],
      [0, 0],
      [13.388861, 52.517037],
      [-0.000001, 0.000001],
    ];
    expect(decodePolyline(encodePolyline(line, 6), 6)).toEqual(line);
    expect(decodePolyline("", 6)).toEqual([]);
  });
});

describe("strictness", () => {
  test("a truncated string, a foreign character or an overlong value throws", () => {
    expect(() => decodePolyline(GOOGLE.slice(0, -1))).toThrow(new PolylineError("the encoded polyline ends in the middle of a value"));
    expect(() => decodePolyline("_p~iF ps|U")).toThrow("is not part of the encoded polyline alphabet");
    // Seven continuation chunks: more than any coordinate needs, and past 32-bit arithmetic.
    expect(() => decodePolyline("~~~~~~~?")).toThrow("too long");
  });

  test("a point off the globe and too many points are refused", () => {
    expect(() => decodePolyline(encodePolyline([[200, 0]], 5))).toThrow("point 1 (200,0) is outside");
    expect(() => decodePolyline(encodePolyline([[0, 95]], 5))).toThrow("outside longitude -180..180 / latitude -90..90");
    expect(() => decodePolyline(encodePolyline([[1, 1], [2, 2], [3, 3]], 5), 5, 2)).toThrow("more than 2 points");
    expect(decodePolyline(encodePolyline([[1, 1], [2, 2]], 5), 5, 2)).toEqual([[1, 1], [2, 2]]);
  });
});

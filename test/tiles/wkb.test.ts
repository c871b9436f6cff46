// WKB decoding against vectors GDAL wrote (ogr2ogr into a GeoPackage, blobs read back with sqlite3),
// hand-made big-endian and EWKB vectors, and the GeoPackage geometry header around the WKB.
import { describe, expect, test } from "bun:test";
import { decodeGpkgGeometry } from "../../src/tiles/readers/geopackage";
import { unproject } from "../../src/tiles/readers/mercator";
import { decodeWkb, WkbError } from "../../src/tiles/readers/wkb";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));
const wkb = (s: string) => decodeWkb(hex(s));

// Written by GDAL 3.6 (ISO WKB, little-endian).
const GDAL = {
  point: "0101000000000000000000F03F0000000000000040",
  pointZ: "01E9030000000000000000F03F00000000000000400000000000000840",
  pointM: "01D1070000000000000000F03F00000000000000400000000000001040",
  pointZM: "01B90B0000000000000000F03F000000000000004000000000000008400000000000001040",
  line: "01020000000300000000000000000000000000000000000000000000000000F03F000000000000F03F00000000000000400000000000000000",
  polygonWithHole:
    "010300000002000000050000000000000000000000000000000000000000000000000024400000000000000000000000000000244000000000000024400000000000000000000000000000244000000000000000000000000000000000050000000000000000000040000000000000004000000000000000400000000000001040000000000000104000000000000010400000000000001040000000000000004000000000000000400000000000000040",
  multiPoint: "0104000000020000000101000000000000000000F03F0000000000000040010100000000000000000008400000000000001040",
  multiLine:
    "01050000000200000001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F0102000000020000000000000000000040000000000000004000000000000008400000000000000840",
  multiPolygon:
    "0106000000020000000103000000010000000400000000000000000000000000000000000000000000000000F03F0000000000000000000000000000F03F000000000000F03F000000000000000000000000000000000103000000010000000400000000000000000014400000000000001440000000000000184000000000000014400000000000001840000000000000184000000000000014400000000000001440",
  collection: "0107000000020000000101000000000000000000F03F000000000000004001020000000200000000000000000000000000000000000000000000000000F03F000000000000F03F",
  lineZM: "01BA0B00000200000000000000000000000000000000000000000000000000F03F0000000000000040000000000000F03F000000000000F03F00000000000008400000000000001040",
  circularString: "01080000000300000000000000000000000000000000000000000000000000F03F000000000000F03F00000000000000400000000000000000",
};

describe("WKB", () => {
  test("the seven simple feature types, as GDAL writes them", () => {
    expect(wkb(GDAL.point)).toEqual({ type: "Point", coordinates: [1, 2] });
    expect(wkb(GDAL.line)).toEqual({ type: "LineString", coordinates: [[0, 0], [1, 1], [2, 0]] });
    expect(wkb(GDAL.polygonWithHole)).toEqual({
      type: "Polygon",
      coordinates: [
        [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
        [[2, 2], [2, 4], [4, 4], [4, 2], [2, 2]],
      ],
    });
    expect(wkb(GDAL.multiPoint)).toEqual({ type: "MultiPoint", coordinates: [[1, 2], [3, 4]] });
    expect(wkb(GDAL.multiLine)).toEqual({ type: "MultiLineString", coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 3]]] });
    expect(wkb(GDAL.multiPolygon)).toEqual({
      type: "MultiPolygon",
      coordinates: [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[5, 5], [6, 5], [6, 6], [5, 5]]]],
    });
    expect(wkb(GDAL.collection)).toEqual({
      type: "GeometryCollection",
      geometries: [
        { type: "Point", coordinates: [1, 2] },
        { type: "LineString", coordinates: [[0, 0], [1, 1]] },
      ],
    });
  });

  test("ISO Z, M and ZM codes: the extra ordinates are read past and dropped", () => {
    for (const v of [GDAL.pointZ, GDAL.pointM, GDAL.pointZM]) expect(wkb(v)).toEqual({ type: "Point", coordinates: [1, 2] });
    expect(wkb(GDAL.lineZM)).toEqual({ type: "LineString", coordinates: [[0, 0], [1, 1]] }); // LINESTRING ZM (0 0 1 2, 1 1 3 4)
  });

  test("big-endian, mixed byte orders per part, and EWKB flags (Z, M, SRID)", () => {
    expect(wkb("00 00000001 3FF0000000000000 4000000000000000")).toEqual({ type: "Point", coordinates: [1, 2] });
    // A big-endian MultiPoint holding one big-endian and one little-endian point.
    expect(wkb("00 00000004 00000002  00 00000001 3FF0000000000000 4000000000000000  01 01000000 0000000000000840 0000000000001040")).toEqual({
      type: "MultiPoint",
      coordinates: [[1, 2], [3, 4]],
    });
    expect(wkb("0101000020E6100000000000000000F03F0000000000000040")).toEqual({ type: "Point", coordinates: [1, 2] }); // SRID=4326
    expect(wkb("0101000080 000000000000F03F 0000000000000040 0000000000000840")).toEqual({ type: "Point", coordinates: [1, 2] }); // Z
    expect(wkb("01010000C0 000000000000F03F 0000000000000040 0000000000000840 0000000000001040")).toEqual({ type: "Point", coordinates: [1, 2] }); // ZM
    expect(wkb("00 A0000002 000010E6 00000002 3FF0000000000000 4000000000000000 0000000000000000 4008000000000000 4010000000000000 0000000000000000")).toEqual({
      type: "LineString",
      coordinates: [[1, 2], [3, 4]],
    }); // big-endian EWKB LineString Z with SRID
  });

  test("POINT EMPTY (NaN) is an empty collection; an empty point inside a MultiPoint is dropped", () => {
    expect(wkb("0101000000 000000000000F87F 000000000000F87F")).toEqual({ type: "GeometryCollection", geometries: [] });
    expect(wkb("0104000000 02000000 0101000000 000000000000F87F 000000000000F87F 0101000000 000000000000F03F 0000000000000040")).toEqual({
      type: "MultiPoint",
      coordinates: [[1, 2]],
    });
    expect(wkb("0103000000 00000000")).toEqual({ type: "Polygon", coordinates: [] });
  });

  test("types GeoJSON lacks come back named, for the caller to skip", () => {
    expect(wkb(GDAL.circularString)).toEqual({ type: "CircularString" });
  });

  test("a transform applies to every position (Web Mercator unprojected)", () => {
    const g = decodeWkb(hex("0101000000 0000000000000000 0000000000000000"), 0, unproject);
    expect(g).toEqual({ type: "Point", coordinates: [0, 0] });
  });

  test("malformed WKB throws WkbError saying what is wrong, before allocating what a count claims", () => {
    const bad = (s: string) => {
      try {
        wkb(s);
      } catch (err) {
        expect(err).toBeInstanceOf(WkbError);
        return (err as Error).message;
      }
      throw new Error(`no error for ${s}`);
    };
    expect(bad("")).toContain("ends inside a geometry header");
    expect(bad(GDAL.point.slice(0, 30))).toContain("ends inside a position");
    expect(bad("0201000000")).toContain("byte order");
    expect(bad("0163000000")).toContain("unknown WKB geometry type 99");
    expect(bad("0102000000 FFFFFFFF 0000")).toContain("declares 4294967295 points");
    expect(bad("0106000000 01000000 0101000000 000000000000F03F 0000000000000040")).toContain("a MultiPolygon holds a Point");
    const deep = "0107000000 01000000 ".repeat(40) + "0107000000 00000000";
    expect(bad(deep)).toContain("nest deeper");
  });
});

describe("GeoPackage geometry blobs", () => {
  const point = "0101000000000000000000F03F0000000000000040";
  test("header with no envelope or envelopes of 32, 48 and 64 bytes, either header byte order", () => {
    expect(decodeGpkgGeometry(hex(`47500001E6100000${point}`))).toEqual({ type: "Point", coordinates: [1, 2] });
    expect(decodeGpkgGeometry(hex(`47500000000010E6${point}`))).toEqual({ type: "Point", coordinates: [1, 2] });
    for (const [code, bytes] of [[1, 32], [2, 48], [3, 48], [4, 64]] as const) {
      const flags = (1 | (code << 1)).toString(16).padStart(2, "0");
      expect(decodeGpkgGeometry(hex(`4750 00 ${flags} E6100000 ${"00".repeat(bytes)} ${point}`))).toEqual({ type: "Point", coordinates: [1, 2] });
    }
    // GDAL's own blob for a line, envelope included.
    expect(decodeGpkgGeometry(hex(`47500003E6100000 0000000000000000 0000000000000040 0000000000000000 000000000000F03F ${GDAL.line}`))).toEqual({
      type: "LineString",
      coordinates: [[0, 0], [1, 1], [2, 0]],
    });
  });

  test("the empty flag, and POINT EMPTY, read as no geometry", () => {
    expect(decodeGpkgGeometry(hex(`47500011E6100000 0107000000 00000000`))).toBeNull();
    expect(decodeGpkgGeometry(hex(`47500011E6100000 0101000000 000000000000F87F 000000000000F87F`))).toBeNull();
    expect(decodeGpkgGeometry(hex(`47500001E6100000 0101000000 000000000000F87F 000000000000F87F`))).toBeNull();
  });

  test("not a GeoPackage blob: no 'GP' magic, a bad envelope code, nothing after the header", () => {
    expect(() => decodeGpkgGeometry(hex(point))).toThrow(/not a GeoPackage geometry blob \(it starts 0x0101/);
    expect(() => decodeGpkgGeometry(hex(`4750000BE6100000${point}`))).toThrow(/invalid envelope code 5/);
    expect(() => decodeGpkgGeometry(hex(`47500003E6100000 ${"00".repeat(32)}`))).toThrow(/ends after its header/);
    expect(() => decodeGpkgGeometry(hex("4750"))).toThrow(WkbError);
  });
});

// Well-known binary (OGC/ISO WKB, and PostGIS EWKB) to GeoJSON geometry objects, for GeoPackage
// (whose geometry blobs carry WKB after their own header). Either byte order, every part with its
// own; Z and M (ISO type codes +1000/+2000/+3000, or EWKB's high flag bits) are read and dropped.
// Curves, surfaces and TINs are returned as an object of their type name, which cleanGeometry skips
// with a warning. Malformed data throws WkbError, saying what is wrong; counts are checked against the
// bytes left before anything is allocated.

export class WkbError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WkbError";
  }
}

/** What a WKB geometry decodes to: a GeoJSON geometry, or `{ type }` for a type GeoJSON lacks. */
export type WkbGeometry =
  | { type: "Point"; coordinates: number[] }
  | { type: "LineString" | "MultiPoint"; coordinates: number[][] }
  | { type: "Polygon" | "MultiLineString"; coordinates: number[][][] }
  | { type: "MultiPolygon"; coordinates: number[][][][] }
  | { type: "GeometryCollection"; geometries: WkbGeometry[] }
  | { type: string };

/** Turns a position as stored into [longitude, latitude] (e.g. unprojects Web Mercator). */
export type PointTransform = (x: number, y: number) => number[];

const NAMES: Record<number, string> = {
  1: "Point",
  2: "LineString",
  3: "Polygon",
  4: "MultiPoint",
  5: "MultiLineString",
  6: "MultiPolygon",
  7: "GeometryCollection",
  8: "CircularString",
  9: "CompoundCurve",
  10: "CurvePolygon",
  11: "MultiCurve",
  12: "MultiSurface",
  13: "Curve",
  14: "Surface",
  15: "PolyhedralSurface",
  16: "TIN",
  17: "Triangle",
};

/** Collections nest; a corrupt or hostile blob must not recurse without end. */
const MAX_DEPTH = 32;

const EWKB_Z = 0x80000000;
const EWKB_M = 0x40000000;
const EWKB_SRID = 0x20000000;

class Reader {
  private readonly view: DataView;
  offset: number;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly point: PointTransform,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = start;
  }

  private need(n: number, what: string) {
    if (this.offset + n > this.bytes.length) throw new WkbError(`the WKB ends inside ${what} (at byte ${this.offset} of ${this.bytes.length})`);
  }

  private uint32(little: boolean, what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.offset, little);
    this.offset += 4;
    return v;
  }

  /** A count of items each at least `size` bytes long, checked against what is left. */
  private count(little: boolean, size: number, what: string): number {
    const n = this.uint32(little, `the count of ${what}`);
    const left = this.bytes.length - this.offset;
    if (n * size > left) throw new WkbError(`the WKB declares ${n} ${what} but only ${left} bytes are left`);
    return n;
  }

  private position(little: boolean, dims: number): number[] {
    this.need(8 * dims, "a position");
    const x = this.view.getFloat64(this.offset, little);
    const y = this.view.getFloat64(this.offset + 8, little);
    this.offset += 8 * dims;
    return this.point(x, y);
  }

  private positions(little: boolean, dims: number, what: string): number[][] {
    const n = this.count(little, 8 * dims, what);
    const out = new Array<number[]>(n);
    for (let i = 0; i < n; i++) out[i] = this.position(little, dims);
    return out;
  }

  /** One geometry (with its own byte order and type) from the current offset; null for POINT EMPTY. */
  geometry(depth: number): WkbGeometry | null {
    if (depth > MAX_DEPTH) throw new WkbError(`geometry collections nest deeper than ${MAX_DEPTH} levels`);
    this.need(5, "a geometry header");
    const order = this.bytes[this.offset]!;
    if (order > 1) throw new WkbError(`byte ${this.offset} should give the byte order (0 or 1) but is ${order}`);
    const little = order === 1;
    this.offset++;
    const raw = this.uint32(little, "a geometry type");
    let dims = 2 + (raw & EWKB_Z ? 1 : 0) + (raw & EWKB_M ? 1 : 0);
    if (raw & EWKB_SRID) this.uint32(little, "an EWKB SRID");
    let code = raw & 0x0fffffff;
    if (code >= 1000 && code < 4000) {
      const iso = Math.floor(code / 1000);
      dims = iso === 3 ? 4 : 3;
      code %= 1000;
    }
    const type = NAMES[code];
    if (!type) throw new WkbError(`unknown WKB geometry type ${raw}`);
    switch (code) {
      case 1: {
        const p = this.position(little, dims);
        return Number.isNaN(p[0]) || Number.isNaN(p[1]) ? null : { type: "Point", coordinates: p };
      }
      case 2:
        return { type: "LineString", coordinates: this.positions(little, dims, "points") };
      case 3: {
        const n = this.count(little, 4, "rings");
        const rings = new Array<number[][]>(n);
        for (let i = 0; i < n; i++) rings[i] = this.positions(little, dims, "points");
        return { type: "Polygon", coordinates: rings };
      }
      case 4:
      case 5:
      case 6:
      case 7: {
        const n = this.count(little, 9, "parts"); // a part is at least a header and a count
        const parts: WkbGeometry[] = [];
        const want = code === 7 ? null : NAMES[code - 3];
        for (let i = 0; i < n; i++) {
          const part = this.geometry(depth + 1);
          if (want && part && part.type !== want) throw new WkbError(`a ${type} holds a ${part.type}`);
          if (part) parts.push(part);
        }
        if (code === 7) return { type: "GeometryCollection", geometries: parts };
        return { type, coordinates: parts.map((p) => (p as { coordinates: unknown }).coordinates) } as WkbGeometry;
      }
      default:
        // A type GeoJSON has no counterpart for: its length is not worth decoding, the feature is skipped.
        this.offset = this.bytes.length;
        return { type };
    }
  }
}

const asIs: PointTransform = (x, y) => [x, y];

/**
 * Decodes the WKB geometry starting at `start` of `bytes`. POINT EMPTY (NaN coordinates) comes back as
 * an empty GeometryCollection. Throws WkbError when the bytes are not WKB or end too soon.
 */
export function decodeWkb(bytes: Uint8Array, start = 0, point: PointTransform = asIs): WkbGeometry {
  const reader = new Reader(bytes, start, point);
  return reader.geometry(0) ?? { type: "GeometryCollection", geometries: [] };
}

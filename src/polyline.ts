// The one codec of encoded polylines ([lat, lon] pairs as deltas, zig-zag, 5-bit chunks offset by 63),
// at precision 5 ("polyline": Google's format, Mapbox Static Images' `path-...` overlays, OSRM's and
// Mapbox Directions' default) and 6 ("polyline6": Valhalla's `shape`, OSRM's `geometries=polyline6`).
// Strict: a character outside the alphabet, a truncated or overlong value, or a point outside the
// globe is an error, so a mistyped overlay gets a 400 and a backend's corrupt shape a 502, never a
// line drawn somewhere odd.

/** [lon, lat] */
export type LonLat = [number, number];

export type PolylinePrecision = 5 | 6;

export class PolylineError extends Error {}

/** Decodes to [lon, lat] pairs (the encoding stores lat first); at most `maxPoints` of them. */
export function decodePolyline(encoded: string, precision: PolylinePrecision = 5, maxPoints = Infinity): LonLat[] {
  const factor = 10 ** precision;
  const points: LonLat[] = [];
  let index = 0;
  let lat = 0;
  let lon = 0;
  const next = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (index >= encoded.length) throw new PolylineError("the encoded polyline ends in the middle of a value");
      const b = encoded.charCodeAt(index++) - 63;
      if (b < 0 || b > 63) throw new PolylineError(`character '${encoded[index - 1]}' is not part of the encoded polyline alphabet (is the polyline URL-encoded?)`);
      result |= (b & 0x1f) << shift;
      shift += 5;
      if (b < 0x20) break;
      // Six chunks (30 bits) hold any delta on the globe at precision 6; a longer value is not a polyline
      // (and would overflow the 32-bit arithmetic).
      if (shift >= 30) throw new PolylineError("a value of the encoded polyline is too long");
    }
    return result & 1 ? ~(result >>> 1) : result >>> 1;
  };
  while (index < encoded.length) {
    lat += next();
    lon += next();
    if (points.length >= maxPoints) throw new PolylineError(`more than ${maxPoints} points`);
    const point: LonLat = [lon / factor, lat / factor];
    if (Math.abs(point[0]) > 180 || Math.abs(point[1]) > 90) throw new PolylineError(`point ${points.length + 1} (${point[0]},${point[1]}) is outside longitude -180..180 / latitude -90..90`);
    points.push(point);
  }
  return points;
}

function encodeValue(value: number): string {
  let v = value < 0 ? -value * 2 - 1 : value * 2;
  let out = "";
  while (v >= 0x20) {
    out += String.fromCharCode(((v % 0x20) | 0x20) + 63);
    v = Math.floor(v / 0x20);
  }
  return out + String.fromCharCode(v + 63);
}

/** An encoded polyline of positions ([lon, lat]) at `precision` decimal places. */
export function encodePolyline(positions: readonly (readonly number[])[], precision: PolylinePrecision = 5): string {
  const factor = 10 ** precision;
  let out = "";
  let lastLat = 0;
  let lastLon = 0;
  for (const [lon, lat] of positions) {
    const la = Math.round(lat! * factor);
    const lo = Math.round(lon! * factor);
    out += encodeValue(la - lastLat) + encodeValue(lo - lastLon);
    lastLat = la;
    lastLon = lo;
  }
  return out;
}

// Encoded polylines at 1e-6 precision ("polyline6"), the format of Valhalla's `shape` and OSRM's
// `geometries=polyline6`: [lat, lon] pairs, deltas, zig-zag, 5-bit chunks offset by 63. Answers may
// also be encoded at 1e-5 ("polyline", Google's format): OSRM's and Mapbox Directions' default, which
// many clients ask for.
import type { Position } from "./types";

const FACTOR = 1e6;

/** Positions ([lon, lat]) from a polyline6 string; throws on a truncated or corrupt string. */
export function decodePolyline6(encoded: string): Position[] {
  const out: Position[] = [];
  let index = 0;
  let lat = 0;
  let lon = 0;
  const next = (): number => {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      if (index >= encoded.length) throw new Error("truncated polyline");
      byte = encoded.charCodeAt(index++) - 63;
      if (byte < 0 || byte > 63) throw new Error("invalid polyline character");
      // Multiplying instead of shifting keeps values above 2^31 exact.
      result += (byte & 0x1f) * 2 ** shift;
      shift += 5;
    } while (byte >= 0x20);
    return result % 2 === 1 ? -(result + 1) / 2 : result / 2;
  };
  while (index < encoded.length) {
    lat += next();
    lon += next();
    out.push([lon / FACTOR, lat / FACTOR]);
  }
  return out;
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

/** A polyline6 string from positions ([lon, lat]). */
export function encodePolyline6(positions: Position[]): string {
  return encodePolyline(positions, FACTOR);
}

/** An encoded polyline at `factor` (1e5 for "polyline", 1e6 for "polyline6") from positions ([lon, lat]). */
export function encodePolyline(positions: Position[], factor: number): string {
  let out = "";
  let lastLat = 0;
  let lastLon = 0;
  for (const [lon, lat] of positions) {
    const la = Math.round(lat * factor);
    const lo = Math.round(lon * factor);
    out += encodeValue(la - lastLat) + encodeValue(lo - lastLon);
    lastLat = la;
    lastLon = lo;
  }
  return out;
}

// Google's encoded polyline format at precision 5 (what Mapbox's Static Images API takes in `path-...`).
// Strict: any character outside the alphabet, a truncated value or a coordinate out of range is an
// error, so a mistyped overlay gets a 400 instead of a line drawn somewhere odd.

export class PolylineError extends Error {}

/** Decodes to [lon, lat] pairs (the encoding stores lat first). */
export function decodePolyline(encoded: string, maxPoints = 10_000): [number, number][] {
  const points: [number, number][] = [];
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
      if (shift > 30) throw new PolylineError("a value of the encoded polyline is too long");
    }
    return result & 1 ? ~(result >> 1) : result >> 1;
  };
  while (index < encoded.length) {
    lat += next();
    lon += next();
    if (points.length >= maxPoints) throw new PolylineError(`more than ${maxPoints} points`);
    const point: [number, number] = [lon / 1e5, lat / 1e5];
    if (Math.abs(point[0]) > 180 || Math.abs(point[1]) > 90) throw new PolylineError(`point ${points.length + 1} (${point[0]},${point[1]}) is outside longitude -180..180 / latitude -90..90`);
    points.push(point);
  }
  return points;
}

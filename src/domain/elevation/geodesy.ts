// Great-circle distances and resampling on a sphere of the mean Earth radius: good to ~0.5 % against the
// ellipsoid, which is far below the resolution of any elevation dataset's sample spacing.
import type { LonLat } from "../../backends/elevation/opentopodata";

export const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Central angle between two points, in radians (haversine, stable for short distances). */
function centralAngle(a: LonLat, b: LonLat): number {
  const dLat = (b.lat - a.lat) * RAD;
  const dLon = (b.lon - a.lon) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * RAD) * Math.cos(b.lat * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

export const distanceM = (a: LonLat, b: LonLat) => centralAngle(a, b) * EARTH_RADIUS_M;

/** The point a fraction `f` of the way from a to b along the great circle. */
export function interpolate(a: LonLat, b: LonLat, f: number): LonLat {
  const delta = centralAngle(a, b);
  const s = Math.sin(delta);
  if (delta < 1e-12) return { lon: a.lon, lat: a.lat };
  if (Math.abs(s) < 1e-12) return antipodalStep(a, f);
  const wa = Math.sin((1 - f) * delta) / s;
  const wb = Math.sin(f * delta) / s;
  const [la1, lo1, la2, lo2] = [a.lat * RAD, a.lon * RAD, b.lat * RAD, b.lon * RAD];
  const x = wa * Math.cos(la1) * Math.cos(lo1) + wb * Math.cos(la2) * Math.cos(lo2);
  const y = wa * Math.cos(la1) * Math.sin(lo1) + wb * Math.cos(la2) * Math.sin(lo2);
  const z = wa * Math.sin(la1) + wb * Math.sin(la2);
  return { lon: Math.atan2(y, x) / RAD, lat: Math.atan2(z, Math.hypot(x, y)) / RAD };
}

/**
 * The point a fraction `f` of the way from `a` to its antipode. Every great circle through `a` is as
 * short, so one is chosen: northwards from `a` (through the North Pole), or from a pole along the
 * meridian of its given longitude. Each point then lies f x 180 degrees from `a`, as its distance says.
 */
function antipodalStep(a: LonLat, f: number): LonLat {
  const [lat, lon] = [a.lat * RAD, a.lon * RAD];
  const from = [Math.cos(lat) * Math.cos(lon), Math.cos(lat) * Math.sin(lon), Math.sin(lat)];
  // A unit vector at right angles to `from`: north at `a`, or towards its meridian from a pole.
  const pole = Math.abs(a.lat) > 90 - 1e-9;
  const towards = pole ? [Math.cos(lon), Math.sin(lon), 0] : [-Math.sin(lat) * Math.cos(lon), -Math.sin(lat) * Math.sin(lon), Math.cos(lat)];
  const angle = f * Math.PI;
  const [x, y, z] = from.map((c, i) => Math.cos(angle) * c + Math.sin(angle) * towards[i]!) as [number, number, number];
  return { lon: Math.atan2(y, x) / RAD, lat: Math.atan2(z, Math.hypot(x, y)) / RAD };
}

/**
 * `samples` points evenly spaced along the path (great circle between consecutive vertices), the first
 * and last being exactly the path's ends, with each sample's distance from the start in metres.
 */
export function resample(path: LonLat[], samples: number): { points: LonLat[]; distances: number[]; total: number } {
  const cumulative = [0];
  for (let i = 1; i < path.length; i++) cumulative.push(cumulative[i - 1]! + distanceM(path[i - 1]!, path[i]!));
  const total = cumulative.at(-1)!;
  const points: LonLat[] = [];
  const distances: number[] = [];
  let seg = 0;
  for (let i = 0; i < samples; i++) {
    if (i === samples - 1) {
      points.push({ ...path.at(-1)! });
      distances.push(total);
      break;
    }
    const d = (total * i) / (samples - 1);
    while (seg < path.length - 2 && cumulative[seg + 1]! < d) seg++;
    const segLen = cumulative[seg + 1]! - cumulative[seg]!;
    const f = segLen > 0 ? Math.min(1, Math.max(0, (d - cumulative[seg]!) / segLen)) : 0;
    points.push(i === 0 ? { ...path[0]! } : interpolate(path[seg]!, path[seg + 1]!, f));
    distances.push(d);
  }
  return { points, distances, total };
}

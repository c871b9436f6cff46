// The pretend road network behind the fake OSRM and Valhalla servers, so both engines agree on what
// can be routed: roads cover lon 13.0-13.8, lat 52.3-52.7 (Berlin, the OSRM documentation's example
// area); points more than ~1 km outside cannot be placed on a road; north of lat 52.65 is an island
// with no road to the rest. Snapping rounds to 1e-4 degrees, roads run straight with a detour factor.
import type { Position } from "../../src/backends/routing/types";
import { haversineMetres } from "../../src/backends/routing/geometry";

export const AREA = { minLon: 13.0, minLat: 52.3, maxLon: 13.8, maxLat: 52.7 };
const MARGIN = 0.01;
export const ISLAND_LAT = 52.65;
const DETOUR = 1.3;

/** metres per second by engine profile name */
const SPEEDS: Record<string, number> = { car: 13.9, auto: 13.9, foot: 1.4, pedestrian: 1.4, bike: 4.2, bicycle: 4.2 };
export const speedOf = (profile: string) => SPEEDS[profile] ?? 10;

export function covered([lon, lat]: Position): boolean {
  return lon >= AREA.minLon - MARGIN && lon <= AREA.maxLon + MARGIN && lat >= AREA.minLat - MARGIN && lat <= AREA.maxLat + MARGIN;
}

export const onIsland = ([, lat]: Position) => lat > ISLAND_LAT;
export const connected = (a: Position, b: Position) => onIsland(a) === onIsland(b);

/**
 * Metres a curbside approach adds to a trip (OSRM's approaches=curb, Valhalla's preferred_side=same):
 * leaving or arriving with the point on the driving side means going round the block when the road
 * is reached from the other side, which the pretend network says it always is.
 */
export const CURB_DETOUR_METRES = 400;

/** The road metres from a to b, with the curb detour at each end that asks for one (none from a point to itself). */
export function tripMetres(a: Position, b: Position, curbAtA: boolean, curbAtB: boolean): number {
  const metres = roadMetres(snap(a), snap(b));
  return metres === 0 ? 0 : metres + (curbAtA ? CURB_DETOUR_METRES : 0) + (curbAtB ? CURB_DETOUR_METRES : 0);
}

/** The road point nearest to p (inside the area, on a 1e-4 degree grid). */
export function snap([lon, lat]: Position): Position {
  const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  return [Math.round(clamp(lon, AREA.minLon, AREA.maxLon) * 1e4) / 1e4, Math.round(clamp(lat, AREA.minLat, AREA.maxLat) * 1e4) / 1e4];
}

export const streetName = ([lon, lat]: Position) => `Street ${Math.round(lon * 100) % 100}-${Math.round(lat * 100) % 100}`;

/** A road from a to b: `segments` straight pieces with a small sideways bend, `offset` shifts alternatives. */
export function road(a: Position, b: Position, segments = 4, offset = 0): Position[] {
  const out: Position[] = [];
  for (let i = 0; i <= segments; i++) {
    const t = i / segments;
    const bend = Math.sin(Math.PI * t) * (0.002 + offset);
    out.push([Math.round((a[0] + (b[0] - a[0]) * t + bend) * 1e6) / 1e6, Math.round((a[1] + (b[1] - a[1]) * t) * 1e6) / 1e6]);
  }
  return out;
}

export function roadMetres(a: Position, b: Position, offset = 0): number {
  return Math.round(haversineMetres(a, b) * (DETOUR + offset * 10) * 10) / 10;
}

// Edge validation of routing inputs: the profile and coordinates from the path, the options from the
// query string. Every failure is a 400 BAD_REQUEST naming the parameter; the result is the normalized
// query (defaults filled in, exclusions in one order) that the cache is keyed by.
import { BadRequest } from "../../errors";
import { ROUTING_PROFILES } from "../../config";
import { EXCLUSIONS, type Exclusion, type MatrixQuery, type Position, type RouteQuery, type RoutingProfile } from "../../backends/routing/types";
import { parsePoints } from "../elevation/service";
import { parseLanguage } from "../geocoding/params";

export const MAX_WAYPOINTS = 25;
export const MAX_MATRIX_POINTS = 25;
export const MAX_ALTERNATIVES = 3;

type Raw = Record<string, string | undefined>;

const bad = (parameter: string, message: string) => new BadRequest(`${parameter} ${message}`, { parameter });
const shown = (raw: string) => JSON.stringify(raw.slice(0, 40));

export function parseProfile(raw: string): RoutingProfile {
  if (!(ROUTING_PROFILES as readonly string[]).includes(raw)) throw bad("profile", `must be one of ${ROUTING_PROFILES.join(", ")} (got ${shown(raw)})`);
  return raw as RoutingProfile;
}

function parseCoordinates(raw: string, min: number, max: number): Position[] {
  return parsePoints(raw, { min, max }).map((p) => [p.lon, p.lat]);
}

function parseBoolean(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  throw bad(name, `must be true or false (got ${shown(raw)})`);
}

function parseChoice<T extends string>(raw: string | undefined, name: string, choices: readonly T[], fallback: T): T {
  if (raw === undefined || raw === "") return fallback;
  if (!(choices as readonly string[]).includes(raw)) throw bad(name, `must be one of ${choices.join(", ")} (got ${shown(raw)})`);
  return raw as T;
}

/** 0 to 3; `true` and `false` too, as OSRM clients send them (true = one alternative). */
function parseAlternatives(raw: string | undefined): number {
  if (raw === undefined || raw === "" || raw === "false") return 0;
  if (raw === "true") return 1;
  if (!/^\d$/.test(raw) || Number(raw) > MAX_ALTERNATIVES) throw bad("alternatives", `must be an integer from 0 to ${MAX_ALTERNATIVES}, or true/false (got ${shown(raw)})`);
  return Number(raw);
}

function parseExclude(raw: string | undefined): Exclusion[] {
  if (raw === undefined || raw === "") return [];
  const wanted = raw.split(",").map((s) => s.trim());
  for (const w of wanted)
    if (!(EXCLUSIONS as readonly string[]).includes(w)) throw bad("exclude", `must be a comma-separated list of ${EXCLUSIONS.join(", ")} (got ${shown(w)})`);
  return EXCLUSIONS.filter((e) => wanted.includes(e));
}

/** One entry per waypoint, `;`-separated as OSRM and Mapbox take them; an empty entry is the default. */
function perWaypoint<T>(raw: string | undefined, name: string, count: number, parse: (entry: string) => T | undefined, form: string): (T | null)[] | null {
  if (raw === undefined || raw === "") return null;
  const parts = raw.split(";");
  if (parts.length !== count) throw bad(name, `must have one entry per waypoint, ${count}, separated by semicolons (got ${parts.length})`);
  return parts.map((part, i) => {
    if (part === "") return null;
    const value = parse(part);
    if (value === undefined) throw bad(name, `entry ${i} must be ${form} (got ${shown(part)})`);
    return value;
  });
}

const DECIMAL = /^\d{1,9}(\.\d{1,6})?$/;

function parseRadius(entry: string): number | "unlimited" | undefined {
  if (entry === "unlimited") return "unlimited";
  return DECIMAL.test(entry) ? Number(entry) : undefined;
}

function parseBearing(entry: string): [number, number] | undefined {
  const m = /^(\d{1,3}),(\d{1,3})$/.exec(entry);
  if (!m) return undefined;
  const angle = Number(m[1]);
  const deviation = Number(m[2]);
  return angle <= 360 && deviation <= 180 ? [angle, deviation] : undefined;
}

export function parseRouteQuery(profile: string, coordinates: string, query: Raw): RouteQuery {
  // The profile is checked first, as before the per-waypoint options needed the waypoints' count.
  const parsedProfile = parseProfile(profile);
  const waypoints = parseCoordinates(coordinates, 2, MAX_WAYPOINTS);
  return {
    profile: parsedProfile,
    waypoints,
    alternatives: parseAlternatives(query.alternatives),
    steps: parseBoolean(query.steps, "steps"),
    geometries: parseChoice(query.geometries, "geometries", ["geojson", "polyline", "polyline6"] as const, "geojson"),
    overview: parseChoice(query.overview, "overview", ["full", "simplified", "false"] as const, "simplified"),
    language: parseLanguage(query.language, "language"),
    exclude: parseExclude(query.exclude),
    radiuses: perWaypoint(query.radiuses, "radiuses", waypoints.length, parseRadius, "a distance in metres or unlimited, or empty for the default"),
    bearings: perWaypoint(query.bearings, "bearings", waypoints.length, parseBearing, "angle,deviation in whole degrees (0-360, 0-180), or empty for any direction"),
  };
}

/** `all` or indices separated by `;` (OSRM's form) or `,`, each below `count`. */
function parseIndices(raw: string | undefined, name: string, count: number): number[] {
  if (raw === undefined || raw === "" || raw === "all") return Array.from({ length: count }, (_, i) => i);
  const parts = raw.split(/[;,]/);
  if (parts.length > count) throw bad(name, `lists ${parts.length} indices for ${count} coordinates`);
  return parts.map((p) => {
    if (!/^\d{1,3}$/.test(p) || Number(p) >= count) throw bad(name, `must be all, or coordinate indices from 0 to ${count - 1} separated by semicolons (got ${shown(p)})`);
    return Number(p);
  });
}

export function parseMatrixQuery(profile: string, coordinates: string, query: Raw): MatrixQuery {
  const parsedProfile = parseProfile(profile);
  const points = parseCoordinates(coordinates, 2, MAX_MATRIX_POINTS);
  return {
    profile: parsedProfile,
    points,
    sources: parseIndices(query.sources, "sources", points.length),
    destinations: parseIndices(query.destinations, "destinations", points.length),
  };
}

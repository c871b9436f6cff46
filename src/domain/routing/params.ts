// Edge validation of routing inputs: the profile and coordinates from the path, the options from the
// query string. Every failure is a 400 BAD_REQUEST naming the parameter; the result is the normalized
// query (defaults filled in, exclusions in one order) that the cache is keyed by.
import { BadRequest } from "../../errors";
import { ROUTING_PROFILES } from "../../config";
import { ANNOTATIONS, EXCLUSIONS, MATRIX_ANNOTATIONS, type Annotation, type Exclusion, type MatrixAnnotation, type MatrixQuery, type Position, type RouteQuery, type RoutingProfile } from "../../backends/routing/types";
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
function perWaypoint<T>(raw: string | undefined, name: string, count: number, parse: (entry: string) => T | undefined, form: string, unit = "waypoint"): (T | null)[] | null {
  if (raw === undefined || raw === "") return null;
  const parts = raw.split(";");
  if (parts.length !== count) throw bad(name, `must have one entry per ${unit}, ${count}, separated by semicolons (got ${parts.length})`);
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

/** `waypoints`: ascending indices of the coordinates that end legs, the first and the last included. */
function parseLegEnds(raw: string | undefined, count: number): number[] | null {
  if (raw === undefined || raw === "") return null;
  const form = `must be coordinate indices separated by semicolons, ascending, from 0 to ${count - 1}, the first and the last included (got ${shown(raw)})`;
  const parts = raw.split(";");
  if (!parts.every((p) => /^\d{1,3}$/.test(p))) throw bad("waypoints", form);
  const indices = parts.map(Number);
  if (indices[0] !== 0 || indices.at(-1) !== count - 1 || indices.some((v, i) => i > 0 && v <= indices[i - 1]!)) throw bad("waypoints", form);
  return indices;
}

export const MAX_WAYPOINT_NAMES_LENGTH = 500;

/**
 * `waypoint_names`: one name per waypoint that ends a leg (every waypoint, or those `waypoints` lists),
 * `;`-separated as Mapbox takes them, at most 500 characters in all; an empty entry keeps the snapped road's name.
 */
function parseWaypointNames(raw: string | undefined, legEnds: number): (string | null)[] | null {
  if (raw === undefined || raw === "") return null;
  if (raw.length > MAX_WAYPOINT_NAMES_LENGTH) throw bad("waypoint_names", `must be at most ${MAX_WAYPOINT_NAMES_LENGTH} characters in all (got ${raw.length})`);
  const parts = raw.split(";");
  if (parts.length !== legEnds)
    throw bad("waypoint_names", `must have one entry per waypoint that ends a leg, ${legEnds} (every coordinate, or those waypoints lists), separated by semicolons (got ${parts.length})`);
  return parts.map((p) => (p === "" ? null : p));
}

/** `continue_straight`: true, false, or default (the engine's own). */
function parseContinueStraight(raw: string | undefined): boolean | null {
  if (raw === undefined || raw === "" || raw === "default") return null;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw bad("continue_straight", `must be true, false or default (got ${shown(raw)})`);
}

function parseAnnotations<T extends string>(raw: string | undefined, allowed: readonly T[], others: string): T[] | null {
  if (raw === undefined || raw === "") return null;
  const wanted = raw.split(",");
  for (const w of wanted)
    if (!(allowed as readonly string[]).includes(w))
      throw bad("annotations", `must be a comma-separated list of ${allowed.join(", ")} (got ${shown(w)})${others.includes(`,${w},`) ? `: ${w} is not supported by this server` : ""}`);
  return allowed.filter((a) => wanted.includes(a));
}

/**
 * Mapbox Directions options that would change the answer but are not honoured: refused by name rather
 * than ignored, since a client would otherwise read an answer that silently differs from what it asked.
 * Boolean presentation options are accepted when false (the default); any other parameter is ignored.
 */
const UNSUPPORTED_ROUTE_OPTIONS: Record<string, { message: string; unlessFalse?: boolean }> = {
  voice_instructions: { unlessFalse: true, message: "voice_instructions=true is not supported: speak the steps' maneuver.instruction texts (steps=true) instead" },
  banner_instructions: { unlessFalse: true, message: "banner_instructions=true is not supported: show the steps' maneuver.instruction texts (steps=true) instead" },
  roundabout_exits: { unlessFalse: true, message: "roundabout_exits=true is not supported: roundabout steps carry maneuver.exit instead" },
  enable_refresh: { unlessFalse: true, message: "enable_refresh=true is not supported: there is no route refresh endpoint; ask for the route again" },
  waypoints_per_route: { unlessFalse: true, message: "waypoints_per_route=true is not supported: waypoints are answered once, at the top level" },
  compute_toll_cost: { unlessFalse: true, message: "compute_toll_cost=true is not supported: toll costs are not known here" },
  metadata: { unlessFalse: true, message: "metadata=true is not supported: routing.engine names the engine that answered" },
  depart_at: { message: "depart_at is not supported: routes use the engine's typical speeds, not a departure time" },
  arrive_by: { message: "arrive_by is not supported: routes use the engine's typical speeds, not an arrival time" },
  max_height: { message: "max_height is not supported: vehicle dimensions are not taken into account" },
  max_width: { message: "max_width is not supported: vehicle dimensions are not taken into account" },
  max_weight: { message: "max_weight is not supported: vehicle weights are not taken into account" },
  waypoint_targets: { message: "waypoint_targets is not supported: send the coordinates to arrive at as the waypoints" },
  alley_bias: { message: "alley_bias is not supported: the engine's profile decides" },
  walkway_bias: { message: "walkway_bias is not supported: the engine's profile decides" },
  walking_speed: { message: "walking_speed is not supported: the engine's walking profile sets the speed" },
  avoid_maneuver_radius: { message: "avoid_maneuver_radius is not supported: use bearings for the first waypoint instead" },
  include: { message: "include is not supported: HOV and HOT lanes are not known here" },
  engine: { message: "engine is not supported: electric vehicle routing is not available" },
  snapping_include_closures: { message: "snapping_include_closures is not supported: closures are not known here" },
  snapping_include_static_closures: { message: "snapping_include_static_closures is not supported: closures are not known here" },
};

/** Mapbox Matrix options that would change the answer but are not honoured (see UNSUPPORTED_ROUTE_OPTIONS). */
const UNSUPPORTED_MATRIX_OPTIONS: Record<string, { message: string; unlessFalse?: boolean }> = {
  fallback_speed: { message: "fallback_speed is not supported: unreachable pairs answer null; estimate them yourself" },
  depart_at: { message: "depart_at is not supported: matrices use the engine's typical speeds, not a departure time" },
};

function refuseUnsupported(query: Raw, table: Record<string, { message: string; unlessFalse?: boolean }>): void {
  for (const [name, { message, unlessFalse }] of Object.entries(table)) {
    const value = query[name];
    if (value === undefined) continue;
    if (unlessFalse && (value === "" || value === "false")) continue;
    throw new BadRequest(message, { parameter: name });
  }
}

/** `approaches`: curb or unrestricted (empty: unrestricted), one per waypoint or matrix coordinate. */
function parseApproaches(raw: string | undefined, count: number, unit: string): ("curb" | null)[] | null {
  return perWaypoint(raw, "approaches", count, (e) => (e === "curb" ? "curb" : e === "unrestricted" ? null : undefined), "curb or unrestricted, or empty for any side", unit);
}

/** Annotations Mapbox knows for routes that no engine here can give per segment. */
const OTHER_ROUTE_ANNOTATIONS = ",congestion,congestion_numeric,maxspeed,closure,state_of_charge,";

export function parseRouteQuery(profile: string, coordinates: string, query: Raw): RouteQuery {
  // /routing/v1/matrix/driving is a matrix request without its coordinates, not a route with profile
  // "matrix": saying the profile is wrong would send the caller the wrong way.
  if (profile === "matrix")
    throw bad("coordinates", `are missing: a matrix is /routing/v1/matrix/{profile}/{lon},{lat};{lon},{lat}[;...] (got only the profile ${shown(coordinates)})`);
  // The profile is checked first, as before the per-waypoint options needed the waypoints' count.
  const parsedProfile = parseProfile(profile);
  const waypoints = parseCoordinates(coordinates, 2, MAX_WAYPOINTS);
  refuseUnsupported(query, UNSUPPORTED_ROUTE_OPTIONS);
  const legEnds = parseLegEnds(query.waypoints, waypoints.length);
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
    legEnds,
    continueStraight: parseContinueStraight(query.continue_straight),
    approaches: parseApproaches(query.approaches, waypoints.length, "waypoint"),
    annotations: parseAnnotations<Annotation>(query.annotations, ANNOTATIONS, OTHER_ROUTE_ANNOTATIONS) ?? [],
    waypointNames: parseWaypointNames(query.waypoint_names, legEnds?.length ?? waypoints.length),
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
  refuseUnsupported(query, UNSUPPORTED_MATRIX_OPTIONS);
  return {
    profile: parsedProfile,
    points,
    sources: parseIndices(query.sources, "sources", points.length),
    destinations: parseIndices(query.destinations, "destinations", points.length),
    // Both tables when none is named, as before annotations were read (Mapbox's default is durations only).
    annotations: parseAnnotations<MatrixAnnotation>(query.annotations, MATRIX_ANNOTATIONS, "") ?? [...MATRIX_ANNOTATIONS],
    approaches: parseApproaches(query.approaches, points.length, "coordinate"),
  };
}

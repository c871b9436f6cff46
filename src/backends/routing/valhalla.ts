// Valhalla adapter: POST /route and /sources_to_targets (JSON), lengths asked in kilometres and
// answered in metres, shapes decoded from polyline6, maneuvers translated into OSRM's vocabulary so
// both engines answer alike. Errors arrive as HTTP 4xx with {"error_code","error"}; a point off the
// network (171) is found with /locate, which tells for each point whether it reaches any road.
import type { Logger } from "../../log";
import { BadRequest } from "../../errors";
import { requestUpstreamJson, upstreamBadAnswer, type UpstreamTarget } from "../upstream";
import { invalidWaypoint, noRoute, refusedByLimit, round1, routerTarget } from "./errors";
import { bearingDegrees, haversineMetres, simplifyLine } from "./geometry";
import { decodePolyline } from "../../polyline";
import type { Exclusion, Leg, MatrixQuery, Position, Route, RouteQuery, Router, RoutingProfile, Step, Waypoint } from "./types";

/** Valhalla's "avoid as far as possible" costing options per exclusion (0 = avoid, 1 = prefer). */
const AVOID_OPTIONS: Record<Exclusion, string> = { tolls: "use_tolls", motorways: "use_highways", ferries: "use_ferry" };

/** Error codes that mean "no route between these points" (thor's 42x/44x, loki's unconnected regions). */
const NO_ROUTE_CODES = new Set([170, 172, 421, 441, 442]);
/** Error codes for limits of the server's configuration (max locations, max distance, matrix size). */
const LIMIT_CODES = new Set([150, 154, 430]);

const MANEUVERS: Record<number, [string, string?]> = {
  0: ["notification"],
  1: ["depart"], 2: ["depart", "right"], 3: ["depart", "left"],
  4: ["arrive"], 5: ["arrive", "right"], 6: ["arrive", "left"],
  7: ["new name", "straight"], 8: ["continue", "straight"],
  9: ["turn", "slight right"], 10: ["turn", "right"], 11: ["turn", "sharp right"],
  12: ["continue", "uturn"], 13: ["continue", "uturn"],
  14: ["turn", "sharp left"], 15: ["turn", "left"], 16: ["turn", "slight left"],
  17: ["on ramp", "straight"], 18: ["on ramp", "right"], 19: ["on ramp", "left"],
  20: ["off ramp", "right"], 21: ["off ramp", "left"],
  22: ["fork", "straight"], 23: ["fork", "right"], 24: ["fork", "left"],
  25: ["merge", "straight"], 26: ["roundabout"], 27: ["exit roundabout"],
  37: ["merge", "right"], 38: ["merge", "left"],
};

const MODES: Record<string, string> = { drive: "driving", pedestrian: "walking", bicycle: "cycling", transit: "transit" };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const location = ([lon, lat]: Position) => ({ lon, lat });

/** BCP 47 casing (de-CH, zh-Hant-TW), as Valhalla's language names are written. */
export function canonicalLanguage(tag: string): string {
  return tag
    .split("-")
    .map((part, i) => (i === 0 ? part.toLowerCase() : part.length === 2 ? part.toUpperCase() : part.length === 4 ? part[0]!.toUpperCase() + part.slice(1).toLowerCase() : part.toLowerCase()))
    .join("-");
}

/**
 * A waypoint's `radius` (metres; "unlimited" has no Valhalla form, so its default search applies) and
 * `heading` with `heading_tolerance` from the client's radiuses and bearings.
 */
function snapping(q: RouteQuery, i: number): Json {
  const out: Json = {};
  const radius = q.radiuses?.[i];
  if (typeof radius === "number") out.radius = Math.round(radius);
  const bearing = q.bearings?.[i];
  if (bearing) {
    out.heading = bearing[0] % 360;
    out.heading_tolerance = bearing[1];
  }
  return out;
}

/**
 * Valhalla's location type for waypoint `i`: the ends are `break`; a waypoint that ends a leg is
 * `break_through` when U-turns are forbidden there (continue_straight=true), else `break`; one passed
 * through without a leg (not in `waypoints`) is `via` when U-turns are allowed (continue_straight=false),
 * else `through`.
 */
export function locationType(q: RouteQuery, i: number): string {
  if (i === 0 || i === q.waypoints.length - 1) return "break";
  if (q.legEnds && !q.legEnds.includes(i)) return q.continueStraight === false ? "via" : "through";
  return q.continueStraight === true ? "break_through" : "break";
}

export function valhallaRouteRequest(costing: string, q: RouteQuery): Json {
  const request: Json = {
    // approaches=curb is Valhalla's preferred_side=same: the point on the side the locale drives on.
    locations: q.waypoints.map((p, i) => ({ ...location(p), type: locationType(q, i), ...snapping(q, i), ...(q.approaches?.[i] === "curb" ? { preferred_side: "same" } : {}) })),
    costing,
    directions_options: { units: "kilometers", language: canonicalLanguage(q.language) },
  };
  if (q.exclude.length) request.costing_options = { [costing]: Object.fromEntries(q.exclude.map((e) => [AVOID_OPTIONS[e], 0])) };
  if (q.alternatives > 0) request.alternates = q.alternatives;
  return request;
}

export function valhallaMatrixRequest(costing: string, q: MatrixQuery): Json {
  // Sources and targets are locations as the route's are: approaches=curb is preferred_side=same there too.
  const at = (i: number) => ({ ...location(q.points[i]!), ...(q.approaches?.[i] === "curb" ? { preferred_side: "same" } : {}) });
  return {
    sources: q.sources.map(at),
    targets: q.destinations.map(at),
    costing,
    units: "kilometers",
  };
}

export function createValhallaRouter(opts: { baseUrl: string; timeoutMs: number; profiles: Readonly<Record<RoutingProfile, string>>; log: Logger }): Router {
  const target: UpstreamTarget = routerTarget(opts.timeoutMs, opts.log);
  const bad = (reason: string, url: string) => upstreamBadAnswer(target, reason, url);

  /** Which of the points reaches no road, asked of /locate; null when that cannot be told. */
  async function unsnappableIndex(costing: string, points: Position[]): Promise<number | null> {
    try {
      const { status, json } = await requestUpstreamJson(`${opts.baseUrl}/locate`, target, JSON.stringify({ locations: points.map(location), costing }));
      if (status !== 200 || !Array.isArray(json)) return null;
      const index = json.findIndex((r) => isObject(r) && r.edges === null);
      return index >= 0 ? index : null;
    } catch {
      return null;
    }
  }

  async function call(path: string, request: Json, profile: RoutingProfile, points: Position[]): Promise<Json> {
    const url = `${opts.baseUrl}${path}`;
    const { status, json } = await requestUpstreamJson(url, target, JSON.stringify(request));
    if (status >= 200 && status <= 299) {
      if (!isObject(json)) throw bad("answered JSON that is not an object", url);
      return json;
    }
    const body = isObject(json) ? json : {};
    const code = num(body.error_code) ? body.error_code : null;
    const message = typeof body.error === "string" ? body.error.slice(0, 200) : "";
    if (code !== null && NO_ROUTE_CODES.has(code)) throw noRoute(profile, points);
    if (code === 171) throw invalidWaypoint(profile, points, await unsnappableIndex(request.costing as string, points));
    if (code !== null && LIMIT_CODES.has(code)) throw refusedByLimit("coordinates", message || `error ${code}`);
    throw bad(code !== null ? `answered error ${code}${message ? ` (${message})` : ""}` : `answered HTTP ${status} without a Valhalla error code`, url);
  }

  function shapeOf(raw: unknown, url: string): Position[] {
    if (typeof raw !== "string") throw bad("answered a leg without a shape", url);
    try {
      return decodePolyline(raw, 6);
    } catch {
      throw bad("answered a corrupt polyline6 shape", url);
    }
  }

  const streetName = (m: Json | undefined) => (m && Array.isArray(m.street_names) && typeof m.street_names[0] === "string" ? m.street_names[0] : "");

  function step(m: Json, shape: Position[], url: string): Step {
    if (!num(m.type) || !num(m.begin_shape_index)) throw bad("answered a maneuver without a type or shape index", url);
    const begin = Math.min(Math.max(0, m.begin_shape_index), shape.length - 1);
    const end = num(m.end_shape_index) ? Math.min(Math.max(begin, m.end_shape_index), shape.length - 1) : begin;
    const [type, modifier] = MANEUVERS[m.type] ?? ["notification"];
    const here = shape[begin]!;
    const maneuver: Step["maneuver"] = {
      type,
      location: here,
      bearing_before: num(m.bearing_before) ? m.bearing_before : begin > 0 ? bearingDegrees(shape[begin - 1]!, here) : 0,
      bearing_after: num(m.bearing_after) ? m.bearing_after : begin + 1 < shape.length ? bearingDegrees(here, shape[begin + 1]!) : 0,
      instruction: typeof m.instruction === "string" ? m.instruction : "",
    };
    if (modifier) maneuver.modifier = modifier;
    if (num(m.roundabout_exit_count)) maneuver.exit = m.roundabout_exit_count;
    return {
      distance: num(m.length) ? round1(m.length * 1000) : 0,
      duration: num(m.time) ? round1(m.time) : 0,
      name: streetName(m),
      mode: MODES[typeof m.travel_mode === "string" ? m.travel_mode : ""] ?? "",
      maneuver,
      // An arrival has one shape point; a LineString needs two, so it repeats it as OSRM does.
      geometry: end > begin ? shape.slice(begin, end + 1) : [here, here],
    };
  }

  /** Names of the two longest maneuvers, as Mapbox Directions' leg summary reads. */
  function summaryOf(maneuvers: Json[]): string {
    return maneuvers
      .filter((m) => streetName(m) && num(m.length))
      .sort((a, b) => (b.length as number) - (a.length as number))
      .map(streetName)
      .filter((name, i, all) => all.indexOf(name) === i)
      .slice(0, 2)
      .join(", ");
  }

  function trip(raw: unknown, q: RouteQuery, url: string): { route: Route; shapes: Position[][]; maneuvers: Json[][] } {
    const t = isObject(raw) && isObject(raw.trip) ? raw.trip : null;
    if (!t || !Array.isArray(t.legs) || !t.legs.length || !isObject(t.summary) || !num(t.summary.length) || !num(t.summary.time)) throw bad("answered a trip without legs or summary", url);
    const shapes: Position[][] = [];
    const maneuvers: Json[][] = [];
    const legs: Leg[] = t.legs.map((l) => {
      if (!isObject(l) || !isObject(l.summary)) throw bad("answered a malformed leg", url);
      const shape = shapeOf(l.shape, url);
      if (!shape.length) throw bad("answered an empty leg shape", url);
      const ms = Array.isArray(l.maneuvers) ? l.maneuvers.filter(isObject) : [];
      shapes.push(shape);
      maneuvers.push(ms);
      return {
        distance: num(l.summary.length) ? round1(l.summary.length * 1000) : 0,
        duration: num(l.summary.time) ? round1(l.summary.time) : 0,
        summary: summaryOf(ms),
        steps: q.steps ? ms.map((m) => step(m, shape, url)) : [],
      };
    });
    // Consecutive legs share their joining point; keep it once.
    const full = shapes.flatMap((s, i) => (i === 0 ? s : s.slice(1)));
    const geometry = q.overview === "false" ? null : q.overview === "simplified" ? simplifyLine(full) : full;
    return { route: { distance: round1(t.summary.length * 1000), duration: round1(t.summary.time), geometry, legs }, shapes, maneuvers };
  }

  return {
    engine: "valhalla",
    async route(q) {
      // Valhalla's /route gives no per-segment data (only /trace_attributes does, for a matched trace).
      if (q.annotations.length)
        throw new BadRequest("annotations is not supported with this server's routing engine (Valhalla): its routes carry no per-segment distance, duration or speed; leave annotations out and use each leg's or step's distance and duration", { parameter: "annotations" });
      const costing = opts.profiles[q.profile];
      const body = await call("/route", valhallaRouteRequest(costing, q), q.profile, q.waypoints);
      const url = `${opts.baseUrl}/route`;
      const main = trip(body, q, url);
      const alternates = Array.isArray(body.alternates) ? body.alternates.slice(0, q.alternatives).map((a) => trip(a, q, url).route) : [];
      const ends = q.legEnds ?? q.waypoints.map((_, i) => i);
      if (main.shapes.length !== ends.length - 1) throw bad(`answered ${main.shapes.length} legs for ${ends.length} waypoints that end legs`, url);
      // Snapped waypoints are where the legs start and end; their names are the roads there. A waypoint
      // passed through is the nearest point of its leg's shape, named after the maneuver there.
      const waypoints: Waypoint[] = q.waypoints.map((input, i) => {
        const k = ends.indexOf(i);
        if (k < 0) {
          const leg = ends.findIndex((e) => e > i) - 1;
          const shape = main.shapes[leg]!;
          let nearest = 0;
          for (let j = 1; j < shape.length; j++) if (haversineMetres(input, shape[j]!) < haversineMetres(input, shape[nearest]!)) nearest = j;
          const named = main.maneuvers[leg]!.find((m) => num(m.begin_shape_index) && m.begin_shape_index <= nearest && (!num(m.end_shape_index) || nearest <= m.end_shape_index));
          return { location: shape[nearest]!, name: streetName(named), distance: round1(haversineMetres(input, shape[nearest]!)) };
        }
        const last = k === ends.length - 1;
        const shape = main.shapes[last ? k - 1 : k]!;
        const snapped = last ? shape.at(-1)! : shape[0]!;
        const ms = main.maneuvers[last ? k - 1 : k]!;
        const named = last ? ms.filter((m) => !(num(m.type) && m.type >= 4 && m.type <= 6)).at(-1) : ms[0];
        return { location: snapped, name: streetName(named), distance: round1(haversineMetres(input, snapped)) };
      });
      return { routes: [main.route, ...alternates], waypoints };
    },
    async matrix(q) {
      const costing = opts.profiles[q.profile];
      const url = `${opts.baseUrl}/sources_to_targets`;
      const body = await call("/sources_to_targets", valhallaMatrixRequest(costing, q), q.profile, q.points);
      const rows = body.sources_to_targets;
      if (!Array.isArray(rows) || rows.length !== q.sources.length || !rows.every((r) => Array.isArray(r) && r.length === q.destinations.length))
        throw bad(`answered a matrix that is not ${q.sources.length}x${q.destinations.length}`, url);
      const cell = (v: unknown, scale: number) => (num(v) ? round1(v * scale) : null);
      const durations = rows.map((r) => (r as unknown[]).map((c) => (isObject(c) ? cell(c.time, 1) : null)));
      const distances = rows.map((r) => (r as unknown[]).map((c) => (isObject(c) ? cell(c.distance, 1000) : null)));
      // Valhalla's matrix does not report snapped locations: the inputs are given back as they were.
      return {
        durations,
        distances,
        sources: q.sources.map((i) => ({ location: q.points[i]! })),
        destinations: q.destinations.map((i) => ({ location: q.points[i]! })),
      };
    },
  };
}

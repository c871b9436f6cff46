// OSRM adapter: its HTTP `route` and `table` services (v1). Geometry is always asked for as polyline6
// (compact on the wire) and decoded; instruction text comes from osrm-text-instructions, since OSRM
// answers maneuvers without words. Errors arrive as HTTP 400 with {"code","message"}.
import type { Logger } from "../../log";
import { formatCoordinate } from "../coordinates";
import { requestUpstreamJson, upstreamBadAnswer, type UpstreamTarget } from "../upstream";
import { invalidWaypoint, noRoute, refusedByLimit, round1, routerTarget } from "./errors";
import { instructionFor, instructionLanguage, type OsrmStepLike } from "./instructions";
import { decodePolyline } from "../../polyline";
import type { Annotation, Exclusion, Leg, MatrixAnswer, MatrixQuery, Position, Route, RouteQuery, Router, RoutingProfile, Step, Waypoint } from "./types";

const EXCLUDE_CLASSES: Record<Exclusion, string> = { tolls: "toll", motorways: "motorway", ferries: "ferry" };

const coordinates = (points: Position[]) => points.map(([lon, lat]) => `${formatCoordinate(lon)},${formatCoordinate(lat)}`).join(";");

export function osrmRouteUrl(base: string, profileName: string, q: RouteQuery): string {
  const params = [
    `alternatives=${q.alternatives > 0 ? q.alternatives : "false"}`,
    `steps=${q.steps}`,
    "geometries=polyline6",
    `overview=${q.overview}`,
  ];
  if (q.exclude.length) params.push(`exclude=${q.exclude.map((e) => EXCLUDE_CLASSES[e]).join(",")}`);
  // OSRM's own forms: an empty entry keeps its default for that waypoint.
  if (q.radiuses) params.push(`radiuses=${q.radiuses.map((r) => r ?? "").join(";")}`);
  if (q.bearings) params.push(`bearings=${q.bearings.map((b) => (b ? b.join(",") : "")).join(";")}`);
  if (q.approaches) params.push(`approaches=${q.approaches.map((a) => a ?? "unrestricted").join(";")}`);
  if (q.legEnds) params.push(`waypoints=${q.legEnds.join(";")}`);
  if (q.continueStraight !== null) params.push(`continue_straight=${q.continueStraight}`);
  // OSRM 5.10 and later take a list; its per-segment arrays cover the leg's full geometry whatever `overview` says.
  if (q.annotations.length) params.push(`annotations=${q.annotations.join(",")}`);
  return `${base}/route/v1/${encodeURIComponent(profileName)}/${coordinates(q.waypoints)}?${params.join("&")}`;
}

export function osrmTableUrl(base: string, profileName: string, q: MatrixQuery): string {
  const all = (indices: number[]) => indices.length === q.points.length && indices.every((v, i) => v === i);
  const params = [`annotations=${q.annotations.join(",")}`];
  if (!all(q.sources)) params.push(`sources=${q.sources.join(";")}`);
  if (!all(q.destinations)) params.push(`destinations=${q.destinations.join(";")}`);
  // One per coordinate, as the route service takes them (OSRM 5.8 and later).
  if (q.approaches) params.push(`approaches=${q.approaches.map((a) => a ?? "unrestricted").join(";")}`);
  return `${base}/table/v1/${encodeURIComponent(profileName)}/${coordinates(q.points)}?${params.join("&")}`;
}

export function osrmNearestUrl(base: string, profileName: string, point: Position): string {
  return `${base}/nearest/v1/${encodeURIComponent(profileName)}/${coordinates([point])}?number=1`;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isPosition = (v: unknown): v is Position => Array.isArray(v) && v.length === 2 && num(v[0]) && num(v[1]);

/** OSRM's NoSegment message names the coordinate: "Could not find a matching segment for coordinate 1". */
export function segmentIndexOf(message: unknown): number | null {
  const m = /coordinate (\d+)/.exec(typeof message === "string" ? message : "");
  return m ? Number(m[1]) : null;
}

export function createOsrmRouter(opts: { baseUrl: string; timeoutMs: number; profiles: Readonly<Record<RoutingProfile, string>>; log: Logger }): Router {
  const target: UpstreamTarget = routerTarget(opts.timeoutMs, opts.log);
  const bad = (reason: string, url: string) => upstreamBadAnswer(target, reason, url);

  /** The JSON of an "Ok" answer, or the AppError its error code means. */
  async function call(url: string, profile: RoutingProfile, points: Position[]): Promise<Json> {
    const { status, json } = await requestUpstreamJson(url, target);
    const body = isObject(json) ? json : {};
    const code = typeof body.code === "string" ? body.code : "";
    if (status >= 200 && status <= 299 && code === "Ok") return body;
    const message = typeof body.message === "string" ? body.message.slice(0, 200) : "";
    if (code === "NoRoute") throw noRoute(profile, points);
    if (code === "NoSegment") throw invalidWaypoint(profile, points, segmentIndexOf(body.message));
    if (code === "TooBig") throw refusedByLimit("coordinates", `too many points for its configured limits (${message || "TooBig"})`);
    if (code === "InvalidValue" && /exclude/i.test(message)) throw refusedByLimit("exclude", `the ${profile} profile cannot exclude these road classes (${message})`);
    throw bad(code ? `answered ${code}${message ? ` (${message})` : ""}` : `answered HTTP ${status} without an OSRM code`, url);
  }

  function geometry(raw: unknown, url: string): Position[] {
    if (typeof raw !== "string") throw bad("answered a route without polyline6 geometry", url);
    try {
      return decodePolyline(raw, 6);
    } catch {
      throw bad("answered a corrupt polyline6 geometry", url);
    }
  }

  function waypoint(raw: unknown, url: string): Waypoint {
    if (!isObject(raw) || !isPosition(raw.location)) throw bad("answered a waypoint without a location", url);
    return { location: raw.location, name: typeof raw.name === "string" ? raw.name : "", distance: num(raw.distance) ? round1(raw.distance) : 0 };
  }

  function step(raw: unknown, language: string, legIndex: number, legCount: number, url: string): Step {
    if (!isObject(raw) || !isObject(raw.maneuver) || !isPosition(raw.maneuver.location) || typeof raw.maneuver.type !== "string")
      throw bad("answered a step without a maneuver", url);
    const m = raw.maneuver;
    const maneuver: Step["maneuver"] = {
      type: m.type as string,
      location: m.location as Position,
      bearing_before: num(m.bearing_before) ? m.bearing_before : 0,
      bearing_after: num(m.bearing_after) ? m.bearing_after : 0,
      instruction: instructionFor(language, raw as unknown as OsrmStepLike, legIndex, legCount),
    };
    if (typeof m.modifier === "string") maneuver.modifier = m.modifier;
    if (num(m.exit)) maneuver.exit = m.exit;
    return {
      distance: num(raw.distance) ? round1(raw.distance) : 0,
      duration: num(raw.duration) ? round1(raw.duration) : 0,
      name: typeof raw.name === "string" ? raw.name : "",
      mode: typeof raw.mode === "string" ? raw.mode : "",
      maneuver,
      geometry: geometry(raw.geometry, url),
    };
  }

  /** The leg's per-segment arrays the query asked for, each as OSRM sent it. */
  function annotation(raw: unknown, q: RouteQuery, url: string): Partial<Record<Annotation, number[]>> {
    const out: Partial<Record<Annotation, number[]>> = {};
    for (const name of q.annotations) {
      const values = isObject(raw) ? raw[name] : undefined;
      if (!Array.isArray(values) || !values.every(num)) throw bad(`answered a leg without its ${name} annotation`, url);
      out[name] = values as number[];
    }
    return out;
  }

  function route(raw: unknown, q: RouteQuery, language: string, url: string): Route {
    if (!isObject(raw) || !num(raw.distance) || !num(raw.duration) || !Array.isArray(raw.legs)) throw bad("answered a route without distance, duration or legs", url);
    const legCount = raw.legs.length;
    const legs: Leg[] = raw.legs.map((l, legIndex) => {
      if (!isObject(l)) throw bad("answered a malformed leg", url);
      return {
        distance: num(l.distance) ? round1(l.distance) : 0,
        duration: num(l.duration) ? round1(l.duration) : 0,
        summary: typeof l.summary === "string" ? l.summary : "",
        steps: q.steps && Array.isArray(l.steps) ? l.steps.map((s) => step(s, language, legIndex, legCount, url)) : [],
        ...(q.annotations.length ? { annotation: annotation(l.annotation, q, url) } : {}),
      };
    });
    return { distance: round1(raw.distance), duration: round1(raw.duration), geometry: q.overview === "false" ? null : geometry(raw.geometry, url), legs };
  }

  return {
    engine: "osrm",
    async route(q) {
      const url = osrmRouteUrl(opts.baseUrl, opts.profiles[q.profile], q);
      const body = await call(url, q.profile, q.waypoints);
      if (!Array.isArray(body.routes) || !Array.isArray(body.waypoints)) throw bad("answered Ok without routes or waypoints", url);
      if (!body.routes.length) throw noRoute(q.profile, q.waypoints);
      const language = instructionLanguage(q.language);
      return { routes: body.routes.map((r) => route(r, q, language, url)), waypoints: body.waypoints.map((w) => waypoint(w, url)) };
    },
    async matrix(q) {
      const url = osrmTableUrl(opts.baseUrl, opts.profiles[q.profile], q);
      const body = await call(url, q.profile, q.points);
      const table = (rows: unknown, name: string): (number | null)[][] => {
        if (!Array.isArray(rows) || rows.length !== q.sources.length || !rows.every((r) => Array.isArray(r) && r.length === q.destinations.length && r.every((v) => v === null || num(v))))
          throw bad(`answered a table without ${q.sources.length}x${q.destinations.length} ${name}${name === "distances" ? " (OSRM 5.18 or later is needed)" : ""}`, url);
        return (rows as (number | null)[][]).map((r) => r.map((v) => (v === null ? null : round1(v))));
      };
      const answer: MatrixAnswer = {
        ...(q.annotations.includes("duration") ? { durations: table(body.durations, "durations") } : {}),
        ...(q.annotations.includes("distance") ? { distances: table(body.distances, "distances") } : {}),
        sources: Array.isArray(body.sources) ? body.sources.map((w) => waypoint(w, url)) : [],
        destinations: Array.isArray(body.destinations) ? body.destinations.map((w) => waypoint(w, url)) : [],
      };
      if (answer.sources.length !== q.sources.length || answer.destinations.length !== q.destinations.length) throw bad("answered a table whose sources or destinations do not match the query", url);
      return answer;
    },
  };
}

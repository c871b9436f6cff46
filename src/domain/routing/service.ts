// Routing over the configured OSRM or Valhalla server: normalized queries, a bounded LRU cache of
// finished answers (a hit never calls the backend; concurrent identical misses share one call), and
// the one answer shape serialized once per miss. Plain TypeScript; the HTTP layer is src/routes/services/routing.ts.
import type { AppContext } from "../../context";
import { ServiceUnavailable } from "../../errors";
import { formatCoordinate } from "../../backends/coordinates";
import { Lru } from "../../lru";
import { createOsrmRouter } from "../../backends/routing/osrm";
import { createValhallaRouter } from "../../backends/routing/valhalla";
import { encodePolyline } from "../../polyline";
import type { MatrixAnswer, MatrixQuery, Position, RouteAnswer, RouteQuery, Router, Waypoint } from "../../backends/routing/types";

export const CACHE_TTL_MS = 3_600_000;

function routerFromConfig(ctx: AppContext): Router | null {
  const c = ctx.config;
  if (!c.routingUrl) return null;
  const opts = { baseUrl: c.routingUrl, timeoutMs: c.routingTimeoutMs, profiles: c.routingProfiles, log: ctx.log };
  return c.routingEngine === "valhalla" ? createValhallaRouter(opts) : createOsrmRouter(opts);
}

const coordinatesKey = (points: Position[]) => points.map(([lon, lat]) => `${formatCoordinate(lon)},${formatCoordinate(lat)}`).join(";");

const approachesEcho = (approaches: ("curb" | null)[] | null) => approaches?.map((a) => a ?? "unrestricted") ?? null;

function echoRoute(q: RouteQuery) {
  return { profile: q.profile, coordinates: q.waypoints, alternatives: q.alternatives, steps: q.steps, geometries: q.geometries, overview: q.overview, language: q.language, exclude: q.exclude, radiuses: q.radiuses, bearings: q.bearings, waypoints: q.legEnds, continue_straight: q.continueStraight, approaches: approachesEcho(q.approaches), annotations: q.annotations, waypoint_names: q.waypointNames };
}

/** The waypoints with the names waypoint_names gave the leg ends in place of the snapped roads' (either engine: none needs to know). */
function named(q: RouteQuery, waypoints: Waypoint[]): Waypoint[] {
  const names = q.waypointNames;
  if (!names) return waypoints;
  const ends = q.legEnds ?? q.waypoints.map((_, i) => i);
  return waypoints.map((w, i) => {
    const name = names[ends.indexOf(i)];
    return typeof name === "string" ? { ...w, name } : w;
  });
}

/** The documented answer: geometries in the requested format, steps only when asked for. */
export function routeBody(q: RouteQuery, answer: RouteAnswer, engine: string): string {
  const line = (positions: Position[]) =>
    q.geometries === "geojson" ? { type: "LineString", coordinates: positions } : encodePolyline(positions, q.geometries === "polyline6" ? 6 : 5);
  return JSON.stringify({
    code: "Ok",
    routes: answer.routes.map((r) => ({
      distance: r.distance,
      duration: r.duration,
      ...(r.geometry ? { geometry: line(r.geometry) } : {}),
      legs: r.legs.map((l) => ({
        distance: l.distance,
        duration: l.duration,
        summary: l.summary,
        steps: l.steps.map((s) => ({ distance: s.distance, duration: s.duration, name: s.name, mode: s.mode, maneuver: s.maneuver, geometry: line(s.geometry) })),
        ...(l.annotation ? { annotation: l.annotation } : {}),
      })),
    })),
    waypoints: named(q, answer.waypoints),
    routing: { engine, query: echoRoute(q) },
  });
}

export function matrixBody(q: MatrixQuery, answer: MatrixAnswer, engine: string): string {
  return JSON.stringify({
    code: "Ok",
    ...(q.annotations.includes("duration") ? { durations: answer.durations } : {}),
    ...(q.annotations.includes("distance") ? { distances: answer.distances } : {}),
    sources: answer.sources,
    destinations: answer.destinations,
    routing: { engine, query: { profile: q.profile, coordinates: q.points, sources: q.sources, destinations: q.destinations, annotations: q.annotations, approaches: approachesEcho(q.approaches) } },
  });
}

export function createRoutingService(ctx: AppContext, backend?: Router | null) {
  const router = backend !== undefined ? backend : routerFromConfig(ctx);
  const cache = new Lru<string>({ ttlMs: CACHE_TTL_MS, maxEntries: 20_000, maxBytes: 128 * 1024 * 1024 });
  const inflight = new Map<string, Promise<string>>();

  function requireRouter(): Router {
    if (!router)
      throw new ServiceUnavailable("ROUTER_NOT_CONFIGURED", "Routing is not set up on this server (its operator has not configured a routing backend); your API key is fine");
    return router;
  }

  /** The cached answer under `key`, or the backend's (one call for concurrent identical misses). */
  function cached(key: string, run: (r: Router) => Promise<string>): Promise<string> | string {
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const r = requireRouter();
    let p = inflight.get(key);
    if (!p) {
      p = run(r).then(
        (body) => {
          cache.set(key, body, 2 * (body.length + key.length) + 96);
          inflight.delete(key);
          return body;
        },
        (err) => {
          inflight.delete(key);
          throw err;
        },
      );
      inflight.set(key, p);
    }
    return p;
  }

  // Keys are plain joins of the normalized query, cheaper than serializing it on every hit.
  const route = (q: RouteQuery) =>
    cached(`route|${q.profile}|${coordinatesKey(q.waypoints)}|${q.alternatives}|${q.steps}|${q.geometries}|${q.overview}|${q.language}|${q.exclude.join(",")}|${q.radiuses?.map((r) => r ?? "").join(";") ?? "-"}|${q.bearings?.map((b) => b?.join(",") ?? "").join(";") ?? "-"}|${q.legEnds?.join(";") ?? "-"}|${q.continueStraight ?? "-"}|${q.approaches?.map((a) => a ?? "").join(";") ?? "-"}|${q.annotations.join(",")}|${q.waypointNames ? JSON.stringify(q.waypointNames) : "-"}`, async (r) =>
      routeBody(q, await r.route(q), r.engine),
    );
  const matrix = (q: MatrixQuery) =>
    cached(`matrix|${q.profile}|${coordinatesKey(q.points)}|${q.sources.join(",")}|${q.destinations.join(",")}|${q.annotations.join(",")}|${q.approaches?.map((a) => a ?? "").join(";") ?? "-"}`, async (r) => matrixBody(q, await r.matrix(q), r.engine));

  return { route, matrix };
}

export type RoutingService = ReturnType<typeof createRoutingService>;

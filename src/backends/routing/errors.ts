// The answers both adapters give when the engine refuses a query for a reason the caller can act on:
// no route (404 NO_ROUTE naming the waypoints), a point off the network (422 INVALID_WAYPOINT with
// details.index), or a query the engine's own limits refuse (400 naming the parameter).
import { BadRequest, NotFound, Unprocessable } from "../../errors";
import type { Logger } from "../../log";
import { formatCoordinate } from "../coordinates";
import type { UpstreamTarget } from "../upstream";
import type { Position, RoutingProfile } from "./types";

export const describePoint = (index: number, p: Position) => `waypoint ${index} (${formatCoordinate(p[0])},${formatCoordinate(p[1])})`;

function listed(parts: string[]): string {
  return parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

export function noRoute(profile: RoutingProfile, points: Position[]): NotFound {
  return new NotFound(`No ${profile} route connects ${listed(points.map((p, i) => describePoint(i, p)))}`, "NO_ROUTE", {
    profile,
    waypoints: points.map((p, index) => ({ index, location: p })),
  });
}

/** `index` may be unknown when the engine did not say which point it could not place. */
export function invalidWaypoint(profile: RoutingProfile, points: Position[], index: number | null): Unprocessable {
  const problem = `is not near any road the ${profile} profile can use; move it closer to a road`;
  if (index === null || !points[index]) return new Unprocessable("INVALID_WAYPOINT", `One of the waypoints ${problem}`);
  return new Unprocessable("INVALID_WAYPOINT", `W${describePoint(index, points[index]!).slice(1)} ${problem}`, { index, location: points[index] });
}

/** The engine's own limits are lower than ours (a smaller table size, a shorter maximum distance). */
export function refusedByLimit(parameter: string, reason: string): BadRequest {
  return new BadRequest(`The routing backend refuses this ${parameter}: ${reason}`, { parameter });
}

export function routerTarget(timeoutMs: number, log: Logger): UpstreamTarget {
  return { label: "routing backend", unavailableCode: "ROUTER_UNAVAILABLE", timeoutMs, log };
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

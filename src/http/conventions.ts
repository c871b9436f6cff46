// Cross-cutting HTTP rules for every route, present and future: request ids, CORS, security headers,
// body limits, the error envelope (including 405), and one JSON access-log line per request. What
// differs between routes (CORS kind, body kind, metric group) comes from the route table. The rules
// themselves are plain functions (request-rules.ts) that the fast routes (fast-routes.ts) share.
import { Elysia } from "elysia";
import type { Config } from "../config";
import type { Logger } from "../log";
import { AppError } from "../errors";
import { beginRequest, requestState } from "./request-context";
import { corsHeaders, preflightResponse } from "./cors";
import { checkDeclaredLength, closesConnection } from "./body-limit";
import { checkJsonDepth } from "./json-depth";
import { mapError } from "./error-response";
import { checkRequestLine, ERROR_CONTENT_TYPE, logRequest, mapAndLogError, readRequestHeaders, safePathname } from "./request-rules";
import type { RouteTable } from "./route-facts";
import { ROUTING_PROFILES } from "../config";

const PROFILES = ROUTING_PROFILES.join("|");

/** Called once per finished request (metrics); kept in the access-log hook so there is one such hook. */
export type RequestObserver = (group: string, method: string, status: number, ms: number) => void;

/**
 * `fixedHeaders` go on every answer before anything else (a cluster worker's X-Mapstead-Worker).
 */
/** Where a URL in another service's form (Mapbox's static images) is served here; null for the rest. */
function routeHint(path: string): string | null {
  const mapbox = /^\/styles\/v1\/([^/]+)\/([^/]+)\/static\//.exec(path);
  if (mapbox)
    return `No such route: static images are at /static/v1/${mapbox[1]!.slice(0, 64)}/${mapbox[2]!.slice(0, 64)}[/{overlay}]/{lon},{lat},{zoom}[,{bearing}]/{width}x{height}[@2x].{png|jpg|webp} (or [{bbox}] or auto in place of the position), with a static_maps key; Mapbox's /styles/v1/.../static/... form is not served`;
  if (/^\/routing\/v1(\/|$)/.test(path))
    return `No such route: routes are at /routing/v1/{${PROFILES}}/{lon},{lat};{lon},{lat}[;...] and matrices at /routing/v1/matrix/{${PROFILES}}/{lon},{lat};{lon},{lat}[;...], with a routing key`;
  if (/^\/elevation\/v1(\/|$)/.test(path))
    return "No such route: heights are at /elevation/v1/{lon},{lat}[;{lon},{lat}...] and a profile along a path at /elevation/v1/along/{lon},{lat};{lon},{lat}[;...], with an elevation key";
  if (/^\/geocoding\/v1(\/|$)/.test(path))
    return "No such route: geocoding is at /geocoding/v1/forward?q=..., /geocoding/v1/reverse?lon=...&lat=..., /geocoding/v1/autocomplete?text=... and POST /geocoding/v1/batch, with a geocoding key";
  return null;
}

export function conventions(config: Config, log: Logger, routes: RouteTable, observe?: RequestObserver, fixedHeaders?: Record<string, string>) {
  return new Elysia({ name: "conventions" })
    .error({ AppError })
    .onRequest((c) => {
      const { request, set } = c;
      const pathname = safePathname(request);
      const seen = readRequestHeaders(request);
      const facts = request.method === "OPTIONS" ? routes.anyMethod(pathname) : routes.find(request.method, pathname);
      const state = beginRequest(c, pathname, seen.requestId, facts);
      const headers = set.headers;
      if (fixedHeaders) Object.assign(headers, fixedHeaders);
      headers["x-request-id"] = state.id;
      headers["x-content-type-options"] = "nosniff";
      if (facts.cors !== "none") {
        if (request.method === "OPTIONS" && seen.origin && seen.preflight) return preflightResponse(facts, seen.origin, state.id);
        Object.assign(headers, corsHeaders(facts, seen.origin));
      }
      checkRequestLine(seen, pathname);
      checkDeclaredLength(seen, facts.body, config.maxUploadMb);
      if (closesConnection(seen, facts.body, false)) headers["connection"] = "close";
    })
    // Before validation, which walks the body recursively.
    .onTransform({ as: "global" }, ({ body }) => checkJsonDepth(body))
    .onError({ as: "global" }, (c) => {
      const { code, error, request, set } = c;
      let mapped = mapAndLogError(code as string, error, request, log, set.headers["x-request-id"]);
      if (mapped.status === 404 && code === "NOT_FOUND") {
        const allowed = routes.allowedMethods(requestState(c)?.path ?? safePathname(request));
        if (allowed.length && !allowed.includes(request.method)) {
          mapped = mapError("", new AppError(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}`));
          set.headers["allow"] = allowed.join(", ");
        } else {
          const hint = routeHint(requestState(c)?.path ?? safePathname(request));
          if (hint) mapped = mapError("", new AppError(404, "NOT_FOUND", hint));
        }
      }
      if (mapped.headers) Object.assign(set.headers, mapped.headers);
      if (closesConnection(readRequestHeaders(request), requestState(c)?.facts.body ?? "none", true)) set.headers["connection"] = "close";
      set.headers["content-type"] = ERROR_CONTENT_TYPE;
      set.status = mapped.status;
      // HEAD answers carry no body.
      return request.method === "HEAD" ? new Response(null, { status: mapped.status, headers: set.headers as Record<string, string> }) : JSON.stringify(mapped.body);
    })
    .onAfterResponse({ as: "global" }, (c) => {
      const { request, set } = c;
      const state = requestState(c);
      const path = state?.path ?? safePathname(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const ms = state ? performance.now() - state.startedAt : 0;
      observe?.(state?.facts.group ?? "other", request.method, status, ms);
      logRequest(log, request.method, path, status, ms, state?.id ?? "");
    });
}

// Cross-cutting HTTP rules for every route, present and future: request ids, CORS, security headers,
// body limits, the error envelope (including 405), and one JSON access-log line per request. What
// differs between routes (CORS kind, body kind, metric group) comes from the route table.
import { Elysia } from "elysia";
import type { Config } from "../config";
import { isoNow, type Logger } from "../log";
import { AppError } from "../errors";
import { beginRequest, requestState, type RequestHeaders } from "./request-context";
import { corsHeaders, preflightResponse } from "./cors";
import { checkDeclaredLength } from "./body-limit";
import { mapError } from "./error-response";
import type { RouteTable } from "./route-facts";

const MAX_HEADER_BYTES = 16 * 1024;

function safePathname(request: Request): string {
  const raw = request.url;
  const start = raw.indexOf("/", raw.indexOf("//") + 2);
  const end = raw.indexOf("?", start);
  return start < 0 ? "/" : raw.slice(start, end < 0 ? undefined : end);
}

/** Called once per finished request (metrics); kept in the access-log hook so there is one such hook. */
export type RequestObserver = (group: string, method: string, status: number, ms: number) => void;

function collect(this: RequestHeaders, value: string, name: string): void {
  this.bytes += name.length + value.length + 4;
  switch (name) {
    case "x-request-id":
      this.requestId = value;
      break;
    case "origin":
      this.origin = value;
      break;
    case "content-length":
      this.contentLength = value;
      break;
    case "transfer-encoding":
      this.transferEncoding = value;
      break;
    case "access-control-request-method":
      this.preflight = true;
  }
}

export function conventions(config: Config, log: Logger, routes: RouteTable, observe?: RequestObserver) {
  return new Elysia({ name: "conventions" })
    .error({ AppError })
    .onRequest((c) => {
      const { request, set } = c;
      const pathname = safePathname(request);
      // One walk over the headers: the size check and every header the conventions read.
      const seen: RequestHeaders = { bytes: 0, requestId: null, origin: null, contentLength: null, transferEncoding: null, preflight: false };
      request.headers.forEach(collect, seen);
      const facts = request.method === "OPTIONS" ? routes.anyMethod(pathname) : routes.find(request.method, pathname);
      const state = beginRequest(c, pathname, seen.requestId, facts);
      const headers = set.headers;
      headers["x-request-id"] = state.id;
      headers["x-content-type-options"] = "nosniff";
      if (facts.cors !== "none") {
        if (request.method === "OPTIONS" && seen.origin && seen.preflight) return preflightResponse(facts.cors, seen.origin, state.id);
        Object.assign(headers, corsHeaders(facts.cors, seen.origin));
      }
      if (seen.bytes > MAX_HEADER_BYTES) throw new AppError(431, "BAD_REQUEST", `Request headers exceed ${MAX_HEADER_BYTES} bytes`);
      if (pathname.includes("%")) {
        try {
          decodeURIComponent(pathname);
        } catch {
          throw new AppError(400, "BAD_REQUEST", "The request path is not valid percent-encoded UTF-8");
        }
      }
      if (facts.body !== "none") checkDeclaredLength(seen, facts.body, config.maxUploadMb);
    })
    .onError({ as: "global" }, (c) => {
      const { code, error, request, set } = c;
      let mapped = mapError(code as string, error, request.url);
      if (mapped.status === 404 && code === "NOT_FOUND") {
        const allowed = routes.allowedMethods(requestState(c)?.path ?? safePathname(request));
        if (allowed.length && !allowed.includes(request.method)) {
          mapped = mapError("", new AppError(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}`));
          set.headers["allow"] = allowed.join(", ");
        }
      }
      if (mapped.internal) {
        log.error("request failed", {
          request_id: set.headers["x-request-id"],
          method: request.method,
          path: safePathname(request),
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          stack: error instanceof Error ? error.stack?.split("\n").slice(1, 6).join(" | ") : undefined,
        });
      }
      if (mapped.headers) Object.assign(set.headers, mapped.headers);
      set.headers["content-type"] = "application/json; charset=utf-8";
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
      // Built by hand: this line is written for every request, and a generic object + stringify
      // was the largest single cost of a small request. Method and id are token characters.
      if (log.enabled("info"))
        log.writeLine(
          "info",
          `{"time":"${isoNow()}","level":"info","msg":"request","method":"${request.method}","path":${JSON.stringify(path)},"status":${status},"ms":${Math.round(ms * 100) / 100},"request_id":"${state?.id ?? ""}"}`,
        );
    });
}

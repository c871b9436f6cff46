// Cross-cutting HTTP rules for every route, present and future: request ids, CORS, security headers,
// body limits, the error envelope (including 405), and one JSON access-log line per request.
import { Elysia } from "elysia";
import type { Config } from "../config";
import { isoNow, type Logger } from "../log";
import { AppError } from "../errors";
import { beginRequest, requestFacts } from "./request-context";
import { corsHeaders, corsKind, preflightResponse } from "./cors";
import { checkDeclaredLength } from "./body-limit";
import { mapError } from "./error-response";

export interface RouteTable {
  /** methods registered for a path, used to tell 405 from 404 */
  allowedMethods(pathname: string): string[];
}

const MAX_HEADER_BYTES = 16 * 1024;

function safePathname(request: Request): string {
  const raw = request.url;
  const start = raw.indexOf("/", raw.indexOf("//") + 2);
  const end = raw.indexOf("?", start);
  return start < 0 ? "/" : raw.slice(start, end < 0 ? undefined : end);
}

function headerBytes(request: Request): number {
  let n = 0;
  request.headers.forEach((v, k) => {
    n += k.length + v.length + 4;
  });
  return n;
}

/** Called once per finished request (metrics); kept in the access-log hook so there is one such hook. */
export type RequestObserver = (path: string, method: string, status: number, ms: number) => void;

export function conventions(config: Config, log: Logger, routes: RouteTable, observe?: RequestObserver) {
  return new Elysia({ name: "conventions" })
    .error({ AppError })
    .onRequest(({ request, set }) => {
      const pathname = safePathname(request);
      const facts = beginRequest(request, pathname);
      const headers = set.headers;
      headers["x-request-id"] = facts.id;
      headers["x-content-type-options"] = "nosniff";
      const kind = corsKind(pathname);
      if (kind !== "none") {
        Object.assign(headers, corsHeaders(kind, request.headers.get("origin")));
        const preflight = preflightResponse(request, pathname, facts.id);
        if (preflight) return preflight;
      }
      if (headerBytes(request) > MAX_HEADER_BYTES)
        throw new AppError(431, "BAD_REQUEST", `Request headers exceed ${MAX_HEADER_BYTES} bytes`);
      if (pathname.includes("%")) {
        try {
          decodeURIComponent(pathname);
        } catch {
          throw new AppError(400, "BAD_REQUEST", "The request path is not valid percent-encoded UTF-8");
        }
      }
      if (request.method !== "GET" && request.method !== "HEAD") checkDeclaredLength(request, pathname, config.maxUploadMb);
    })
    .onError({ as: "global" }, ({ code, error, request, set }) => {
      let mapped = mapError(code as string, error, request.url);
      if (mapped.status === 404 && code === "NOT_FOUND") {
        const allowed = routes.allowedMethods(safePathname(request));
        if (allowed.length && !allowed.includes(request.method)) {
          mapped = mapError("", new AppError(405, "METHOD_NOT_ALLOWED", `${request.method} is not allowed here; use ${allowed.join(", ")}`));
          set.headers["allow"] = allowed.join(", ");
        }
      }
      if (mapped.internal) {
        log.error("request failed", {
          request_id: requestFacts(request)?.id,
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
    .onAfterResponse({ as: "global" }, ({ request, set }) => {
      const facts = requestFacts(request);
      const path = facts?.path ?? safePathname(request);
      const status = typeof set.status === "number" ? set.status : 200;
      const ms = facts ? performance.now() - facts.startedAt : 0;
      observe?.(path, request.method, status, ms);
      // Built by hand: this line is written for every request, and a generic object + stringify
      // was the largest single cost of a small request. Method and id are token characters.
      if (log.enabled("info"))
        log.writeLine(
          "info",
          `{"time":"${isoNow()}","level":"info","msg":"request","method":"${request.method}","path":${JSON.stringify(path)},"status":${status},"ms":${Math.round(ms * 100) / 100},"request_id":"${facts?.id ?? ""}"}`,
        );
    });
}

/** Builds the 405 lookup from Elysia's registered routes (":param" segments match one segment). */
export function routeTableFrom(getRoutes: () => { method: string; path: string }[]): RouteTable {
  let compiled: { method: string; re: RegExp }[] | null = null;
  const compile = () =>
    getRoutes()
      .filter((r) => r.method !== "ALL")
      .map((r) => ({
        method: r.method,
        re: new RegExp(
          "^" +
            r.path
              .split("/")
              .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
              .join("/") +
            "/?$",
        ),
      }));
  return {
    allowedMethods(pathname) {
      compiled ??= compile();
      const methods = new Set(compiled.filter((r) => r.re.test(pathname)).map((r) => r.method));
      if (methods.has("GET")) methods.add("HEAD");
      return [...methods].filter((m) => m !== "OPTIONS").sort();
    },
  };
}

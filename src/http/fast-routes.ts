// The hot public reads (tiles, TileJSON, style JSON, sprites, glyph ranges, /health) served from Bun's
// own `routes` table, beside Elysia: the same read/ functions, with every convention the Elysia path
// applies to them done here through the same functions (request-rules.ts): request id, security and
// CORS headers, header size and path checks, viewer resolution, the error envelope, HEAD, metrics and
// the access-log line. Each fast route doubles one Elysia GET route, its twin, whose facts (CORS kind,
// metric group) and params schema it takes, so the OpenAPI keeps documenting it from there. What a
// fast route does not answer itself goes to Elysia: other methods (preflights, 405) never reach it (Bun
// hands them to `fetch`), and params its twin's schema refuses are passed on for Elysia's own 400.
// TypeBox as Elysia ships it (no second copy to keep in step): the twin's params schema is one of its.
import { TypeCompiler } from "elysia/type-system";
import type { TSchema } from "elysia";
import type { BunRequest } from "bun";
import type { Logger } from "../log";
import type { ReadAnswer } from "../read/answer";
import type { RequestObserver } from "./conventions";
import { corsHeaders } from "./cors";
import { acceptRequestId, type RequestHeaders } from "./request-context";
import { checkHeaderBytes, checkPathEncoding, ERROR_CONTENT_TYPE, logRequest, mapAndLogError, readRequestHeaders, safePathname } from "./request-rules";
import { factsOf } from "./route-facts";
import { wireHeaders } from "./wire-headers";

/** One hot read: `path` is the path of its Elysia twin (a GET route), in Elysia's and Bun's syntax alike. */
export interface FastRead {
  path: string;
  /**
   * Answers the request; `params` are the path parameters, already checked against the twin's schema,
   * and `seen` what the conventions read from its headers (whether it carries credentials at all).
   */
  answer(params: Record<string, string>, request: Request, seen: RequestHeaders): ReadAnswer | Promise<ReadAnswer>;
}

/** What Elysia knows of a route (its `app.routes` entries). */
export interface TwinRoute {
  method: string;
  path: string;
  hooks?: unknown;
}

export interface FastRouteDeps {
  log: Logger;
  observe?: RequestObserver;
  /** headers every answer starts with (a cluster worker's X-Mapstead-Worker) */
  fixedHeaders?: Record<string, string>;
  /** Elysia's routes: every fast route must have its twin among them */
  twins: readonly TwinRoute[];
  /** Elysia's own handling of a request, for what a fast route leaves to it */
  elysia: (request: Request) => Response | Promise<Response>;
}

type BunHandler = (request: BunRequest) => Response | Promise<Response>;

export function fastRoutes(reads: readonly FastRead[], deps: FastRouteDeps): Record<string, { GET: BunHandler }> {
  const table: Record<string, { GET: BunHandler }> = {};
  for (const read of reads) {
    const twin = deps.twins.find((r) => r.method === "GET" && r.path === read.path);
    if (!twin) throw new Error(`fast route ${read.path} has no Elysia twin (a GET route with the same path)`);
    // Service routes echo the caller's origin and bill calls: they stay with Elysia.
    if (factsOf(twin).cors === "service") throw new Error(`fast route ${read.path}: service routes are not served on the fast path`);
    table[read.path] = { GET: fastHandler(read, twin, deps) };
  }
  return table;
}

function fastHandler(read: FastRead, twin: TwinRoute, deps: FastRouteDeps): BunHandler {
  const { log, observe, fixedHeaders, elysia } = deps;
  const facts = factsOf(twin);
  const paramsSchema = (twin.hooks as { params?: TSchema } | undefined)?.params;
  const paramsOk = paramsSchema ? TypeCompiler.Compile(paramsSchema) : null;
  // The headers every answer of this route starts with, in the Elysia plugin's order.
  const start: Record<string, string> = { ...fixedHeaders, "x-request-id": "", "x-content-type-options": "nosniff", ...(facts.cors === "public" ? corsHeaders(facts, null) : {}) };
  const headersFor = wireHeaders(start);
  const pathOf = pathFromParams(read.path);

  // Bun sends HEAD here too, and drops the body itself (keeping the GET's Content-Length), as it does
  // for Elysia's answers. `path` is null when the access log is off (see below).
  const send = (request: Request, path: string | null, id: string, startedAt: number, a: ReadAnswer): Response => {
    const ms = performance.now() - startedAt;
    observe?.(facts.group, request.method, a.status, ms);
    if (path !== null) logRequest(log, request.method, path, a.status, ms, id);
    return new Response(a.body as BodyInit | null, { status: a.status, headers: headersFor(a.headers, id) });
  };
  const failed = (request: Request, path: string | null, id: string, startedAt: number, error: unknown): Response => {
    const mapped = mapAndLogError("", error, request, log, id);
    const headers = { ...mapped.headers, "content-type": ERROR_CONTENT_TYPE };
    return send(request, path, id, startedAt, { status: mapped.status, headers, body: request.method === "HEAD" ? null : JSON.stringify(mapped.body) });
  };

  // Not async: a read that answers at once (a cached tile, TileJSON, style JSON, /health) gives Bun a
  // Response, not a Promise.
  return (request) => {
    const startedAt = performance.now();
    const params = request.params as Record<string, string>;
    if (paramsOk && !paramsOk.Check(params)) return elysia(request);
    // The header walk is needed although `bun` itself refuses request heads over 16 KiB: the compiled
    // binary lets up to 64 KiB through, and the conventions answer those 431 (test/binary).
    const seen = readRequestHeaders(request);
    // A GET with a body (rare) gets the body rules (413, closing the connection) from Elysia's path.
    if (seen.transferEncoding !== null || (seen.contentLength !== null && seen.contentLength !== "0")) return elysia(request);
    const id = acceptRequestId(seen.requestId);
    // Reading request.url costs about as much as the rest of the conventions, so it is read only when a
    // parameter may hide a malformed escape (the path check's 400) or the access log needs a path that
    // cannot be spelled back from the route's pattern and parameters.
    const path = mayHideBadEscape(params) ? safePathname(request) : log.enabled("info") ? (pathOf(params) ?? safePathname(request)) : null;
    let pending: ReadAnswer | Promise<ReadAnswer>;
    try {
      checkHeaderBytes(seen);
      if (path !== null) checkPathEncoding(path);
      pending = read.answer(params, request, seen);
    } catch (error) {
      return failed(request, path, id, startedAt, error);
    }
    if (pending instanceof Promise)
      return pending.then(
        (a) => send(request, path, id, startedAt, a),
        (error) => failed(request, path, id, startedAt, error),
      );
    return send(request, path, id, startedAt, pending);
  };
}

/** Characters a client never has to escape in a path segment (RFC 3986 unreserved, and `@` `,`). */
const PLAIN_SEGMENT = /^[A-Za-z0-9._~@,-]+$/;

/**
 * The request's path spelled from the route's pattern and its parameters, for the access log, without
 * reading `request.url` (about 0.5 us a request); null when a parameter holds a character the client
 * must have escaped (a space, say), whose escape only the URL can tell. A client that escaped a plain
 * character ("%41" for "A", "%40" for "@") is logged with it decoded: the path as it was routed (for
 * letters, digits and `-._~` also the same URI by RFC 3986, 6.2.2.2; `@` and `,` mean the same to every
 * route here, which takes them from decoded parameters).
 */
function pathFromParams(pattern: string): (params: Record<string, string>) => string | null {
  const parts = pattern.split("/").map((segment) => (segment.startsWith(":") ? { param: segment.slice(1) } : { text: segment }));
  if (parts.every((p) => p.text !== undefined)) return () => pattern;
  return (params) => {
    let path = "";
    for (const part of parts) {
      if (part.text !== undefined) path += part.text;
      else {
        const value = params[part.param!]!;
        if (!PLAIN_SEGMENT.test(value)) return null;
        path += value;
      }
      path += "/";
    }
    return path.slice(0, -1);
  };
}

/**
 * Bun hands the route its parameters percent-decoded, with U+FFFD for every escape that is not valid
 * UTF-8 (test/http/fast-routes.test.ts holds malformed paths to the Elysia twin's 400 with the access
 * log on and off). Only a parameter with U+FFFD, or a "%" (had Bun left an escape as it came), can
 * come from such a path.
 */
function mayHideBadEscape(params: Record<string, string>): boolean {
  for (const name in params) {
    const value = params[name]!;
    if (value.includes("\uFFFD") || value.includes("%")) return true;
  }
  return false;
}

// The conventions as plain functions, shared by the two ways a request is served: the Elysia plugin
// (conventions.ts) and the fast routes (fast-routes.ts). Whatever one of them does to a request, the
// other does through the same function here, so the twins cannot drift apart.
import { AppError, UnsupportedMediaType, errorBody } from "../errors";
import { isoNow, type Logger } from "../log";
import { mapError, type MappedError } from "./error-response";
import type { RequestHeaders } from "./request-context";

export const MAX_HEADER_BYTES = 16 * 1024;

/** The content type of every error envelope. */
export const ERROR_CONTENT_TYPE = "application/json; charset=utf-8";

export function safePathname(request: Request): string {
  const raw = request.url;
  const start = raw.indexOf("/", raw.indexOf("//") + 2);
  const end = raw.indexOf("?", start);
  return start < 0 ? "/" : raw.slice(start, end < 0 ? undefined : end);
}

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
      break;
    case "x-api-key":
    case "cookie":
      this.credentials = true;
  }
}

/** One walk over the headers: their size and every header the conventions read. */
export function readRequestHeaders(request: Request): RequestHeaders {
  const seen: RequestHeaders = { bytes: 0, requestId: null, origin: null, contentLength: null, transferEncoding: null, preflight: false, credentials: false };
  request.headers.forEach(collect, seen);
  return seen;
}

/** Refuses oversized headers (431) and a path that is not valid percent-encoded UTF-8 (400). */
export function checkRequestLine(seen: RequestHeaders, pathname: string): void {
  checkHeaderBytes(seen);
  checkPathEncoding(pathname);
}

/** Refuses oversized headers (431). */
export function checkHeaderBytes(seen: RequestHeaders): void {
  if (seen.bytes > MAX_HEADER_BYTES) throw new AppError(431, "BAD_REQUEST", `Request headers exceed ${MAX_HEADER_BYTES} bytes`);
}

/** Refuses a path that is not valid percent-encoded UTF-8 (400). */
export function checkPathEncoding(pathname: string): void {
  if (pathname.includes("%")) {
    try {
      decodeURIComponent(pathname);
    } catch {
      throw new AppError(400, "BAD_REQUEST", "The request path is not valid percent-encoded UTF-8");
    }
  }
}

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/** Whether a Content-Type is application/json (with parameters or not): the one type Elysia parses as JSON. */
export const isJsonContentType = (type: string | null) => type !== null && JSON_TYPE.test(type);

/**
 * A JSON body sent under another Content-Type is refused as such (415). Elysia parses only
 * application/json as JSON and hands the route text/plain (or curl -d's form type) as it came, which
 * then fails validation with a message about missing fields instead of the type.
 */
function notJsonBody(code: string, error: unknown, request: Request): MappedError | null {
  if (code !== "VALIDATION" || (error as { type?: string })?.type !== "body") return null;
  const refused = jsonTypeRefusal(request);
  return refused ? mapError("", refused) : null;
}

/** The 415 for a request whose body is declared as another type than JSON; null for JSON or no type. */
export function jsonTypeRefusal(request: Request): UnsupportedMediaType | null {
  const type = request.headers.get("content-type");
  if (type === null || isJsonContentType(type)) return null;
  return new UnsupportedMediaType(`Send this request body as JSON with Content-Type: application/json (it came as ${type.split(";")[0]!.trim().slice(0, 100)})`);
}

/**
 * A client that hangs up mid-request (an upload cancelled, a tab closed) is no failure of ours: Bun
 * aborts the request's body with an AbortError. No error log, and the access log says 499 as nginx's
 * does, so monitoring does not count it among the 5xx. Nobody is left to read the answer.
 */
const clientHungUp = (error: unknown, request: Request) => request.signal.aborted && error instanceof Error && error.name === "AbortError";
const CLIENT_CLOSED: MappedError = { status: 499, body: errorBody("CLIENT_CLOSED_REQUEST", "The client closed the connection before the request finished"), internal: false };

/** Maps anything thrown to the envelope and logs what is ours to fix (with the request id, never a secret). */
export function mapAndLogError(code: string, error: unknown, request: Request, log: Logger, requestId: unknown): MappedError {
  if (clientHungUp(error, request)) return CLIENT_CLOSED;
  const mapped = notJsonBody(code, error, request) ?? mapError(code, error, request.url);
  if (mapped.internal) {
    log.error("request failed", {
      request_id: requestId,
      method: request.method,
      path: safePathname(request),
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      stack: error instanceof Error ? error.stack?.split("\n").slice(1, 6).join(" | ") : undefined,
    });
  } else if (mapped.storage) {
    log.warn("request refused: DATA_DIR", {
      request_id: requestId,
      method: request.method,
      path: safePathname(request),
      status: mapped.status,
      error: error instanceof Error ? error.message : String(error),
      fix: mapped.body.error.message,
    });
  }
  return mapped;
}

/** Printable ASCII but `"` and `\`: what JSON writes as it is, between quotes. */
const JSON_AS_IS = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** The access-log line of a finished request. */
export function logRequest(log: Logger, method: string, path: string, status: number, ms: number, requestId: string): void {
  // Built by hand: this line is written for every request, and a generic object + stringify
  // was the largest single cost of a small request. Method and id are token characters. A path
  // is nearly always plain ASCII, quoted as it is: JSON.stringify's copy costs more, and makes the
  // whole batch of lines slower to write out.
  if (log.enabled("info"))
    log.writeLine(
      "info",
      `{"time":"${isoNow()}","level":"info","msg":"request","method":"${method}","path":${JSON_AS_IS.test(path) ? `"${path}"` : JSON.stringify(path)},"status":${status},"ms":${Math.round(ms * 100) / 100},"request_id":"${requestId}"${log.lineEnd}`,
    );
}

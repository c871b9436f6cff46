// Per-request facts the conventions need at the end of a request (id, start time, path, route facts).
// They live on Elysia's context object, which is the same object from onRequest to onAfterResponse:
// no per-request map keyed by the Request.
import type { ResolvedFacts } from "./route-facts";

export interface RequestState {
  id: string;
  startedAt: number;
  /** the request path without its query string (never log the query: it may hold secrets) */
  path: string;
  facts: ResolvedFacts;
}

/** What the conventions read from the request headers, collected in one walk over them. */
export interface RequestHeaders {
  bytes: number;
  requestId: string | null;
  origin: string | null;
  contentLength: string | null;
  transferEncoding: string | null;
  preflight: boolean;
  /** an X-API-Key or a Cookie was sent: without either the caller is anonymous, and no lookup is needed */
  credentials: boolean;
}

const STATE = Symbol("mapstead.request");
const WELL_FORMED_ID = /^[A-Za-z0-9._-]{1,128}$/;

// A request id only has to be unique in this process's log and not guessable across restarts:
// a random per-process prefix and a counter cost far less than a UUID per request.
const PROCESS_PREFIX = crypto.randomUUID().slice(0, 8);
let counter = 0;

export function newRequestId(): string {
  return `${PROCESS_PREFIX}-${(++counter).toString(36)}`;
}

/** The caller's X-Request-Id when it is well formed, else a new one. */
export function acceptRequestId(incomingId: string | null): string {
  return incomingId && WELL_FORMED_ID.test(incomingId) ? incomingId : newRequestId();
}

export function beginRequest(context: object, path: string, incomingId: string | null, facts: ResolvedFacts): RequestState {
  const id = acceptRequestId(incomingId);
  const state: RequestState = { id, startedAt: performance.now(), path, facts };
  (context as { [STATE]?: RequestState })[STATE] = state;
  return state;
}

export function requestState(context: object): RequestState | undefined {
  return (context as { [STATE]?: RequestState })[STATE];
}

/** The request id of the answer being built, for handlers that log. */
export function requestIdOf(set: { headers: Record<string, unknown> }): string | undefined {
  return set.headers["x-request-id"] as string | undefined;
}

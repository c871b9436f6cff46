// Per-request facts every plugin may need (id, start time), keyed by the Request object so nothing
// has to be threaded through Elysia's context types.
export interface RequestFacts {
  id: string;
  startedAt: number;
  /** the request path without its query string (never log the query: it may hold secrets) */
  path: string;
}

const facts = new WeakMap<Request, RequestFacts>();
const WELL_FORMED_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function beginRequest(request: Request, path: string): RequestFacts {
  const incoming = request.headers.get("x-request-id");
  const id = incoming && WELL_FORMED_ID.test(incoming) ? incoming : crypto.randomUUID();
  const f = { id, startedAt: performance.now(), path };
  facts.set(request, f);
  return f;
}

export function requestFacts(request: Request): RequestFacts | undefined {
  return facts.get(request);
}

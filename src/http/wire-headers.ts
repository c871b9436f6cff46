// The headers a fast route sends: the conventions' headers of the route (request id, nosniff, CORS, a
// cluster worker's name) and the answer's own. Turning a plain object into a Response's headers is the
// largest cost of a small answer after Bun's socket work, so for a fixed answer (frozen by
// read/answer.ts `fixedAnswer`, kept with cached content) the combined Headers object is built once and
// only the request id is set per request. `new Response()` copies the Headers it is given, so one
// object per answer can be reused as long as the Response is built right after `headersFor` returns.

export type HeadersFor = (answerHeaders: Readonly<Record<string, string>>, requestId: string) => Headers | Record<string, string>;

/** `start`: the route's conventions' headers, in the order the Elysia plugin sets them. */
export function wireHeaders(start: Readonly<Record<string, string>>): HeadersFor {
  // Keyed by the answer's frozen headers object: it lives as long as the cached content it belongs to.
  const built = new WeakMap<object, Headers>();
  return (answerHeaders, requestId) => {
    if (!Object.isFrozen(answerHeaders)) return { ...start, ...answerHeaders, "x-request-id": requestId };
    let wire = built.get(answerHeaders);
    if (wire === undefined) built.set(answerHeaders, (wire = new Headers({ ...start, ...answerHeaders })));
    wire.set("x-request-id", requestId);
    return wire;
  };
}

// CORS per CONTRACT.md: public map assets (styles, tiles, fonts) allow any origin; service APIs
// (geocoding, elevation) echo the caller's origin, whose key policy is checked by the auth guard;
// the management API and console are same-origin only. Which kind a route is, its module declares
// (route-facts.ts).
import type { CorsKind } from "./route-facts";

const EXPOSED =
  "X-Request-Id, ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, X-Quota-Reset, Idempotent-Replayed";
const ALLOWED_HEADERS = "X-API-Key, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match";

const PUBLIC_HEADERS = Object.freeze({ "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED });

/** Headers to add to an ordinary response. */
export function corsHeaders(kind: CorsKind, origin: string | null): Record<string, string> {
  if (kind === "public") return PUBLIC_HEADERS;
  if (kind === "service" && origin)
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
  return {};
}

/** The answer to a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) on a public or service route. */
export function preflightResponse(kind: CorsKind, origin: string, requestId: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(kind, origin),
      "access-control-allow-methods": kind === "public" ? "GET, HEAD, OPTIONS" : "GET, POST, OPTIONS",
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      "x-request-id": requestId,
    },
  });
}

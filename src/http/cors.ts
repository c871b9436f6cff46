// CORS per CONTRACT.md: public map assets (styles, tiles, fonts) allow any origin; service APIs
// (geocoding, elevation) echo the caller's origin, whose key policy is checked by the auth guard;
// the management API and console are same-origin only. Which kind a route is, its module declares
// (route-facts.ts).
import type { CorsKind } from "./route-facts";

const EXPOSED =
  "X-Request-Id, ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, X-Quota-Reset, Idempotent-Replayed";
const ALLOWED_HEADERS = "X-API-Key, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match";

// Map assets read without a key (tiles, TileJSON, styles, sprites, glyphs) are never rate limited or
// billed, so they expose only what they can carry: a list naming the rate and quota headers too would
// add some 170 bytes to every tile a map loads.
const ASSET_EXPOSED = "X-Request-Id, ETag, Retry-After";

const PUBLIC_HEADERS = Object.freeze({ "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED });
const ASSET_HEADERS = Object.freeze({ "access-control-allow-origin": "*", "access-control-expose-headers": ASSET_EXPOSED });

/** What decides a route's CORS headers: its kind, and whether a key (with its limits) may come with it. */
export interface CorsFacts {
  cors: CorsKind;
  accessToken: boolean;
}

/** Headers to add to an ordinary response. */
export function corsHeaders({ cors: kind, accessToken }: CorsFacts, origin: string | null): Record<string, string> {
  if (kind === "public") return accessToken ? PUBLIC_HEADERS : ASSET_HEADERS;
  if (kind === "service" && origin)
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
  return {};
}

/** The answer to a CORS preflight (OPTIONS with Origin and Access-Control-Request-Method) on a public or service route. */
export function preflightResponse(facts: CorsFacts, origin: string, requestId: string): Response {
  const kind = facts.cors;
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(facts, origin),
      "access-control-allow-methods": kind === "public" ? "GET, HEAD, OPTIONS" : "GET, POST, OPTIONS",
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600",
      vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
      "x-request-id": requestId,
    },
  });
}

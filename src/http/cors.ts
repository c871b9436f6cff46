// CORS per CONTRACT.md: public map assets (styles, tiles, fonts) allow any origin; service APIs
// (geocoding, elevation, routing) echo the caller's origin, whose key policy is checked by the auth guard;
// the management API and console are same-origin only.

const PUBLIC_ASSET_PREFIXES = ["/styles/v1/", "/tiles/v1/", "/fonts/v1"];
const SERVICE_API_PREFIXES = ["/geocoding/v1/", "/elevation/v1/", "/routing/v1/"];
const EXPOSED =
  "X-Request-Id, ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Quota-Limit, X-Quota-Used, X-Quota-Remaining, X-Quota-Reset, Idempotent-Replayed";
const ALLOWED_HEADERS = "X-API-Key, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match";

export type CorsKind = "public" | "service" | "none";

export function corsKind(pathname: string): CorsKind {
  if (PUBLIC_ASSET_PREFIXES.some((p) => pathname.startsWith(p))) return "public";
  if (SERVICE_API_PREFIXES.some((p) => pathname.startsWith(p))) return "service";
  return "none";
}

/** Headers to add to an ordinary response. */
export function corsHeaders(kind: CorsKind, origin: string | null): Record<string, string> {
  if (kind === "public") return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED };
  if (kind === "service" && origin)
    return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED, vary: "Origin" };
  return {};
}

/** The answer to a CORS preflight, or null when the request is not one we answer. */
export function preflightResponse(request: Request, pathname: string, requestId: string): Response | null {
  if (request.method !== "OPTIONS") return null;
  const kind = corsKind(pathname);
  const origin = request.headers.get("origin");
  if (kind === "none" || !origin || !request.headers.get("access-control-request-method")) return null;
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

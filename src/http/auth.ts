// Who is calling. Service modules declare what they need in route options and get a typed caller:
//   { scope: "geocoding" }  -> API key with that scope, or a console session      -> ctx.caller
//   { session: true }       -> console session only (management, admin work)      -> ctx.caller (session)
//   { viewer: true }        -> anonymous allowed; resolves who may see private assets -> ctx.viewer
// Key checks follow SPEC.md: missing/invalid/deleted 401 UNAUTHORIZED, expired 401 KEY_EXPIRED,
// origin mismatch 403 DOMAIN_NOT_ALLOWED, missing scope 403 INSUFFICIENT_SCOPE.
//
// Authentication runs in the transform phase, before body/query validation: a caller without
// credentials learns nothing about the route's input rules, and a forged cross-site request is refused
// (403) before anything else. Sessions on unsafe methods are CSRF-checked inside session resolution
// (Origin equal to PUBLIC_URL's origin, or X-CSRF-Token), so every module's routes get it for free.
//
// The `scope` macro also applies, per caller and service group (= the scope):
// - a token bucket (RATE_LIMIT_PER_MINUTE, or the key's own limit) with X-RateLimit-Limit / -Remaining /
//   -Reset on the response, 429 RATE_LIMITED with Retry-After when empty;
// - for keys on billable groups (geocoding, routing, elevation, static_maps): the monthly quota with
//   X-Quota-Limit / -Used / -Remaining / -Reset, 429 QUOTA_EXCEEDED when used up, and usage counting.
//   A call counts when its response status is below 400. A handler that answers without doing billable
//   work (the geocoding batch replaying a stored Idempotency-Key response) calls `skipBilling(request)`
//   and the call is not counted.
//
// Management routes of one organization: take `{ session: true }` (or `{ scope: "tilesets:write" }` where
// a key may write too) and then `requireOrgAccess(ctx.db, params.org, caller, { minRole, keyScope })`
// from src/domain/orgs/service.ts: 404 for an unknown org, 403 FORBIDDEN for non-members or keys of
// another org.
import { Elysia } from "elysia";
import type { AuthService, Caller, KeyCaller, ServiceAuthorization, SessionCaller, Viewer } from "../domain/accounts/auth";
import type { Scope } from "../domain/keys/scopes";

export type { Caller, Viewer, KeyCaller, SessionCaller };
export { requireOrgAccess } from "../domain/orgs/service";

const notBillable = new WeakSet<Request>();

/** Marks this request's call as not billable: the scope macro will not count it against usage or quota. */
export function skipBilling(request: Request): void {
  notBillable.add(request);
}

let plugins = 0;

/**
 * Built once per app by createApp and given to every route module that needs callers. Elysia dedupes
 * plugins by name + seed, so each app's plugin gets its own seed: two apps in one process stay apart.
 */
export function authPlugin(auth: AuthService) {
  const services = new WeakMap<Request, ServiceAuthorization>();
  const callers = new WeakMap<Request, Caller | null>();
  const viewers = new WeakMap<Request, Viewer>();
  /** Counts or refunds the call's reservation once: failed (>= 400) or skipBilling calls are refunded. */
  const settle = (request: Request, status: number, headers: Record<string, string | number>) => {
    const a = services.get(request);
    if (!a?.reservation) return;
    const billable = !notBillable.has(request);
    auth.settle(a.reservation, status, billable);
    a.reservation = null;
    // The quota headers were written when the call was reserved; a refunded call did not use it.
    if ((status >= 400 || !billable) && headers["x-quota-used"] !== undefined) {
      headers["x-quota-used"] = String(Math.max(0, Number(headers["x-quota-used"]) - 1));
      headers["x-quota-remaining"] = String(Number(headers["x-quota-remaining"]) + 1);
    }
  };
  return new Elysia({ name: "auth", seed: ++plugins })
    .decorate("auth", auth)
    .macro({
      scope: (scope: Scope) => ({
        transform: ({ request, set }) => {
          services.set(request, auth.authorizeService(request, scope, set.headers as Record<string, string>));
        },
        resolve: ({ request }) => ({ caller: services.get(request)!.caller }),
        // Settled before the response leaves, so the next request already sees a refunded quota.
        // (mapResponse also runs for error responses, after the global error handler set the status;
        // no afterResponse hook: it would cost every request a deferred task.)
        mapResponse: ({ request, set }) => {
          settle(request, typeof set.status === "number" ? set.status : 200, set.headers as Record<string, string | number>);
        },
      }),
      session: (required: boolean) => ({
        transform: ({ request }) => {
          callers.set(request, required ? auth.requireSession(request) : auth.sessionFromRequest(request));
        },
        resolve: ({ request }) => ({ caller: callers.get(request) as Caller }),
      }),
      viewer: (enabled: boolean) => ({
        transform: ({ request }) => {
          if (enabled) viewers.set(request, auth.viewerFromRequest(request));
        },
        resolve: ({ request }) => ({ viewer: viewers.get(request) ?? { privateOrgIds: new Set<number>(), authenticated: false } }),
      }),
    });
}
export type AuthPlugin = ReturnType<typeof authPlugin>;

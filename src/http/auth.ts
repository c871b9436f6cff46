// Who is calling. Service modules declare what they need in route options and get a typed caller:
//   { scope: "geocoding" }  -> API key with that scope, or a console session      -> ctx.caller
//   { session: true }       -> console session only (management, admin work)      -> ctx.caller (session)
//   { viewer: true }        -> anonymous allowed; resolves who may see private assets -> ctx.viewer
// The key comes in X-API-Key, or in the `access_token` query parameter on routes whose facts say
// `accessToken: true` (static images, raster tiles). Key checks follow SPEC.md: missing/invalid/deleted
// 401 UNAUTHORIZED, expired 401 KEY_EXPIRED, origin mismatch 403 DOMAIN_NOT_ALLOWED, missing scope 403
// INSUFFICIENT_SCOPE.
//
// Authentication runs in the transform phase, before body/query validation: a caller without
// credentials learns nothing about the route's input rules, and a forged cross-site request is refused
// (403) before anything else. Sessions on unsafe methods are CSRF-checked inside session resolution
// (Origin equal to PUBLIC_URL's origin, or X-CSRF-Token), so every module's routes get it for free.
//
// The `scope` macro also applies, per caller and service group (= the scope):
// - a token bucket (RATE_LIMIT_PER_MINUTE, or the key's own limit) with X-RateLimit-Limit / -Remaining /
//   -Reset on the response, 429 RATE_LIMITED with Retry-After when empty; a call the limits refuse
//   (429: rate limit, quota, a batch that does not fit) hands its tokens back;
// - for keys on billable groups (geocoding, routing, elevation, static_maps): the monthly quota with
//   X-Quota-Limit / -Used / -Remaining / -Reset, 429 QUOTA_EXCEEDED when used up, and usage counting.
//   A call counts when its response status is below 400. The macro resolves `billing` for the handler:
//   `billing.units(n)` counts a call that does n units of work (a geocoding batch: one per job) as n
//   calls against both (429 when they do not fit), and `billing.skip()` marks a call that did no
//   billable work (a batch replaying a stored Idempotency-Key response): it is not counted.
//
// Per-request state lives on Elysia's context object (the same object from transform to mapResponse),
// not in maps keyed by the Request; an anonymous viewer is one shared value.
//
// Management routes of one organization: take `{ session: true }` (or `{ scope: "tilesets:write" }` where
// a key may write too) and then `requireOrgAccess(ctx.db, params.org, caller, { minRole, keyScope })`
// from src/domain/orgs/service.ts: 404 for an unknown org, 403 FORBIDDEN for non-members or keys of
// another org.
import { Elysia } from "elysia";
import { ANONYMOUS_VIEWER, type AuthService, type Caller, type KeyCaller, type ServiceAuthorization, type SessionCaller, type Viewer } from "../domain/accounts/auth";
import type { Scope } from "../domain/keys/scopes";
import { requestState } from "./request-context";

export type { Caller, Viewer, KeyCaller, SessionCaller };
export { requireOrgAccess } from "../domain/orgs/service";

const SERVICE = Symbol("mapstead.service-authorization");
const CALLER = Symbol("mapstead.caller");
const VIEWER = Symbol("mapstead.viewer");
const NOT_BILLABLE = Symbol("mapstead.not-billable");

type RequestSlots = {
  [SERVICE]?: ServiceAuthorization;
  [CALLER]?: Caller | null;
  [VIEWER]?: Viewer;
  [NOT_BILLABLE]?: boolean;
};

/** What a service handler may say about how its call is billed. */
export interface CallBilling {
  /** this call does `n` units of work (one per batch job): counted as n calls; 429 when they do not fit */
  units(n: number): void;
  /** this call did no billable work (a replayed answer): it is not counted */
  skip(): void;
}

let plugins = 0;

/** Whether the route's facts let the key come in `access_token` (see RouteFacts). */
const acceptsAccessToken = (c: object) => requestState(c)?.facts.accessToken ?? false;

/**
 * Built once per app by createApp and given to every route module that needs callers. Elysia dedupes
 * plugins by name + seed, so each app's plugin gets its own seed: two apps in one process stay apart.
 */
export function authPlugin(auth: AuthService) {
  /** Counts or refunds the call's reservation once: failed (>= 400) or skipped calls are refunded. */
  const settle = (slots: RequestSlots, status: number, headers: Record<string, string | number>) => {
    const a = slots[SERVICE];
    if (!a?.reservation) return;
    const billable = !slots[NOT_BILLABLE];
    auth.settle(a, status, billable);
    a.reservation = null;
    // The quota headers were written when the call was reserved; a refunded call did not use it.
    if ((status >= 400 || !billable) && headers["x-quota-used"] !== undefined) {
      headers["x-quota-used"] = String(Math.max(0, Number(headers["x-quota-used"]) - a.units));
      headers["x-quota-remaining"] = String(Number(headers["x-quota-remaining"]) + a.units);
    }
  };
  return new Elysia({ name: "auth", seed: ++plugins })
    .decorate("auth", auth)
    .macro({
      scope: (scope: Scope) => ({
        transform: (c) => {
          (c as RequestSlots)[SERVICE] = auth.authorizeService(c.request, scope, c.set.headers as Record<string, string>, acceptsAccessToken(c));
        },
        resolve: (c) => {
          const slots = c as RequestSlots;
          const a = slots[SERVICE]!;
          const billing: CallBilling = {
            units: (n) => auth.chargeUnits(a, scope, n, c.set.headers as Record<string, string | number>),
            skip: () => void (slots[NOT_BILLABLE] = true),
          };
          return { caller: a.caller, billing };
        },
        // Settled before the response leaves, so the next request already sees a refunded quota.
        // (mapResponse also runs for error responses, after the global error handler set the status;
        // no afterResponse hook: it would cost every request a deferred task.)
        mapResponse: (c) => {
          settle(c as RequestSlots, typeof c.set.status === "number" ? c.set.status : 200, c.set.headers as Record<string, string | number>);
        },
      }),
      session: (required: boolean) => ({
        transform: (c) => {
          (c as RequestSlots)[CALLER] = required ? auth.requireSession(c.request) : auth.sessionFromRequest(c.request);
        },
        resolve: (c) => ({ caller: (c as RequestSlots)[CALLER] as Caller }),
      }),
      viewer: (enabled: boolean) => ({
        transform: (c) => {
          if (enabled) (c as RequestSlots)[VIEWER] = auth.viewerFromRequest(c.request, acceptsAccessToken(c));
        },
        resolve: (c) => ({ viewer: (c as RequestSlots)[VIEWER] ?? ANONYMOUS_VIEWER }),
      }),
    });
}
export type AuthPlugin = ReturnType<typeof authPlugin>;

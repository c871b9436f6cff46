// Resolving callers from X-API-Key headers (or `access_token` query parameters where a route allows)
// and session cookies. Plain TypeScript, no Elysia.
// One instance per AppContext (createAuthService memoizes), so every module shares the same key and
// session caches, rate-limit buckets and usage counters.
//
// Hot path: a verified key or session is cached for KEY_CACHE_TTL_MS, so a check costs a Map lookup and
// one PRAGMA, not a query: a cached entry is trusted only after the change bus was asked for other
// processes' changes (that PRAGMA while nothing changed). A key revoked or a user disabled, deleted or
// signed out in this process, another worker or the CLI is refused by the very next request, not a
// watcher tick or seconds later. Changes made behind the bus's back (raw SQL) are seen within the TTL.
import { timingSafeEqual } from "node:crypto";
import type { AppContext } from "../../context";
import { AppError, Forbidden, TooManyRequests, Unauthorized } from "../../errors";
import { createRateLimiter, type BucketResult, type RateLimiter } from "./rate-limit";
import { hashSecret, isWellFormedSecret } from "../keys/secret";
import { isScope, type Scope } from "../keys/scopes";
import { describeOrigin, originMatches, parseOriginPattern, requestOriginOf, type OriginPattern } from "../keys/origins";
import { calendarOf, createUsageService, FLUSH_INTERVAL_MS, type QuotaState, type Reservation, type UsageService } from "../usage/service";
import { SESSION_IDLE_MS } from "./users";
import { hashToken } from "./tokens";
import type { ChangeBus } from "../changes/bus";
import { Lru } from "../../lru";
import { crossSiteRefusal } from "./cross-site";

export { hashToken };

export { originAllowed } from "../keys/origins";

export const SESSION_COOKIE = "mapstead_session";

/** The `access_token` query parameter; given more than once it is refused rather than guessed at. */
export function accessTokenOf(request: Request): string | null {
  const q = request.url.indexOf("?");
  if (q < 0) return null;
  const tokens = new URLSearchParams(request.url.slice(q + 1)).getAll("access_token");
  if (tokens.length > 1) throw new Unauthorized("The access_token query parameter is given more than once");
  return tokens[0] ?? null;
}
/**
 * Whether `access_token=` sits in the URL after a second '?', where no parser reads it: an unencoded
 * '?' in the path (a polyline holds them) starts the query string early, and the key goes unread.
 */
function accessTokenHidden(request: Request): boolean {
  const q = request.url.indexOf("?");
  return q >= 0 && request.url.indexOf("?access_token=", q + 1) >= 0;
}
/** Verified keys and sessions are trusted this long before the database is asked again (<= 5 s). */
export const KEY_CACHE_TTL_MS = 4_000;
/** last_seen_at of a session is written at most this often. */
const SESSION_TOUCH_MS = 60_000;
const MAX_CACHED = 20_000;

/** Service groups whose calls are billable: counted per key and day, and checked against quotas. */
export const BILLABLE_SCOPES: readonly Scope[] = ["geocoding", "routing", "elevation", "static_maps"];

export type Role = "owner" | "admin" | "member";
export const ROLE_RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };

export type Caller =
  | {
      kind: "key";
      /** stable identity for scoping idempotency keys, rate limits, usage */
      id: string;
      keyId: number;
      orgId: number;
      scopes: Scope[];
      rateLimitPerMinute: number | null;
      monthlyQuota: number | null;
    }
  | {
      kind: "session";
      id: string;
      sessionId: number;
      userId: number;
      email: string;
      isAdmin: boolean;
      csrfToken: string;
      /** orgId -> role */
      memberships: Map<number, Role>;
    };

export type SessionCaller = Extract<Caller, { kind: "session" }>;
export type KeyCaller = Extract<Caller, { kind: "key" }>;

/** Who may see private assets: the orgs whose private styles/tilesets/sprites this request may read. */
export interface Viewer {
  privateOrgIds: ReadonlySet<number>;
  authenticated: boolean;
}

/** The viewer of every request without credentials: one shared value, nothing allocated per request. */
export const ANONYMOUS_VIEWER: Viewer = Object.freeze({ privateOrgIds: new Set<number>(), authenticated: false });

interface KeyRow {
  id: number;
  org_id: number;
  scopes: string;
  allowed_origins: string;
  expires_at: number | null;
  revoked_at: number | null;
  rate_limit_per_minute: number | null;
  monthly_quota: number | null;
}

interface CachedKey {
  fetchedAt: number;
  /** null when no key has this secret */
  caller: KeyCaller | null;
  expiresAt: number | null;
  revoked: boolean;
  origins: OriginPattern[];
}

interface CachedSession {
  fetchedAt: number;
  caller: SessionCaller;
  expiresAt: number;
  lastSeenAt: number;
  /** for admins: every org, so private assets of any org are readable */
  allOrgIds: number[] | null;
}

/** Parses one cookie out of a Cookie header without allocating a map. */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Result of the service-route checks: the caller plus what the scope macro must settle afterwards. */
export interface ServiceAuthorization {
  caller: Caller;
  reservation: Reservation | null;
  /** calls counted against the quota so far (a batch counts one per job) */
  units: number;
  /** tokens this call holds from the caller's bucket (a batch: one per job) */
  tokens: number;
  /** the bucket's size, tokens per minute */
  limit: number;
}

/** Rate-limit buckets and usage counters: this process's own, or a cluster worker's shared ones. */
export interface CallCounters {
  limiter: RateLimiter;
  usage: UsageService;
}

/** Built once by createServices: its key and session caches, rate limiter and usage counters are shared. */
export function createAuthService(ctx: AppContext, changes: ChangeBus, counters?: CallCounters) {
  const publicOrigin = new URL(ctx.config.publicUrl).origin;
  const keyByHash = ctx.sqlite.query<KeyRow, [string]>(
    "SELECT id, org_id, scopes, allowed_origins, expires_at, revoked_at, rate_limit_per_minute, monthly_quota FROM api_keys WHERE secret_hash = ?",
  );
  const sessionByHash = ctx.sqlite.query<
    { id: number; user_id: number; csrf_token: string; expires_at: number; last_seen_at: number; email: string; is_admin: number },
    [string]
  >(
    // A disabled account's sessions are deleted when it is disabled; the condition also covers a login
    // that was between its password check and its session when that happened.
    "SELECT s.id, s.user_id, s.csrf_token, s.expires_at, s.last_seen_at, u.email, u.is_admin FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ? AND u.disabled_at IS NULL",
  );
  const membershipsOf = ctx.sqlite.query<{ org_id: number; role: Role }, [number]>("SELECT org_id, role FROM memberships WHERE user_id = ?");
  const allOrgIds = ctx.sqlite.query<{ id: number }, []>("SELECT id FROM orgs");
  const touchSession = ctx.sqlite.query("UPDATE sessions SET last_seen_at = ? WHERE id = ?");
  const deleteSession = ctx.sqlite.query("DELETE FROM sessions WHERE id = ?");

  // Entries are refetched after KEY_CACHE_TTL_MS (fetchedAt) and dropped by the change bus.
  const keyCache = new Lru<CachedKey>({ maxEntries: MAX_CACHED });
  const sessionCache = new Lru<CachedSession>({ maxEntries: MAX_CACHED });
  const { limiter, usage } = counters ?? { limiter: createRateLimiter(), usage: createUsageService(ctx.sqlite, ctx.log) };
  const timer = setInterval(() => usage.flush(), FLUSH_INTERVAL_MS);
  (timer as { unref?: () => void }).unref?.();
  ctx.onShutdown(() => {
    clearInterval(timer);
    usage.flush(true);
  });
  // A key revoked or edited here or by another process (the CLI) is forgotten at once; the cache's TTL
  // stays as the backstop for expiry.
  changes.on((change) => {
    if (change.kind === "key") invalidateKey(change.keyId);
    else if (change.kind === "user") invalidateUser(change.userId);
  });

  function loadKey(secret: string, now: number): CachedKey {
    const row = keyByHash.get(hashSecret(secret));
    let entry: CachedKey;
    if (!row) entry = { fetchedAt: now, caller: null, expiresAt: null, revoked: true, origins: [] };
    else {
      const origins: OriginPattern[] = [];
      for (const o of JSON.parse(row.allowed_origins) as string[]) {
        try {
          origins.push(parseOriginPattern(o));
        } catch {
          // validated at creation; a pattern that no longer parses matches nothing
        }
      }
      entry = {
        fetchedAt: now,
        caller: {
          kind: "key",
          id: `key:${row.id}`,
          keyId: row.id,
          orgId: row.org_id,
          scopes: (JSON.parse(row.scopes) as string[]).filter(isScope),
          rateLimitPerMinute: row.rate_limit_per_minute,
          monthlyQuota: row.monthly_quota,
        },
        expiresAt: row.expires_at,
        revoked: row.revoked_at !== null,
        origins,
      };
    }
    keyCache.set(secret, entry);
    return entry;
  }

  /**
   * The key of this request, verified; null when it carries none. The X-API-Key header always counts;
   * with `acceptAccessToken` (routes whose URL must work on its own: an `<img src>`, a tile URL template,
   * as Mapbox's do) so does the `access_token` query parameter when the header is absent.
   */
  function keyFromRequest(request: Request, acceptAccessToken = false): KeyCaller | null {
    const header = request.headers.get("x-api-key");
    const raw = header ?? (acceptAccessToken ? accessTokenOf(request) : null);
    if (raw === null) return null;
    const now = Date.now();
    let entry = keyCache.get(raw);
    if (entry && now - entry.fetchedAt < KEY_CACHE_TTL_MS) {
      // As for sessions: hear other processes' key changes (a key revoked by another worker or the CLI)
      // before trusting the cached entry, so a revoked key is refused by the very next request.
      changes.poll();
      entry = keyCache.get(raw);
    }
    if (!entry || now - entry.fetchedAt >= KEY_CACHE_TTL_MS) {
      const secret = raw.trim();
      // Headers sent twice reach us joined with ", " (no key holds a comma).
      if (header !== null && header.includes(",")) throw new Unauthorized("The X-API-Key header is given more than once; send one key");
      if (!isWellFormedSecret(secret))
        throw new Unauthorized(`The ${header !== null ? "X-API-Key header" : "access_token query parameter"} does not hold a well-formed Mapstead API key (msk_...)`);
      entry = loadKey(secret, now);
      if (secret !== raw) keyCache.set(raw, entry);
    }
    if (!entry.caller || entry.revoked) throw new Unauthorized("The API key is invalid or has been deleted");
    if (entry.expiresAt !== null && now >= entry.expiresAt)
      throw new Unauthorized(`The API key expired at ${new Date(entry.expiresAt).toISOString()}; create a replacement key`, "KEY_EXPIRED");
    if (entry.origins.length) {
      const origin = requestOriginOf(request);
      if (!origin) throw new Forbidden("This key is restricted to browser origins and the request carried no usable Origin or Referer", "DOMAIN_NOT_ALLOWED");
      if (!originMatches(origin, entry.origins)) throw new Forbidden(`Origin ${describeOrigin(origin)} is not in this key's allowed origins`, "DOMAIN_NOT_ALLOWED");
    }
    usage.touch(entry.caller.keyId, now);
    return entry.caller;
  }

  function loadSession(token: string, now: number): CachedSession | null {
    const row = sessionByHash.get(hashToken(token));
    if (!row) return null;
    const isAdmin = row.is_admin === 1;
    const entry: CachedSession = {
      fetchedAt: now,
      expiresAt: row.expires_at,
      lastSeenAt: row.last_seen_at,
      allOrgIds: isAdmin ? allOrgIds.all().map((o) => o.id) : null,
      caller: {
        kind: "session",
        id: `user:${row.user_id}`,
        sessionId: row.id,
        userId: row.user_id,
        email: row.email,
        isAdmin,
        csrfToken: row.csrf_token,
        memberships: new Map(membershipsOf.all(row.user_id).map((m) => [m.org_id, m.role])),
      },
    };
    sessionCache.set(token, entry);
    return entry;
  }

  function liveSession(request: Request): CachedSession | null {
    const token = readCookie(request, SESSION_COOKIE);
    if (!token || token.length > 256) return null;
    const now = Date.now();
    let entry = sessionCache.get(token);
    if (entry && now - entry.fetchedAt < KEY_CACHE_TTL_MS) {
      // Hear other processes' user changes (an account disabled, deleted, demoted or signed out) before
      // trusting the cached entry: poll() drops that user's entries, and the database is asked again.
      changes.poll();
      entry = sessionCache.get(token);
    }
    if (!entry || now - entry.fetchedAt >= KEY_CACHE_TTL_MS) entry = loadSession(token, now) ?? undefined;
    if (!entry) {
      sessionCache.delete(token);
      return null;
    }
    if (now >= entry.expiresAt || now - entry.lastSeenAt >= SESSION_IDLE_MS) {
      deleteSession.run(entry.caller.sessionId);
      sessionCache.delete(token);
      return null;
    }
    if (now - entry.lastSeenAt >= SESSION_TOUCH_MS) {
      touchSession.run(now, entry.caller.sessionId);
      entry.lastSeenAt = now;
    }
    return entry;
  }

  /**
   * Unsafe methods authenticated by the session cookie must prove they come from the console: an Origin
   * equal to PUBLIC_URL's origin, or the session's CSRF token in X-CSRF-Token. Keys need neither: a
   * browser never attaches them on its own.
   */
  function checkCsrf(request: Request, session: SessionCaller): void {
    if (SAFE_METHODS.has(request.method)) return;
    const origin = request.headers.get("origin");
    if (origin !== null && origin === publicOrigin) return;
    const token = request.headers.get("x-csrf-token");
    if (token !== null && sameSecret(token, session.csrfToken)) return;
    if (origin !== null) throw crossSiteRefusal(origin, publicOrigin, true);
    throw new Forbidden("Cross-site request refused: send the X-CSRF-Token header from GET /api/v1/session with session-authenticated changes");
  }

  /** The console session of this request (CSRF-checked for unsafe methods), or null. */
  function sessionFromRequest(request: Request): SessionCaller | null {
    const entry = liveSession(request);
    if (!entry) return null;
    checkCsrf(request, entry.caller);
    return entry.caller;
  }

  function requireSession(request: Request): SessionCaller {
    const s = sessionFromRequest(request);
    if (!s) throw new Unauthorized("Log in to the console first (POST /api/v1/session)");
    return s;
  }

  /** Key or session with `scope`; no rate limit (see authorizeService for service routes). */
  function requireScope(request: Request, scope: Scope, acceptAccessToken = false): Caller {
    const key = keyFromRequest(request, acceptAccessToken);
    if (key) {
      if (!key.scopes.includes(scope)) throw new AppError(403, "INSUFFICIENT_SCOPE", `This API key lacks the '${scope}' scope`);
      return key;
    }
    const session = sessionFromRequest(request);
    if (session) return session;
    if (acceptAccessToken && accessTokenHidden(request))
      throw new Unauthorized("The access_token comes after a second '?' in the URL, so it was not read: a '?' in the path (inside an overlay's polyline, say) starts the query string early; URL-encode it as %3F");
    const where = acceptAccessToken ? "the X-API-Key header or the access_token query parameter" : "the X-API-Key header";
    throw new Unauthorized(`This route needs an API key with the '${scope}' scope in ${where}, or a console session`);
  }

  function rateHeaders(r: BucketResult, headers: Record<string, string | number>) {
    headers["x-ratelimit-limit"] = String(r.limit);
    headers["x-ratelimit-remaining"] = String(r.remaining);
    headers["x-ratelimit-reset"] = String(r.resetAt);
  }

  /**
   * A call refused by a limit (its quota, a batch that does not fit) hands its tokens back: had they
   * stayed taken, a client retrying as Retry-After says would keep its own bucket empty and never fit.
   */
  function giveBackTokens(a: ServiceAuthorization, scope: Scope, headers: Record<string, string | number>): void {
    if (a.tokens > 0) rateHeaders(limiter.giveBack(a.caller.id, scope, a.limit, a.tokens), headers);
    a.tokens = 0;
  }

  /**
   * Everything a service route needs before its handler runs: the caller, the per-caller token bucket
   * of this service group, and for keys the monthly quota (the call is counted now and refunded by
   * `settle` if it does not succeed). Rate-limit and quota headers are written into `headers`.
   */
  function authorizeService(request: Request, scope: Scope, headers: Record<string, string | number>, acceptAccessToken = false): ServiceAuthorization {
    const caller = requireScope(request, scope, acceptAccessToken);
    const limit = caller.kind === "key" ? (caller.rateLimitPerMinute ?? ctx.config.rateLimitPerMinute) : ctx.config.rateLimitPerMinute;
    const bucket = limiter.take(caller.id, scope, limit);
    rateHeaders(bucket, headers);
    if (!bucket.allowed)
      throw new TooManyRequests("RATE_LIMITED", `Rate limit of ${limit} requests per minute for '${scope}' exceeded; retry after ${bucket.retryAfterS} s`, bucket.retryAfterS, {
        "x-ratelimit-limit": String(bucket.limit),
        "x-ratelimit-remaining": "0",
        "x-ratelimit-reset": String(bucket.resetAt),
      });
    const a: ServiceAuthorization = { caller, reservation: null, units: 1, tokens: 1, limit };
    if (caller.kind !== "key" || !BILLABLE_SCOPES.includes(scope)) return a;
    const now = Date.now();
    const { state, reservation } = usage.reserve(caller.keyId, scope, caller.monthlyQuota, now);
    if (!state.allowed) giveBackTokens(a, scope, headers);
    quotaCheck(state, now, headers);
    a.reservation = reservation;
    return a;
  }

  /** Writes the quota headers; 429 QUOTA_EXCEEDED when the reservation was refused. */
  function quotaCheck(state: QuotaState, now: number, headers: Record<string, string | number>, units = 1): void {
    if (state.limit === null) return;
    const resetS = calendarOf(now).nextMonthS;
    const quotaHeaders = {
      "x-quota-limit": String(state.limit),
      "x-quota-used": String(Math.min(state.used, state.limit)),
      "x-quota-remaining": String(Math.max(0, state.limit - state.used)),
      "x-quota-reset": String(resetS),
    };
    Object.assign(headers, quotaHeaders);
    if (!state.allowed) {
      const what = units > 1 ? `has ${Math.max(0, state.limit - state.used)} of ${state.limit} calls left, and this call counts ${units}` : `of ${state.limit} calls is used up`;
      throw new TooManyRequests("QUOTA_EXCEEDED", `Monthly quota for this key ${what}; it resets ${new Date(resetS * 1000).toISOString()}`, resetS - now / 1000, quotaHeaders);
    }
  }

  /**
   * A call that does `units` units of work (a geocoding batch: one per job) counts that many against
   * the rate limit and the monthly quota. authorizeService counted one; here the call takes all its
   * tokens at once, or none: a call that does not fit either limit is refused with 429 holding no token
   * (its first one is handed back) and no quota (settle refunds its first unit with the failed status).
   */
  function chargeUnits(a: ServiceAuthorization, scope: Scope, units: number, headers: Record<string, string | number>): void {
    if (units <= a.tokens) return;
    const caller = a.caller;
    const limit = a.limit;
    // Back in the bucket first, then all `units` taken together: the bucket says whether the whole call fits.
    giveBackTokens(a, scope, headers);
    const bucket = limiter.take(caller.id, scope, limit, units);
    rateHeaders(bucket, headers);
    if (!bucket.allowed) {
      const retryAfterS = units > limit ? 60 : bucket.retryAfterS;
      const advice = units > limit ? `send at most ${limit} jobs per call` : `retry after ${retryAfterS} s`;
      throw new TooManyRequests("RATE_LIMITED", `This call counts ${units} requests (one per job) against the rate limit of ${limit} per minute for '${scope}'; ${advice}`, retryAfterS, {
        "x-ratelimit-limit": String(limit),
        "x-ratelimit-remaining": String(bucket.remaining),
        "x-ratelimit-reset": String(bucket.resetAt),
      });
    }
    a.tokens = units;
    const extra = units - a.units;
    if (!a.reservation || caller.kind !== "key" || extra <= 0) return;
    const now = Date.now();
    let state: QuotaState | null = null;
    for (let i = 0; i < extra; i++) {
      const r = usage.reserve(caller.keyId, scope, caller.monthlyQuota, now);
      state = r.state;
      if (!r.reservation) {
        for (let j = 0; j < i; j++) usage.refund(a.reservation);
        state = { ...r.state, used: r.state.used - i };
        break;
      }
    }
    if (state?.allowed) a.units = units;
    else giveBackTokens(a, scope, headers);
    if (state) quotaCheck(state, now, headers, units);
  }

  /** After the response: a call that failed, or was marked not billable, is not counted (any of its units). */
  function settle(a: ServiceAuthorization, status: number, billable: boolean): void {
    if (!a.reservation || (status < 400 && billable)) return;
    for (let i = 0; i < a.units; i++) usage.refund(a.reservation);
  }

  function viewerFromRequest(request: Request, acceptAccessToken = false): Viewer {
    let key: KeyCaller | null = null;
    try {
      key = keyFromRequest(request, acceptAccessToken);
    } catch {
      // An invalid, expired or origin-refused key reads like no key: public assets still load and
      // private ones answer the same 404 as missing ones.
      return ANONYMOUS_VIEWER;
    }
    if (key) return { privateOrgIds: key.scopes.includes("maps:read") ? new Set([key.orgId]) : new Set(), authenticated: true };
    const entry = liveSession(request);
    if (entry) return { privateOrgIds: new Set(entry.allOrgIds ?? entry.caller.memberships.keys()), authenticated: true };
    return ANONYMOUS_VIEWER;
  }

  /** Drop cached state of a changed or revoked key (told by the change bus). */
  function invalidateKey(keyId: number): void {
    keyCache.deleteWhere((_secret, entry) => entry.caller?.keyId === keyId);
    usage.forget(keyId);
  }

  /** Drop cached sessions of a user whose memberships, admin flag or sessions changed. */
  function invalidateUser(userId?: number): void {
    sessionCache.deleteWhere((_token, entry) => userId === undefined || entry.caller.userId === userId);
  }


  /**
   * Takes one render from the bucket of a caller without a key or session, by its address: drawing a
   * raster tile costs a render thread tens of milliseconds, and nothing else bounds what one address asks
   * for. 429 RATE_LIMITED when the bucket is empty (ANONYMOUS_RENDERS_PER_MINUTE; 0: no limit).
   */
  function anonymousRender(ip: string): void {
    const limit = ctx.config.anonymousRendersPerMinute;
    if (limit === 0) return;
    const bucket = limiter.take(`ip:${ip}`, "renders", limit);
    if (!bucket.allowed)
      throw new TooManyRequests(
        "RATE_LIMITED",
        `Callers without an API key may have ${limit} map tiles drawn per minute from one address; retry after ${bucket.retryAfterS} s, or send a key`,
        bucket.retryAfterS,
        { "x-ratelimit-limit": String(bucket.limit), "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(bucket.resetAt) },
      );
  }
  return {
    keyFromRequest,
    sessionFromRequest,
    requireSession,
    requireScope,
    authorizeService,
    chargeUnits,
    settle,
    viewerFromRequest,
    anonymousRender,
    invalidateUser,
    usage,
    publicOrigin,
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

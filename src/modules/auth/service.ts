// Resolving callers from X-API-Key headers and session cookies. Plain TypeScript, no Elysia.
import { createHash } from "node:crypto";
import type { AppContext } from "../../context";
import { AppError, Forbidden, Unauthorized } from "../../errors";
import { hashSecret, isWellFormedSecret } from "../keys/secret";
import type { Scope } from "../keys/scopes";

export const SESSION_COOKIE = "mapstead_session";

export type Role = "owner" | "admin" | "member";

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
  privateOrgIds: Set<number>;
  authenticated: boolean;
}

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

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Parses one cookie out of a Cookie header without allocating a map. */
export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Exact origins or https://*.example.com wildcards (any depth of subdomain, not the apex). */
export function originAllowed(origin: string, allowed: string[]): boolean {
  const o = origin.toLowerCase();
  for (const pattern of allowed) {
    const p = pattern.toLowerCase();
    if (p === o) return true;
    const star = p.indexOf("://*.");
    if (star > 0) {
      const scheme = p.slice(0, star + 3);
      const suffix = p.slice(star + 4); // ".example.com[:port]"
      if (o.startsWith(scheme) && o.endsWith(suffix) && o.length > scheme.length + suffix.length && !o.slice(scheme.length, o.length - suffix.length).includes("/"))
        return true;
    }
  }
  return false;
}

function requestOrigin(request: Request): string | null {
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") return origin;
  const referer = request.headers.get("referer");
  if (!referer) return null;
  try {
    return new URL(referer).origin;
  } catch {
    return null;
  }
}

export function createAuthService(ctx: AppContext) {
  const keyByHash = ctx.sqlite.query<KeyRow, [string]>(
    "SELECT id, org_id, scopes, allowed_origins, expires_at, revoked_at, rate_limit_per_minute, monthly_quota FROM api_keys WHERE secret_hash = ?",
  );
  const sessionByHash = ctx.sqlite.query<
    { id: number; user_id: number; csrf_token: string; expires_at: number; email: string; is_admin: number },
    [string]
  >("SELECT s.id, s.user_id, s.csrf_token, s.expires_at, u.email, u.is_admin FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?");
  const membershipsOf = ctx.sqlite.query<{ org_id: number; role: Role }, [number]>("SELECT org_id, role FROM memberships WHERE user_id = ?");

  function keyFromRequest(request: Request): KeyCaller | null {
    const secret = request.headers.get("x-api-key");
    if (secret === null) return null;
    if (!isWellFormedSecret(secret.trim())) throw new Unauthorized("The X-API-Key header does not hold a valid API key");
    const row = keyByHash.get(hashSecret(secret.trim()));
    if (!row || row.revoked_at !== null) throw new Unauthorized("The API key is invalid or has been deleted");
    if (row.expires_at !== null && Date.now() >= row.expires_at) throw new Unauthorized("The API key has expired; create a replacement key", "KEY_EXPIRED");
    const origins = JSON.parse(row.allowed_origins) as string[];
    if (origins.length) {
      const origin = requestOrigin(request);
      if (origin && !originAllowed(origin, origins))
        throw new Forbidden(`Origin ${origin} is not in this key's allowed origins`, "DOMAIN_NOT_ALLOWED");
    }
    return {
      kind: "key",
      id: `key:${row.id}`,
      keyId: row.id,
      orgId: row.org_id,
      scopes: JSON.parse(row.scopes) as Scope[],
      rateLimitPerMinute: row.rate_limit_per_minute,
      monthlyQuota: row.monthly_quota,
    };
  }

  function sessionFromRequest(request: Request): SessionCaller | null {
    const token = readCookie(request, SESSION_COOKIE);
    if (!token) return null;
    const row = sessionByHash.get(hashToken(token));
    if (!row || row.expires_at <= Date.now()) return null;
    return {
      kind: "session",
      id: `user:${row.user_id}`,
      sessionId: row.id,
      userId: row.user_id,
      email: row.email,
      isAdmin: row.is_admin === 1,
      csrfToken: row.csrf_token,
      memberships: new Map(membershipsOf.all(row.user_id).map((m) => [m.org_id, m.role])),
    };
  }

  function requireSession(request: Request): SessionCaller {
    const s = sessionFromRequest(request);
    if (!s) throw new Unauthorized("Log in to the console first (POST /api/v1/session)");
    return s;
  }

  function requireScope(request: Request, scope: Scope, _headers: Record<string, string>): Caller {
    const key = keyFromRequest(request);
    if (key) {
      if (!key.scopes.includes(scope)) throw new AppError(403, "INSUFFICIENT_SCOPE", `This API key lacks the '${scope}' scope`);
      return key;
    }
    const session = sessionFromRequest(request);
    if (session) return session;
    throw new Unauthorized(`This route needs an API key with the '${scope}' scope in the X-API-Key header, or a console session`);
  }

  function viewerFromRequest(request: Request): Viewer {
    const key = keyFromRequest(request);
    if (key) return { privateOrgIds: key.scopes.includes("maps:read") ? new Set([key.orgId]) : new Set(), authenticated: true };
    const session = sessionFromRequest(request);
    if (session) return { privateOrgIds: new Set(session.memberships.keys()), authenticated: true };
    return { privateOrgIds: new Set(), authenticated: false };
  }

  return { keyFromRequest, sessionFromRequest, requireSession, requireScope, viewerFromRequest };
}

export type AuthService = ReturnType<typeof createAuthService>;

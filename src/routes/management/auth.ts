// Console sessions, first-run setup and user accounts:
//   POST/GET/DELETE /api/v1/session, POST /api/v1/setup, GET /setup, and for instance admins
//   GET/POST /api/v1/users, PATCH/DELETE /api/v1/users/{id}, DELETE /api/v1/users/{id}/sessions.
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { Forbidden, TooManyRequests, Unauthorized } from "../../errors";
import type { AuthPlugin } from "../../http/auth";
import { clientIp } from "../../http/client-ip";
import { requestIdOf } from "../../http/request-context";
import { setupPage } from "../../web/setup-page";
import { createLoginBackoff } from "../../domain/accounts/throttle";
import { readCookie, SESSION_COOKIE, type Caller, type SessionCaller } from "../../domain/accounts/auth";
import { completeSetup, hasAdmin } from "../../domain/accounts/setup-token";
import { removeSetupTokenFile } from "../../domain/accounts/setup-token-file";
import { createLoginSession, createSession, createUser, endSession, SESSION_IDLE_MS, verifyLogin } from "../../domain/accounts/users";
import { deleteAccount, endAccountSessions, listAccounts, updateAccount, type Account, type Actor } from "../../domain/accounts/account-admin";
import { rejectUnknownFields } from "../../http/strict-body";
import { CreateUserBody, EndedSessions, LoginBody, SessionInfo, SetupBody, UpdatedUser, UpdateUserBody, UserListItem, UserOut, UserParams } from "./auth.model";
import { BadRequest } from "../../errors";
import { listOrgs } from "../../domain/orgs/service";
import { ErrorEnvelope } from "./orgs.model";
import { routeFactsOption, withRouteFacts } from "../../http/route-facts";
import { crossSiteRefusal } from "../../domain/accounts/cross-site";

export function authModule(services: Services, authPlugin: AuthPlugin) {
  const { ctx, auth, changes } = services;
  const backoff = createLoginBackoff(ctx.sqlite);
  const secure = ctx.config.publicUrl.startsWith("https:");
  const orgRows = ctx.sqlite.query<{ id: number; slug: string; name: string; role: "owner" | "admin" | "member" }, [number]>(
    "SELECT o.id, o.slug, o.name, m.role FROM memberships m JOIN orgs o ON o.id = m.org_id WHERE m.user_id = ? ORDER BY o.slug",
  );
  const sessionRow = ctx.sqlite.query<{ expires_at: number }, [number]>("SELECT expires_at FROM sessions WHERE id = ?");

  // Under a PUBLIC_URL path prefix only Mapstead's URLs get the cookie, not other apps on the same host.
  const cookiePath = ctx.config.basePath || "/";
  const cookie = (token: string, maxAgeS: number) =>
    `${SESSION_COOKIE}=${token}; Path=${cookiePath}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;

  function info(user: { id: number; email: string; isAdmin: boolean }, csrfToken: string, expiresAt: number) {
    const orgs = user.isAdmin
      ? (() => {
          const mine = new Map(orgRows.all(user.id).map((o) => [o.id, o.role]));
          return listOrgs(ctx.db).map((o) => ({ slug: o.slug, name: o.name, role: mine.get(o.id) ?? ("owner" as const) }));
        })()
      : orgRows.all(user.id).map((o) => ({ slug: o.slug, name: o.name, role: o.role }));
    return {
      user: { id: user.id, email: user.email, is_admin: user.isAdmin },
      csrf_token: csrfToken,
      expires_at: new Date(expiresAt).toISOString(),
      idle_timeout_s: SESSION_IDLE_MS / 1000,
      orgs,
    };
  }

  /** Refuses a cross-site login form post (login CSRF): a browser's Origin must be ours. */
  function sameOriginOrNone(request: Request) {
    const origin = request.headers.get("origin");
    if (origin !== null && origin !== auth.publicOrigin) throw crossSiteRefusal(origin, auth.publicOrigin);
  }

  const admin = (caller: Caller): SessionCaller => {
    if (caller.kind !== "session" || !caller.isAdmin) throw new Forbidden("Only instance admins can manage user accounts");
    return caller;
  };
  const actorOf = (s: SessionCaller, set: { headers: Record<string, unknown> }): Actor => ({
    kind: "session",
    userId: s.userId,
    email: s.email,
    sessionId: s.sessionId,
    requestId: requestIdOf(set),
  });
  const accountDeps = { sqlite: ctx.sqlite, changes: services.changes, log: ctx.log };
  const userId = (raw: string) => {
    if (!/^\d{1,15}$/.test(raw)) throw new BadRequest(`Invalid path parameter 'id': expected a user id, got '${raw.slice(0, 20)}'`);
    return Number(raw);
  };
  const iso = (t: number) => new Date(t).toISOString();
  const accountOut = (a: Account) => ({
    id: a.id,
    email: a.email,
    is_admin: a.isAdmin,
    disabled: a.disabledAt !== null,
    disabled_at: a.disabledAt === null ? null : iso(a.disabledAt),
    created_at: iso(a.createdAt),
  });
  const userErrors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope };

  return withRouteFacts({ cors: "none", group: "management" }, new Elysia({ name: "auth-routes" })
    .use(authPlugin)
    .use(routeFactsOption)
    .post(
      "/api/v1/session",
      async ({ body, request, server, set }) => {
        sameOriginOrNone(request);
        const ip = clientIp(request, server, ctx.config);
        const account = body.email.trim().toLowerCase();
        const requestId = requestIdOf(set);
        // Decided and counted as failed in one step, before the slow password check: parallel guesses count too.
        const attempt = backoff.attempt(ip, account);
        const wait = attempt.retryAfterS;
        if (wait > 0) {
          ctx.log.warn("login throttled", { email: account.slice(0, 320), ip, retry_after_s: wait, request_id: requestId });
          throw new TooManyRequests("TOO_MANY_ATTEMPTS", `Too many failed logins from this client; try again in ${wait} s`, wait);
        }
        const user = await verifyLogin(ctx.db, account, body.password);
        if (!user) {
          ctx.log.warn("login failed", { email: account.slice(0, 320), ip, request_id: requestId });
          throw new Unauthorized("Wrong email or password");
        }
        // Told only to whoever knows the password; the attempt stays counted as a failure.
        if (user.disabled) {
          ctx.log.warn("login refused: account disabled", { user_id: user.id, ip, request_id: requestId });
          throw new Forbidden("This account is disabled; an instance admin can enable it again");
        }
        // Null when an admin set a new password or disabled the account during the password check.
        const session = createLoginSession(ctx.db, user);
        if (!session) {
          ctx.log.warn("login failed: account changed during login", { user_id: user.id, ip, request_id: requestId });
          throw new Unauthorized("Wrong email or password");
        }
        attempt.succeeded();
        ctx.log.info("login", { user_id: user.id, ip, request_id: requestId });
        set.headers["set-cookie"] = cookie(session.token, Math.floor((session.expiresAt - Date.now()) / 1000));
        set.headers["cache-control"] = "no-store";
        return info(user, session.csrfToken, session.expiresAt);
      },
      {
        body: LoginBody,
        transform: rejectUnknownFields(LoginBody),
        response: { 200: SessionInfo, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope },
        detail: {
          tags: ["Accounts"],
          summary: "Log in to the console",
          description:
            "Sets an HttpOnly, SameSite=Lax session cookie (Secure when PUBLIC_URL is https) and returns the CSRF token for later unsafe requests. A disabled account with the right password gets 403 FORBIDDEN. Repeated failures slow down the client making them (429 TOO_MANY_ATTEMPTS with Retry-After, doubling per further failure), counted across all HTTP workers; a client with no failures of its own is never refused, so an attacked account stays open to its owner.",
        },
      },
    )
    .get(
      "/api/v1/session",
      ({ caller, set }) => {
        const s = caller as SessionCaller;
        set.headers["cache-control"] = "no-store";
        return info({ id: s.userId, email: s.email, isAdmin: s.isAdmin }, s.csrfToken, sessionRow.get(s.sessionId)?.expires_at ?? Date.now());
      },
      { session: true, response: { 200: SessionInfo, 401: ErrorEnvelope }, detail: { tags: ["Accounts"], summary: "Who am I: the session's user, organizations and CSRF token" } },
    )
    .delete(
      "/api/v1/session",
      ({ request, set }) => {
        const caller = auth.sessionFromRequest(request);
        if (caller) {
          changes.commit({ kind: "user", userId: (caller as SessionCaller).userId }, () => endSession(ctx.db, (caller as SessionCaller).sessionId));
          ctx.log.info("logout", { user_id: (caller as SessionCaller).userId, request_id: requestIdOf(set) });
        }
        if (caller || readCookie(request, SESSION_COOKIE)) set.headers["set-cookie"] = cookie("", 0);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), 403: ErrorEnvelope },
        detail: { tags: ["Accounts"], summary: "Log out (ends the session and clears the cookie; 204 even without a session)" },
      },
    )
    .post(
      "/api/v1/setup",
      async ({ body, request, server, set }) => {
        sameOriginOrNone(request);
        const ip = clientIp(request, server, ctx.config);
        const wait = backoff.retryAfterS(ip, null);
        if (wait > 0) throw new TooManyRequests("TOO_MANY_ATTEMPTS", `Too many wrong setup tokens; try again in ${wait} s`, wait);
        const user = await completeSetup(ctx.db, ctx.sqlite, body);
        if (!user) {
          backoff.attempt(ip, null);
          ctx.log.warn("setup token refused", { ip, request_id: requestIdOf(set) });
          throw new Unauthorized(
            "The setup token is wrong: use the one in DATA_DIR/setup-token (each start writes a new one), or run `mapstead admin create`",
          );
        }
        removeSetupTokenFile(ctx.config.dataDir);
        auth.invalidateUser();
        ctx.log.info("first admin created", { user_id: user.id, via: "web setup" });
        const session = createSession(ctx.db, user.id);
        set.headers["set-cookie"] = cookie(session.token, Math.floor((session.expiresAt - Date.now()) / 1000));
        set.headers["cache-control"] = "no-store";
        set.status = 201;
        return info(user, session.csrfToken, session.expiresAt);
      },
      {
        body: SetupBody,
        transform: rejectUnknownFields(SetupBody),
        response: { 201: SessionInfo, 400: ErrorEnvelope, 401: ErrorEnvelope, 409: ErrorEnvelope, 429: ErrorEnvelope },
        detail: {
          tags: ["Accounts"],
          summary: "First-run setup: create the first admin with the one-time setup token",
          description: "Works once: afterwards 409 CONFLICT. Logs the new admin in (same answer as POST /api/v1/session).",
        },
      },
    )
    .get(
      "/setup",
      ({ set }) => {
        set.headers["content-type"] = "text/html; charset=utf-8";
        set.headers["cache-control"] = "no-store";
        set.headers["content-security-policy"] = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'";
        return setupPage({ version: ctx.version, complete: hasAdmin(ctx.sqlite), publicUrl: ctx.config.publicUrl });
      },
      { facts: { group: "health" }, detail: { tags: ["Accounts"], summary: "First-run setup page (self-contained HTML)" } },
    )
    .get(
      "/api/v1/users",
      ({ caller }) => {
        admin(caller);
        return { users: listAccounts(ctx.sqlite).map(accountOut) };
      },
      { session: true, response: { 200: t.Object({ users: t.Array(UserListItem) }), 401: ErrorEnvelope, 403: ErrorEnvelope }, detail: { tags: ["Accounts"], summary: "List user accounts (instance admins)" } },
    )
    .post(
      "/api/v1/users",
      async ({ caller, body, set }) => {
        const by = admin(caller);
        const user = await createUser(ctx.db, { email: body.email, password: body.password, isAdmin: body.is_admin ?? false });
        ctx.log.info("user created", { user_id: user.id, by_user_id: by.userId, admin: user.isAdmin });
        set.status = 201;
        return { id: user.id, email: user.email, is_admin: user.isAdmin };
      },
      {
        session: true,
        body: CreateUserBody,
        transform: rejectUnknownFields(CreateUserBody),
        response: { 201: UserOut, 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 409: ErrorEnvelope },
        detail: { tags: ["Accounts"], summary: "Create a user account (instance admins); add it to organizations with POST /api/v1/orgs/{org}/members" },
      },
    )
    .patch(
      "/api/v1/users/:id",
      async ({ caller, params, body, set }) => {
        const by = admin(caller);
        const outcome = await updateAccount(accountDeps, actorOf(by, set), userId(params.id), { disabled: body.disabled, isAdmin: body.is_admin, password: body.password });
        return { user: accountOut(outcome.account), sessions_ended: outcome.sessionsEnded };
      },
      {
        session: true,
        params: UserParams,
        body: UpdateUserBody,
        transform: rejectUnknownFields(UpdateUserBody),
        response: { 200: UpdatedUser, ...userErrors, 409: ErrorEnvelope },
        detail: {
          tags: ["Accounts"],
          summary: "Disable or enable an account, grant or revoke instance admin, or set a new password (instance admins)",
          description:
            "The fields given are applied together, or none is. Disabling ends the account's sessions at once, in every worker, and refuses its logins (403); enabling lets it sign in again. A new password ends the account's sessions (yours other than this one, for your own) and does not change is_admin. 403 for disabling yourself; 409 CONFLICT for disabling or demoting the last instance admin who can sign in. Logged with who did what to whom, never the password.",
        },
      },
    )
    .delete(
      "/api/v1/users/:id",
      ({ caller, params, set }) => {
        const by = admin(caller);
        deleteAccount(accountDeps, actorOf(by, set), userId(params.id));
        set.status = 204;
      },
      {
        session: true,
        params: UserParams,
        response: { 204: t.Void(), ...userErrors, 409: ErrorEnvelope },
        detail: {
          tags: ["Accounts"],
          summary: "Delete an account with its memberships and sessions (instance admins)",
          description:
            "403 for your own account. 409 CONFLICT for the last instance admin who can sign in, and for the only owner of an organization (the message names the organizations: make someone else owner there first). API keys belong to organizations and stay.",
        },
      },
    )
    .delete(
      "/api/v1/users/:id/sessions",
      ({ caller, params, set }) => {
        const by = admin(caller);
        return { sessions_ended: endAccountSessions(accountDeps, actorOf(by, set), userId(params.id)).ended };
      },
      {
        session: true,
        params: UserParams,
        response: { 200: EndedSessions, ...userErrors },
        detail: {
          tags: ["Accounts"],
          summary: "Sign a user out everywhere: end all their sessions, at once in every worker (instance admins)",
          description: "For your own account, every session but the one making this request. The account can sign in again; disable it (PATCH) to keep it out.",
        },
      },
    ));
}

// Who is calling. Service modules declare what they need in route options and get a typed caller:
//   { scope: "geocoding" }  -> API key with that scope, or a console session      -> ctx.caller
//   { session: true }       -> console session only (management, admin work)      -> ctx.caller (session)
//   { viewer: true }        -> anonymous allowed; resolves who may see private assets -> ctx.viewer
// Key checks follow SPEC.md: missing/invalid/deleted 401 UNAUTHORIZED, expired 401 KEY_EXPIRED,
// origin mismatch 403 DOMAIN_NOT_ALLOWED, missing scope 403 INSUFFICIENT_SCOPE.
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { createAuthService, type Caller, type Viewer } from "../modules/auth/service";
import type { Scope } from "../modules/keys/scopes";

export type { Caller, Viewer };

export function authPlugin(ctx: AppContext) {
  const auth = createAuthService(ctx);
  return new Elysia({ name: "auth", seed: ctx })
    .decorate("auth", auth)
    .macro({
      scope: (scope: Scope) => ({
        resolve: ({ request, set }) => ({ caller: auth.requireScope(request, scope, set.headers as Record<string, string>) }),
      }),
      session: (required: boolean) => ({
        resolve: ({ request }) => ({ caller: required ? auth.requireSession(request) : (auth.sessionFromRequest(request) as Caller) }),
      }),
      viewer: (enabled: boolean) => ({
        resolve: ({ request }) => ({ viewer: enabled ? auth.viewerFromRequest(request) : ANONYMOUS }),
      }),
    });
}

const ANONYMOUS: Viewer = { privateOrgIds: new Set(), authenticated: false };

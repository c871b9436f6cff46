// Who may read a published style or its sprite. Anonymous requests (no key, no cookie) never touch the
// auth service, which keeps the hot path of public styles short; requests with credentials resolve to
// the orgs whose private styles they may see (an invalid key sees none: the same 404 as a missing style).
import type { AuthService, Viewer } from "../domain/accounts/auth";
import type { ResolvedStyle } from "../domain/styles/service";

export function viewerOf(auth: AuthService, request: Request): Viewer | null {
  return request.headers.has("x-api-key") || request.headers.has("cookie") ? auth.viewerFromRequest(request) : null;
}

export function mayRead(resolved: ResolvedStyle | null, viewer: Viewer | null): resolved is ResolvedStyle {
  return !!resolved && (resolved.visibility === "public" || !!viewer?.privateOrgIds.has(resolved.orgId));
}

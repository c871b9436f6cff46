// Seeds real rows through the real services, for tests that need an org, a key or a session.
import type { AppContext } from "../../src/context";
import { createOrg } from "../../src/domain/orgs/service";
import { createKey, type CreateKeyInput } from "../../src/domain/keys/service";
import { createSession, createUser } from "../../src/domain/accounts/users";
import { addMember } from "../../src/domain/orgs/service";
import { SESSION_COOKIE } from "../../src/domain/accounts/auth";
import type { Role } from "../../src/domain/accounts/auth";

export function seedOrg(ctx: AppContext, slug = "acme") {
  return createOrg(ctx.db, { slug, name: slug.toUpperCase() });
}

export function seedKey(ctx: AppContext, orgId: number, scopes: string[], extra: Partial<CreateKeyInput> = {}) {
  return createKey(ctx.db, { orgId, name: "test key", scopes, ...extra });
}

let userCounter = 0;

/** A user with a live session; `headers` carry the cookie and CSRF token for unsafe requests. */
export async function seedSession(ctx: AppContext, opts: { orgId?: number; role?: Role; isAdmin?: boolean; email?: string } = {}) {
  const email = opts.email ?? `user${++userCounter}-${Date.now()}@example.com`;
  const user = await createUser(ctx.db, { email, password: "correct horse battery", isAdmin: opts.isAdmin ?? false });
  if (opts.orgId !== undefined) addMember(ctx.db, opts.orgId, user.id, opts.role ?? "owner");
  const session = createSession(ctx.db, user.id);
  const cookie = `${SESSION_COOKIE}=${session.token}`;
  return {
    user,
    email,
    password: "correct horse battery",
    cookie,
    csrfToken: session.csrfToken,
    headers: { cookie, "x-csrf-token": session.csrfToken, origin: ctx.config.publicUrl } as Record<string, string>,
  };
}

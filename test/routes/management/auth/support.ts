// An app with a few probe routes that use the auth macros exactly as service modules do, so the macros
// are tested on their own, independent of geocoding or styles.
import { Elysia, t as tb } from "elysia";
import { makeTestApp, type TestApp } from "../../../support/app";
import { authPlugin } from "../../../../src/http/auth";
import { BadRequest, NotFound } from "../../../../src/errors";
import { orgBySlug } from "../../../../src/domain/orgs/service";
import type { AppContext } from "../../../../src/context";
import type { AuthService } from "../../../../src/domain/accounts/auth";
import type { Logger } from "../../../../src/log";

function probeRoutes(ctx: AppContext, auth: AuthService) {
  return new Elysia({ name: "auth-probes" })
    .use(authPlugin(auth))
    .get("/probe/geo", ({ caller }) => ({ kind: caller.kind, id: caller.id }), { scope: "geocoding" })
    .post("/probe/geo", ({ caller, body }) => ({ kind: caller.kind, q: body.q }), { scope: "geocoding", body: tb.Object({ q: tb.String() }) })
    .get("/probe/elevation", ({ caller }) => ({ kind: caller.kind }), { scope: "elevation" })
    .get("/probe/fail", (): { ok: boolean } => {
      throw new BadRequest("Invalid query parameter 'q'");
    }, { scope: "geocoding" })
    .get("/probe/replay", ({ billing }) => {
      billing.skip();
      return { replayed: true };
    }, { scope: "geocoding" })
    .post("/probe/tilesets", ({ caller }) => ({ kind: caller.kind }), { scope: "tilesets:write" })
    .post("/probe/session", ({ caller }) => ({ user: caller.id }), { session: true })
    .get("/probe/session", ({ caller }) => ({ user: caller.id }), { session: true })
    .get(
      "/probe/private/:org",
      ({ viewer, params }) => {
        const org = orgBySlug(ctx.db, params.org);
        // The same 404 whether the asset is missing or not readable by this viewer.
        if (!org || !viewer.privateOrgIds.has(org.id)) throw new NotFound("Style not found", "STYLE_NOT_FOUND");
        return { org: org.slug, authenticated: viewer.authenticated };
      },
      { viewer: true },
    )
    .get("/probe/public", ({ viewer }) => ({ authenticated: viewer.authenticated }), { viewer: true });
}

export async function authTestApp(env: Record<string, string> = {}, opts: { dataDir?: string; log?: Logger } = {}): Promise<TestApp> {
  const t = await makeTestApp(env, opts);
  t.app.use(probeRoutes(t.ctx, t.services.auth));
  return t;
}

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

export async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

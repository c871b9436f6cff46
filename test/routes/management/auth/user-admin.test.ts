// Instance admins locking accounts out over HTTP: disable/enable, delete, a new password, grant/revoke
// instance admin, end sessions; with their refusals (4xx naming the problem, nothing written) and the
// log lines they leave. Two apps on one DATA_DIR stand for two HTTP workers: a change made through one
// is refused by the other on its very next request, though that one had the session cached.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authTestApp, errorCode, json } from "./support";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { makeTestApp, type TestApp } from "../../../support/app";
import { createLogger } from "../../../../src/log";
import { addMember } from "../../../../src/domain/orgs/service";
import { createLoginSession, verifyLogin } from "../../../../src/domain/accounts/users";
import { updateAccount } from "../../../../src/domain/accounts/account-admin";

let t: TestApp;
let admin: Awaited<ReturnType<typeof seedSession>>;
const logLines: string[] = [];

const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
  t.fetch(path, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
const patch = (id: number, body: unknown, headers = admin.headers) => send("PATCH", `/api/v1/users/${id}`, headers, body);
const login = (email: string, password: string) => t.fetch("/api/v1/session", json({ email, password }));
const me = (cookie: string, app = t) => app.fetch("/api/v1/session", { headers: { cookie } });
const row = (id: number) => t.ctx.sqlite.query("SELECT email, is_admin, disabled_at FROM users WHERE id = ?").get(id) as { email: string; is_admin: number; disabled_at: number | null } | null;
const sessionsOf = (id: number) => (t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?").get(id) as { n: number }).n;
const logged = (msg: string) => logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);

beforeAll(async () => {
  t = await authTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (l) => logLines.push(l)) });
  admin = await seedSession(t.ctx, { isAdmin: true, email: "root@example.com" });
});
afterAll(() => t.close());

describe("disable and enable", () => {
  test("a disabled user's cached session is refused at once, and they cannot sign in; enabled, they can", async () => {
    const bob = await seedSession(t.ctx, { email: "bob@example.com" });
    // A request first, so the session sits in the auth cache.
    expect((await me(bob.cookie)).status).toBe(200);
    const res = await patch(bob.user.id, { disabled: true });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ user: { id: bob.user.id, email: "bob@example.com", is_admin: false, disabled: true }, sessions_ended: 1 });
    expect(Date.parse(body.user.disabled_at)).toBeGreaterThan(0);
    expect((await me(bob.cookie)).status).toBe(401);
    expect((await t.fetch("/probe/geo", { headers: { cookie: bob.cookie } })).status).toBe(401);
    expect(sessionsOf(bob.user.id)).toBe(0);

    const refused = await login(bob.email, bob.password);
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toEqual({ code: "FORBIDDEN", message: "This account is disabled; an instance admin can enable it again" });
    expect(refused.headers.get("set-cookie")).toBeNull();
    // A wrong password reads as before: nothing about the account is told.
    expect(await errorCode(await login(bob.email, "not the password"))).toBe("UNAUTHORIZED");
    expect(sessionsOf(bob.user.id)).toBe(0);

    const list = await (await t.fetch("/api/v1/users", { headers: admin.headers })).json();
    expect(list.users.find((u: { email: string }) => u.email === "bob@example.com")).toMatchObject({ disabled: true, disabled_at: body.user.disabled_at });

    const enabled = await patch(bob.user.id, { disabled: false });
    expect(enabled.status).toBe(200);
    expect((await enabled.json()).user).toMatchObject({ disabled: false, disabled_at: null });
    expect((await login(bob.email, bob.password)).status).toBe(200);

    const [disabledLine] = logged("user disabled").filter((l) => l.user_id === bob.user.id);
    expect(disabledLine).toMatchObject({ email: "bob@example.com", by_user_id: admin.user.id, by_email: "root@example.com", sessions_ended: 1 });
    expect(disabledLine.request_id).toEqual(expect.any(String));
    expect(logged("user enabled").some((l) => l.user_id === bob.user.id && l.by_user_id === admin.user.id)).toBe(true);
    expect(logged("login refused: account disabled").some((l) => l.user_id === bob.user.id)).toBe(true);
  });

  test("an admin cannot disable themselves (403); nothing changes", async () => {
    const res = await patch(admin.user.id, { disabled: true });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe("You cannot disable your own account; another instance admin can (or `mapstead users disable` on the machine)");
    expect(row(admin.user.id)!.disabled_at).toBeNull();
    expect((await me(admin.cookie)).status).toBe(200);
  });

  test("disabling another admin is fine while an admin who can sign in stays", async () => {
    const other = await seedSession(t.ctx, { isAdmin: true });
    const res = await patch(other.user.id, { disabled: true });
    expect(res.status).toBe(200);
    expect((await res.json()).user).toMatchObject({ is_admin: true, disabled: true });
    expect((await me(other.cookie)).status).toBe(401);
  });
});

describe("a new password", () => {
  test("replaces the old one, ends the user's sessions and leaves is_admin as it was", async () => {
    const carol = await seedSession(t.ctx, { email: "carol@example.com" });
    const second = await login(carol.email, carol.password);
    expect(second.status).toBe(200);
    expect(sessionsOf(carol.user.id)).toBe(2);
    const res = await patch(carol.user.id, { password: "a brand new password" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ user: { email: "carol@example.com", is_admin: false, disabled: false }, sessions_ended: 2 });
    expect(row(carol.user.id)!.is_admin).toBe(0);
    expect((await me(carol.cookie)).status).toBe(401);
    expect((await login(carol.email, carol.password)).status).toBe(401);
    const fresh = await login(carol.email, "a brand new password");
    expect(fresh.status).toBe(200);
    expect((await fresh.json()).user.is_admin).toBe(false);

    expect(logged("user password set").find((l) => l.user_id === carol.user.id)).toMatchObject({ by_user_id: admin.user.id, sessions_ended: 2 });
    expect(logLines.join("\n")).not.toContain("a brand new password");
  });

  test("an admin's own new password keeps the session that set it and ends the others", async () => {
    const self = await seedSession(t.ctx, { isAdmin: true });
    const elsewhere = await login(self.email, self.password);
    const elsewhereCookie = elsewhere.headers.get("set-cookie")!.split(";")[0]!;
    const res = await patch(self.user.id, { password: "my own new password" }, self.headers);
    expect(res.status).toBe(200);
    expect((await res.json()).sessions_ended).toBe(1);
    expect((await me(self.cookie)).status).toBe(200);
    expect((await me(elsewhereCookie)).status).toBe(401);
    expect(row(self.user.id)!.is_admin).toBe(1);
  });

  test("a password breaking the rule: 400 naming it, the old password still works", async () => {
    const dave = await seedSession(t.ctx);
    for (const [password, message] of [
      ["short", "Password must be at least 10 characters (this one has 5)"],
      [" ".repeat(12), "Password must not be only whitespace"],
    ] as const) {
      const res = await patch(dave.user.id, { password });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toEqual({ code: "BAD_REQUEST", message });
    }
    // Nothing else in the same request is applied either.
    expect((await patch(dave.user.id, { disabled: true, password: "short" })).status).toBe(400);
    expect(row(dave.user.id)!.disabled_at).toBeNull();
    expect((await me(dave.cookie)).status).toBe(200);
    expect((await login(dave.email, dave.password)).status).toBe(200);
  });

  test("a login whose password check was overtaken by a new password gets no session", async () => {
    const erin = await seedSession(t.ctx);
    const verified = await verifyLogin(t.ctx.db, erin.email, erin.password);
    expect(verified).not.toBeNull();
    await updateAccount({ sqlite: t.ctx.sqlite, changes: t.services.changes, log: t.ctx.log }, { kind: "cli", osUser: "test" }, erin.user.id, { password: "the replacement password" });
    expect(createLoginSession(t.ctx.db, verified!)).toBeNull();
    const again = await verifyLogin(t.ctx.db, erin.email, "the replacement password");
    expect(createLoginSession(t.ctx.db, again!)).not.toBeNull();
  });
});

describe("instance admin", () => {
  test("granted and revoked, effective on the user's next request", async () => {
    const frank = await seedSession(t.ctx);
    expect((await t.fetch("/api/v1/users", { headers: frank.headers })).status).toBe(403);
    const grant = await patch(frank.user.id, { is_admin: true });
    expect(grant.status).toBe(200);
    expect((await grant.json()).user.is_admin).toBe(true);
    expect((await t.fetch("/api/v1/users", { headers: frank.headers })).status).toBe(200);
    const revoke = await patch(frank.user.id, { is_admin: false });
    expect((await revoke.json()).user.is_admin).toBe(false);
    const refused = await t.fetch("/api/v1/users", { headers: frank.headers });
    expect(refused.status).toBe(403);
    expect(await errorCode(refused)).toBe("FORBIDDEN");
    expect(logged("user granted instance admin").some((l) => l.user_id === frank.user.id)).toBe(true);
    expect(logged("user's instance admin revoked").some((l) => l.user_id === frank.user.id)).toBe(true);
  });
});

describe("ending sessions", () => {
  test("every session of the user ends at once; the account can sign in again", async () => {
    const gina = await seedSession(t.ctx);
    await login(gina.email, gina.password);
    expect((await me(gina.cookie)).status).toBe(200);
    const res = await send("DELETE", `/api/v1/users/${gina.user.id}/sessions`, admin.headers);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sessions_ended: 2 });
    expect((await me(gina.cookie)).status).toBe(401);
    expect(sessionsOf(gina.user.id)).toBe(0);
    expect((await login(gina.email, gina.password)).status).toBe(200);
    expect(logged("user sessions ended").find((l) => l.user_id === gina.user.id)).toMatchObject({ sessions_ended: 2, by_user_id: admin.user.id });
  });

  test("for yourself, every session but this one", async () => {
    const self = await seedSession(t.ctx, { isAdmin: true });
    await login(self.email, self.password);
    const res = await send("DELETE", `/api/v1/users/${self.user.id}/sessions`, self.headers);
    expect(await res.json()).toEqual({ sessions_ended: 1 });
    expect((await me(self.cookie)).status).toBe(200);
  });
});

describe("delete", () => {
  test("refused for the only owner of organizations, naming them; allowed once each has another owner", async () => {
    const hank = await seedSession(t.ctx, { email: "hank@example.com" });
    const acme = seedOrg(t.ctx, "acme");
    const parks = seedOrg(t.ctx, "parks");
    const shared = seedOrg(t.ctx, "shared");
    addMember(t.ctx.db, acme.id, hank.user.id, "owner");
    addMember(t.ctx.db, parks.id, hank.user.id, "owner");
    addMember(t.ctx.db, shared.id, hank.user.id, "owner");
    addMember(t.ctx.db, shared.id, admin.user.id, "owner");
    const key = seedKey(t.ctx, acme.id, ["geocoding"]);

    const refused = await send("DELETE", `/api/v1/users/${hank.user.id}`, admin.headers);
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toEqual({
      code: "CONFLICT",
      message: "Cannot delete hank@example.com: it is the only owner of organizations acme, parks; make someone else owner there first",
    });
    expect(row(hank.user.id)).not.toBeNull();
    expect((await me(hank.cookie)).status).toBe(200);

    addMember(t.ctx.db, acme.id, admin.user.id, "owner");
    const one = await send("DELETE", `/api/v1/users/${hank.user.id}`, admin.headers);
    expect((await one.json()).error.message).toBe("Cannot delete hank@example.com: it is the only owner of organization parks; make someone else owner there first");

    addMember(t.ctx.db, parks.id, admin.user.id, "owner");
    const res = await send("DELETE", `/api/v1/users/${hank.user.id}`, admin.headers);
    expect(res.status).toBe(204);
    expect(row(hank.user.id)).toBeNull();
    expect((await me(hank.cookie)).status).toBe(401);
    expect((await login(hank.email, hank.password)).status).toBe(401);
    expect(t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM memberships WHERE user_id = ?").get(hank.user.id)).toEqual({ n: 0 });
    // The organizations and their keys stay.
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": key.secret } })).status).toBe(200);
    const list = await (await t.fetch("/api/v1/users", { headers: admin.headers })).json();
    expect(list.users.some((u: { email: string }) => u.email === "hank@example.com")).toBe(false);
    expect(logged("user deleted").find((l) => l.user_id === hank.user.id)).toMatchObject({ email: "hank@example.com", by_user_id: admin.user.id });
    // Gone is gone: a second delete is 404.
    expect((await send("DELETE", `/api/v1/users/${hank.user.id}`, admin.headers)).status).toBe(404);
  });

  test("an admin cannot delete their own account (403)", async () => {
    const res = await send("DELETE", `/api/v1/users/${admin.user.id}`, admin.headers);
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe("You cannot delete your own account; another instance admin can (or `mapstead users delete` on the machine)");
    expect(row(admin.user.id)).not.toBeNull();
  });
});

describe("refusals", () => {
  test("only instance admin sessions, with CSRF; keys never", async () => {
    const ivy = await seedSession(t.ctx);
    const member = await seedSession(t.ctx);
    const org = seedOrg(t.ctx, "keys-only");
    const key = seedKey(t.ctx, org.id, ["geocoding", "tilesets:write", "styles:write", "maps:read"]);
    for (const [method, path, body] of [
      ["PATCH", `/api/v1/users/${ivy.user.id}`, { disabled: true }],
      ["DELETE", `/api/v1/users/${ivy.user.id}`, undefined],
      ["DELETE", `/api/v1/users/${ivy.user.id}/sessions`, undefined],
    ] as const) {
      const notAdmin = await send(method, path, member.headers, body);
      expect(notAdmin.status).toBe(403);
      expect((await notAdmin.json()).error.message).toBe("Only instance admins can manage user accounts");
      expect((await send(method, path, {}, body)).status).toBe(401);
      expect((await send(method, path, { "x-api-key": key.secret }, body)).status).toBe(401);
      // An admin's cookie from another site, without the CSRF token.
      expect((await send(method, path, { cookie: admin.cookie, origin: "https://evil.example" }, body)).status).toBe(403);
    }
    expect(row(ivy.user.id)!.disabled_at).toBeNull();
    expect((await me(ivy.cookie)).status).toBe(200);
  });

  test("bad ids, unknown users and bad bodies: 4xx naming the problem, nothing written", async () => {
    const jack = await seedSession(t.ctx);
    const bad = await send("PATCH", "/api/v1/users/abc", admin.headers, { disabled: true });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toBe("Invalid path parameter 'id': expected a user id, got 'abc'");
    const missing = await patch(999999, { disabled: true });
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toBe("No user account with id 999999");
    expect((await send("DELETE", "/api/v1/users/999999/sessions", admin.headers)).status).toBe(404);
    const empty = await patch(jack.user.id, {});
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.message).toBe("Nothing to change: give disabled, is_admin or password");
    for (const body of [{ disabled: "yes" }, { is_admin: 1 }, { password: 12345678901 }, { disabled: true, role: "owner" }, { email: "x@example.com" }]) {
      const res = await patch(jack.user.id, body);
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe("BAD_REQUEST");
    }
    expect(row(jack.user.id)).toMatchObject({ is_admin: 0, disabled_at: null });
  });
});

describe("the last instance admin", () => {
  test("is never demoted: 409, and the admin keeps their rights", async () => {
    const lone = await makeTestApp();
    try {
      const only = await seedSession(lone.ctx, { isAdmin: true, email: "only@example.com" });
      const res = await lone.fetch(`/api/v1/users/${only.user.id}`, { method: "PATCH", headers: { ...only.headers, "content-type": "application/json" }, body: JSON.stringify({ is_admin: false }) });
      expect(res.status).toBe(409);
      expect((await res.json()).error.message).toBe("Cannot revoke instance admin from only@example.com: it is the last instance admin who can sign in; make another account instance admin first");
      expect((await lone.fetch("/api/v1/users", { headers: only.headers })).status).toBe(200);
      // A disabled admin does not count: with only a disabled one beside, the last active one stays.
      const other = await seedSession(lone.ctx, { isAdmin: true });
      const disabled = await lone.fetch(`/api/v1/users/${other.user.id}`, { method: "PATCH", headers: { ...only.headers, "content-type": "application/json" }, body: JSON.stringify({ disabled: true }) });
      expect(disabled.status).toBe(200);
      expect((await lone.fetch(`/api/v1/users/${only.user.id}`, { method: "PATCH", headers: { ...only.headers, "content-type": "application/json" }, body: JSON.stringify({ is_admin: false }) })).status).toBe(409);
    } finally {
      await lone.close();
    }
  });
});

describe("two workers on one DATA_DIR", () => {
  test("a change made through one worker is refused by the other on its next request, cached session or not", async () => {
    const other = await makeTestApp({}, { dataDir: t.dataDir });
    try {
      const kim = await seedSession(t.ctx, { email: "kim@example.com" });
      const lee = await seedSession(t.ctx, { email: "lee@example.com" });
      const mo = await seedSession(t.ctx, { isAdmin: true });
      // Each session cached by the other worker.
      for (const s of [kim, lee, mo]) expect((await me(s.cookie, other)).status).toBe(200);
      expect((await other.fetch("/api/v1/users", { headers: mo.headers })).status).toBe(200);

      expect((await patch(kim.user.id, { disabled: true })).status).toBe(200);
      expect((await me(kim.cookie, other)).status).toBe(401);
      expect((await send("DELETE", `/api/v1/users/${lee.user.id}/sessions`, admin.headers)).status).toBe(200);
      expect((await me(lee.cookie, other)).status).toBe(401);
      expect((await patch(mo.user.id, { is_admin: false })).status).toBe(200);
      expect((await other.fetch("/api/v1/users", { headers: mo.headers })).status).toBe(403);
      // The other worker refuses the disabled user's login too.
      expect((await other.fetch("/api/v1/session", json({ email: kim.email, password: kim.password }))).status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

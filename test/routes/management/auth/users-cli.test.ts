// `mapstead users disable|enable|delete|set-password|grant-admin|revoke-admin|end-sessions` and
// `admin create --reset-password`, run as processes on the DATA_DIR of a running app: the app refuses
// the user's cached session on its very next request, and each change leaves a log line on stderr.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { authTestApp, json } from "./support";
import { seedOrg, seedSession } from "../../../support/seed";
import type { TestApp } from "../../../support/app";
import { addMember } from "../../../../src/domain/orgs/service";
import { userName } from "../../../../src/os-user";

// $USER says "operator" (below), but the log names the account running the command, which $USER cannot change.
const ACCOUNT = userName(process.getuid!()) ?? `uid ${process.getuid!()}`;
const MAIN = join(import.meta.dir, "../../../../src/main.ts");
let t: TestApp;
let root: Awaited<ReturnType<typeof seedSession>>;

async function cli(args: string[], stdin?: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: "info", NO_COLOR: "1", USER: "operator", SUDO_USER: "", ...env },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}
const logLines = (err: string) => err.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
const me = (cookie: string) => t.fetch("/api/v1/session", { headers: { cookie } });
const login = (email: string, password: string) => t.fetch("/api/v1/session", json({ email, password }));
const row = (email: string) => t.ctx.sqlite.query("SELECT id, is_admin, disabled_at FROM users WHERE email = ?").get(email) as { id: number; is_admin: number; disabled_at: number | null } | null;

beforeAll(async () => {
  t = await authTestApp();
  root = await seedSession(t.ctx, { isAdmin: true, email: "root@example.com" });
});
afterAll(() => t.close());

describe("mapstead users (account changes)", () => {
  test("--help names every subcommand", async () => {
    const r = await cli(["users", "--help"]);
    expect(r.code).toBe(0);
    for (const w of ["disable", "enable", "delete", "set-password", "grant-admin", "revoke-admin", "end-sessions", "--password-stdin"]) expect(r.out).toContain(w);
  });

  test("disable: the running app refuses the cached session at once and the login; list shows it; enable undoes it", async () => {
    const ann = await seedSession(t.ctx, { email: "ann@example.com" });
    expect((await me(ann.cookie)).status).toBe(200);
    const r = await cli(["users", "disable", "--email", "ANN@example.com"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Disabled ann@example.com: it cannot sign in, and 1 session ended");
    expect((await me(ann.cookie)).status).toBe(401);
    expect((await login(ann.email, ann.password)).status).toBe(403);
    const [line] = logLines(r.err);
    expect(line).toMatchObject({ level: "info", msg: "user disabled", user_id: ann.user.id, email: "ann@example.com", by: "cli", os_user: ACCOUNT, sessions_ended: 1 });

    const list = await cli(["users", "list"]);
    expect(list.out).toMatch(/ann@example\.com {2}disabled/);
    const listed = JSON.parse((await cli(["users", "list", "--json"])).out);
    expect(listed.find((u: { email: string }) => u.email === "ann@example.com")).toMatchObject({ is_admin: false, disabled: true, disabled_at: expect.any(String) });

    expect((await cli(["users", "disable", "--email", "ann@example.com"])).out).toContain("ann@example.com is already disabled");
    const enable = await cli(["users", "enable", "--email", "ann@example.com"]);
    expect(enable.code).toBe(0);
    expect(enable.out).toContain("Enabled ann@example.com");
    expect((await login(ann.email, ann.password)).status).toBe(200);
  }, 60_000);

  test("set-password: new password from stdin, sessions ended, admin status unchanged, no password in the output", async () => {
    const ben = await seedSession(t.ctx, { email: "ben@example.com" });
    expect((await me(ben.cookie)).status).toBe(200);
    const r = await cli(["users", "set-password", "--email", "ben@example.com", "--password-stdin"], "ben's new password\n");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Set a new password for ben@example.com; 1 session ended (still not an instance admin)");
    expect(r.out + r.err).not.toContain("ben's new password");
    expect(logLines(r.err)[0]).toMatchObject({ msg: "user password set", email: "ben@example.com", by: "cli" });
    expect((await me(ben.cookie)).status).toBe(401);
    expect((await login(ben.email, ben.password)).status).toBe(401);
    expect((await login(ben.email, "ben's new password")).status).toBe(200);
    expect(row("ben@example.com")!.is_admin).toBe(0);

    const short = await cli(["users", "set-password", "--email", "ben@example.com", "--password-stdin"], "short\n");
    expect(short.code).toBe(1);
    expect(short.err).toContain("Password must be at least 10 characters");
    expect((await login(ben.email, "ben's new password")).status).toBe(200);
  }, 60_000);

  test("grant-admin and revoke-admin; the app sees each at once", async () => {
    const cy = await seedSession(t.ctx, { email: "cy@example.com" });
    expect((await t.fetch("/api/v1/users", { headers: cy.headers })).status).toBe(403);
    const grant = await cli(["users", "grant-admin", "--email", "cy@example.com"]);
    expect(grant.out).toContain("cy@example.com is now an instance admin");
    expect((await t.fetch("/api/v1/users", { headers: cy.headers })).status).toBe(200);
    const revoke = await cli(["users", "revoke-admin", "--email", "cy@example.com"]);
    expect(revoke.out).toContain("cy@example.com is no longer an instance admin");
    expect(logLines(revoke.err)[0]).toMatchObject({ msg: "user's instance admin revoked", by: "cli" });
    expect((await t.fetch("/api/v1/users", { headers: cy.headers })).status).toBe(403);
  }, 60_000);

  test("end-sessions signs the user out everywhere", async () => {
    const di = await seedSession(t.ctx, { email: "di@example.com" });
    await login(di.email, di.password);
    expect((await me(di.cookie)).status).toBe(200);
    const r = await cli(["users", "end-sessions", "--email", "di@example.com"]);
    expect(r.out).toContain("Ended 2 sessions of di@example.com");
    expect((await me(di.cookie)).status).toBe(401);
    expect((await login(di.email, di.password)).status).toBe(200);
  }, 60_000);

  test("delete: refused for an organization's only owner (named); then deleted with its sessions", async () => {
    const ed = await seedSession(t.ctx, { email: "ed@example.com" });
    const org = seedOrg(t.ctx, "eds-maps");
    addMember(t.ctx.db, org.id, ed.user.id, "owner");
    const refused = await cli(["users", "delete", "--email", "ed@example.com"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("Cannot delete ed@example.com: it is the only owner of organization eds-maps; make someone else owner there first");
    expect(row("ed@example.com")).not.toBeNull();
    addMember(t.ctx.db, org.id, root.user.id, "owner");
    expect((await me(ed.cookie)).status).toBe(200);
    const r = await cli(["users", "delete", "--email", "ed@example.com"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Deleted ed@example.com (id ${ed.user.id})`);
    expect(row("ed@example.com")).toBeNull();
    expect((await me(ed.cookie)).status).toBe(401);
  }, 60_000);

  test("the last instance admin who can sign in is never disabled, demoted or deleted", async () => {
    for (const action of ["disable", "revoke-admin", "delete"]) {
      const r = await cli(["users", action, "--email", "root@example.com"]);
      expect(r.code).toBe(1);
      expect(r.err).toContain("root@example.com: it is the last instance admin who can sign in; make another account instance admin first");
    }
    expect(row("root@example.com")).toMatchObject({ is_admin: 1, disabled_at: null });
    expect((await me(root.cookie)).status).toBe(200);
  }, 60_000);

  test("mistakes: an unknown email exits 1 naming it, a bad command line exits 2", async () => {
    const unknown = await cli(["users", "disable", "--email", "ghost@example.com"]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("No user account with email ghost@example.com");
    expect((await cli(["users", "disable"])).err).toContain("--email is required");
    for (const args of [["users", "disable"], ["users", "enable", "--email", "a@example.com", "--admin"], ["users", "delete", "--email", "a@example.com", "--password-stdin"], ["users", "lock", "--email", "a@example.com"]]) {
      expect((await cli(args)).code).toBe(2);
    }
  }, 60_000);
});

describe("mapstead admin create --reset-password", () => {
  test("never makes a member an admin: refused, nothing changed", async () => {
    const fay = await seedSession(t.ctx, { email: "fay@example.com" });
    const r = await cli(["admin", "create", "--email", "fay@example.com", "--password-stdin", "--reset-password"], "an attempted password\n");
    expect(r.code).toBe(1);
    expect(r.err).toContain("fay@example.com already has an account that is not an instance admin; nothing was changed");
    expect(r.err).toContain("mapstead users set-password --email fay@example.com");
    expect(r.err).toContain("mapstead users grant-admin --email fay@example.com");
    expect(row("fay@example.com")!.is_admin).toBe(0);
    expect((await login(fay.email, fay.password)).status).toBe(200);
    expect((await me(fay.cookie)).status).toBe(200);
  }, 60_000);

  test("recovers a disabled admin: new password, enabled again, old sessions ended", async () => {
    const gus = await seedSession(t.ctx, { email: "gus@example.com", isAdmin: true });
    await t.fetch(`/api/v1/users/${gus.user.id}`, { method: "PATCH", headers: { ...root.headers, "content-type": "application/json" }, body: JSON.stringify({ disabled: true }) });
    expect(row("gus@example.com")!.disabled_at).not.toBeNull();
    const r = await cli(["admin", "create", "--email", "gus@example.com", "--password-stdin", "--reset-password"], "gus's recovered password\n");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Instance admin gus@example.com has the new password (its old sessions were ended); it was disabled and is enabled again");
    expect(row("gus@example.com")).toMatchObject({ is_admin: 1, disabled_at: null });
    expect((await login(gus.email, "gus's recovered password")).status).toBe(200);
    expect(r.err).not.toContain("recovered password");
  }, 60_000);
});

// The air-gapped setup path: `mapstead admin|users|orgs|keys` on the data directory of a running app.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { authTestApp } from "./support";
import { tempDir } from "../../../support/temp";
import type { TestApp } from "../../../support/app";
import { issueSetupToken } from "../../../../src/domain/accounts/setup-token";

const MAIN = join(import.meta.dir, "../../../../src/main.ts");
let t: TestApp;

async function cli(args: string[], stdin?: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bun", MAIN, ...args], {
    env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: "error", NO_COLOR: "1", ...env },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}

beforeAll(async () => {
  t = await authTestApp();
  issueSetupToken(t.ctx.sqlite);
});
afterAll(() => t.close());

describe("mapstead admin|users|orgs|keys", () => {
  test("every command has --help naming its subcommands", async () => {
    for (const [cmd, words] of [["admin", ["create", "--password-stdin"]], ["users", ["create", "list"]], ["orgs", ["create", "list"]], ["keys", ["create", "list", "revoke", "--scopes"]]] as const) {
      const r = await cli([cmd, "--help"]);
      expect(r.code).toBe(0);
      for (const w of words) expect(r.out).toContain(w);
    }
  });

  test("admin create from stdin: the admin can log in over HTTP and web setup is disabled", async () => {
    const r = await cli(["admin", "create", "--email", "Root@Example.com", "--password-stdin"], "a long admin password\n");
    expect(r.code).toBe(0);
    expect(r.out).toContain("root@example.com");
    expect(r.out + r.err).not.toContain("a long admin password");
    const login = await t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "root@example.com", password: "a long admin password" }) });
    expect(login.status).toBe(200);
    expect((await login.json()).user.is_admin).toBe(true);
    expect(await (await t.fetch("/setup")).text()).toContain("Setup is complete");
  });

  test("a command that finds no database in DATA_DIR says it created one, so a mistyped DATA_DIR shows", async () => {
    const dir = join(tempDir("mapstead-cli-fresh-"), "typo");
    const first = await cli(["orgs", "create", "--slug", "acme"], undefined, { DATA_DIR: dir });
    expect(first.code).toBe(0);
    expect(first.err.trim()).toBe(`mapstead: created a new database in DATA_DIR ${dir} (none was there; if the server uses another DATA_DIR, pass that one)`);
    const again = await cli(["orgs", "list"], undefined, { DATA_DIR: dir });
    expect(again.err).toBe("");
    expect(again.out).toContain("acme");
  });

  test("a command that only reads refuses a DATA_DIR with no database and leaves none behind", async () => {
    const dir = join(tempDir("mapstead-cli-typo-"), "typo");
    const reads = [["orgs", "list"], ["users", "list"], ["keys", "list", "--org", "acme"], ["fonts", "list"], ["gazetteer", "status"], ["styles", "list", "--org", "acme"], ["tilesets", "list", "--org", "acme"], ["styles", "export", "--org", "acme", "--slug", "city"]];
    for (const args of reads) {
      const r = await cli(args, undefined, { DATA_DIR: dir });
      expect(r.code).toBe(1);
      expect(r.err.trim()).toBe(`mapstead: DATA_DIR ${dir} has no Mapstead database (mapstead.db), so there is nothing to show; pass the DATA_DIR the server uses (--data-dir DIR, or DATA_DIR=DIR)`);
      expect(existsSync(join(dir, "mapstead.db"))).toBe(false);
    }
  });

  test("admin create without PUBLIC_URL does not pretend to know the server's address", async () => {
    const dir = join(tempDir("mapstead-cli-url-"), "data");
    const env = { DATA_DIR: dir, PUBLIC_URL: "", PORT: "" };
    const r = await cli(["admin", "create", "--email", "a@example.com", "--password-stdin"], "a long admin password\n", env);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Log in at the server's /console (http://localhost:8080/console if it runs on this machine with the same PORT)");
    const withUrl = await cli(["admin", "create", "--email", "b@example.com", "--password-stdin"], "a long admin password\n", { ...env, PUBLIC_URL: "https://maps.example.com" });
    expect(withUrl.out).toContain("Log in at https://maps.example.com/console");
  });

  test("admin create refuses a short password and a missing email, writing nothing", async () => {
    expect((await cli(["admin", "create", "--email", "x@example.com", "--password-stdin"], "short\n")).code).toBe(1);
    expect((await cli(["admin", "create", "--password-stdin"], "long enough password\n")).code).toBe(2);
    const r = await cli(["admin", "create", "--email", "x@example.com"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--password-stdin");
    expect(t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM users WHERE email = 'x@example.com'").get()).toEqual({ n: 0 });
  });

  test("users, orgs and keys: create, list, use, revoke", async () => {
    expect((await cli(["users", "create", "--email", "dev@example.com", "--password-stdin"], "developer password\n")).code).toBe(0);
    const dup = await cli(["users", "create", "--email", "dev@example.com", "--password-stdin"], "developer password\n");
    expect(dup.code).toBe(1);
    expect(dup.err).toContain("already exists");
    const users = JSON.parse((await cli(["users", "list", "--json"])).out);
    expect(users.map((u: { email: string }) => u.email)).toEqual(["root@example.com", "dev@example.com"]);

    expect((await cli(["orgs", "create", "--slug", "acme", "--name", "Acme", "--owner", "dev@example.com"])).code).toBe(0);
    const bad = await cli(["orgs", "create", "--slug", "Not Valid"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("Invalid slug");
    expect((await cli(["orgs", "create", "--slug", "acme"])).code).toBe(1);
    const orgs = JSON.parse((await cli(["orgs", "list", "--json"])).out);
    expect(orgs).toEqual([{ slug: "acme", name: "Acme", created_at: expect.any(String), members: [{ email: "dev@example.com", role: "owner" }] }]);

    const created = await cli(["keys", "create", "--org", "acme", "--name", "server", "--scopes", "geocoding,elevation", "--json"]);
    expect(created.code).toBe(0);
    const { id, secret, prefix } = JSON.parse(created.out);
    expect(secret).toMatch(/^msk_/);
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": secret } })).status).toBe(200);

    const listed = await cli(["keys", "list", "--org", "acme"]);
    expect(listed.out).toContain(prefix);
    expect(listed.out).not.toContain(secret);
    // The text lists say what JSON says of a key's limits: the default rate applies, no quota.
    expect(listed.out).toMatch(/rate limit: the default \(\d+\)\/min; monthly quota: none;/);

    const revoked = await cli(["keys", "revoke", "--org", "acme", String(id)]);
    expect(revoked.code).toBe(0);
    const since = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - since < 6_000) {
      status = (await t.fetch("/probe/geo", { headers: { "x-api-key": secret } })).status;
      if (status === 200) await Bun.sleep(200);
    }
    expect(status).toBe(401);
    expect(Date.now() - since).toBeLessThanOrEqual(5_000);
    const all = JSON.parse((await cli(["keys", "list", "--org", "acme", "--all", "--json"])).out);
    expect(all[0].status).toBe("revoked");
  }, 60_000);

  test("keys create: bad input is refused with a message naming the flag, exit 2, and nothing is written", async () => {
    const before = t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM api_keys").get();
    for (const [args, message] of [
      [["--scopes", "geocoding,bogus"], "--scopes: unknown scope(s): bogus; known scopes:"],
      [["--scopes", "geocoding", "--origins", "not-an-origin"], "--origins: 'not-an-origin' is not an origin"],
      [["--scopes", "geocoding", "--expires", "2020-01-01"], "--expires must be in the future"],
      [["--scopes", "geocoding", "--expires", "someday"], "--expires 'someday' is not a valid ISO 8601 date"],
      [["--scopes", "geocoding", "--rate-limit", "lots"], "--rate-limit must be a positive integer"],
      [["--scopes", "geocoding", "--rate-limit", "0"], "--rate-limit must be an integer from 1 to"],
      [["--scopes", "geocoding", "--monthly-quota", "0"], "--monthly-quota must be an integer from 1 to"],
      [["--scopes", ","], "--scopes needs at least one scope (geocoding,"],
      [["--scopes", "geocoding", "--name", "n".repeat(101)], "--name must be at most 100 characters"],
    ] as const) {
      const r = await cli(["keys", "create", "--org", "acme", "--name", "x", ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toStartWith(`mapstead keys: ${message}`);
    }
    expect((await cli(["keys", "create", "--org", "nope", "--name", "x", "--scopes", "geocoding"])).code).toBe(1);
    expect((await cli(["keys", "create", "--org", "acme", "--name", "x", "--scopes", "geocoding", "--bogus"])).code).toBe(2);
    expect(t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM api_keys").get()).toEqual(before);
  }, 60_000);
  test("admin create refuses an existing account unless --reset-password, which ends its sessions", async () => {
    const login = () =>
      t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "keeper@example.com", password: "the original password" }) });
    expect((await cli(["admin", "create", "--email", "keeper@example.com", "--password-stdin"], "the original password\n")).code).toBe(0);
    const session = await login();
    expect(session.status).toBe(200);
    const again = await cli(["admin", "create", "--email", "keeper@example.com", "--password-stdin"], "a replacement password\n");
    expect(again.code).toBe(1);
    expect(again.err).toContain("already has an account");
    expect(again.err).toContain("--reset-password");
    expect((await login()).status).toBe(200);
    const reset = await cli(["admin", "create", "--email", "keeper@example.com", "--password-stdin", "--reset-password"], "a replacement password\n");
    expect(reset.code).toBe(0);
    expect((await login()).status).toBe(401);
    const sessions = t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'keeper@example.com'").get();
    expect(sessions).toEqual({ n: 0 });
  });
});

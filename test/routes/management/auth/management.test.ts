// The management API for organizations, members and keys over HTTP, with its bad inputs: clear 4xx and
// nothing written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authTestApp, errorCode, json } from "./support";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import type { TestApp } from "../../../support/app";

let t: TestApp;
let owner: Awaited<ReturnType<typeof seedSession>>;

const count = (table: string) => (t.ctx.sqlite.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  t.fetch(path, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  t = await authTestApp();
  owner = await seedSession(t.ctx, { email: "owner@example.com" });
});
afterAll(() => t.close());

describe("organizations", () => {
  test("create, then list and read; the creator is owner", async () => {
    const res = await t.fetch("/api/v1/orgs", json({ slug: "acme", name: "Acme Maps" }, owner.headers));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ slug: "acme", name: "Acme Maps", role: "owner" });
    const list = await (await t.fetch("/api/v1/orgs", { headers: owner.headers })).json();
    expect(list.orgs.map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    const one = await t.fetch("/api/v1/orgs/acme", { headers: owner.headers });
    expect((await one.json()).role).toBe("owner");
    const me = await (await t.fetch("/api/v1/session", { headers: owner.headers })).json();
    expect(me.orgs).toEqual([{ slug: "acme", name: "Acme Maps", role: "owner" }]);
  });

  test("slugs outside the pattern: 400 naming the slug, nothing written", async () => {
    const before = count("orgs");
    for (const slug of ["", "Acme", "-acme", "acme-", "a_b", "a".repeat(64), "acme/x", "ä", " acme", "a b"]) {
      const res = await t.fetch("/api/v1/orgs", json({ slug }, owner.headers));
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe("BAD_REQUEST");
    }
    for (const body of [{}, { slug: 5 }, { slug: "ok", name: 7 }, { slug: "ok", extra: true }, { slug: "ok", name: "x".repeat(500) }]) {
      expect((await t.fetch("/api/v1/orgs", json(body, owner.headers))).status).toBe(400);
    }
    expect(count("orgs")).toBe(before);
  });

  test("duplicate slug: 409 CONFLICT, nothing written", async () => {
    const before = [count("orgs"), count("memberships")];
    const res = await t.fetch("/api/v1/orgs", json({ slug: "acme" }, owner.headers));
    expect(res.status).toBe(409);
    expect(await errorCode(res)).toBe("CONFLICT");
    expect([count("orgs"), count("memberships")]).toEqual(before);
  });

  test("unknown or malformed org: 404; someone else's org: 403; no session: 401", async () => {
    const stranger = await seedSession(t.ctx);
    expect((await t.fetch("/api/v1/orgs/nope", { headers: owner.headers })).status).toBe(404);
    expect((await t.fetch("/api/v1/orgs/NOT_A_SLUG", { headers: owner.headers })).status).toBe(404);
    const res = await t.fetch("/api/v1/orgs/acme", { headers: stranger.headers });
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("FORBIDDEN");
    expect((await t.fetch("/api/v1/orgs")).status).toBe(401);
    const list = await (await t.fetch("/api/v1/orgs", { headers: stranger.headers })).json();
    expect(list.orgs).toEqual([]);
  });

  test("keys never manage organizations", async () => {
    const org = seedOrg(t.ctx, "keyorg");
    const key = seedKey(t.ctx, org.id, ["tilesets:write", "styles:write", "maps:read"]);
    expect((await t.fetch("/api/v1/orgs", { headers: { "x-api-key": key.secret } })).status).toBe(401);
    expect((await t.fetch("/api/v1/orgs", json({ slug: "viakey" }, { "x-api-key": key.secret }))).status).toBe(401);
    expect((await t.fetch("/api/v1/orgs/keyorg/keys", { headers: { "x-api-key": key.secret } })).status).toBe(401);
  });

  test("instance admins see every organization", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const list = await (await t.fetch("/api/v1/orgs", { headers: admin.headers })).json();
    expect(list.orgs.map((o: { slug: string }) => o.slug)).toContain("acme");
    expect(list.orgs.find((o: { slug: string }) => o.slug === "acme").role).toBeNull();
  });
});

describe("members", () => {
  test("owners add members by email, change roles, and remove them", async () => {
    const bob = await seedSession(t.ctx, { email: "bob@example.com" });
    const add = await t.fetch("/api/v1/orgs/acme/members", json({ email: "BOB@example.com", role: "member" }, owner.headers));
    expect(add.status).toBe(201);
    expect(await add.json()).toMatchObject({ email: "bob@example.com", role: "member" });
    // bob sees the org at once
    expect((await t.fetch("/api/v1/orgs/acme", { headers: bob.headers })).status).toBe(200);
    // members cannot add members
    expect((await t.fetch("/api/v1/orgs/acme/members", json({ email: "owner@example.com", role: "member" }, bob.headers))).status).toBe(403);
    const promote = await t.fetch("/api/v1/orgs/acme/members", json({ email: "bob@example.com", role: "admin" }, owner.headers));
    expect(promote.status).toBe(200);
    const members = await (await t.fetch("/api/v1/orgs/acme/members", { headers: bob.headers })).json();
    expect(members.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`).sort()).toEqual(["bob@example.com:admin", "owner@example.com:owner"]);
    // an admin cannot grant owner
    expect((await t.fetch("/api/v1/orgs/acme/members", json({ email: "bob@example.com", role: "owner" }, bob.headers))).status).toBe(403);
    const del = await t.fetch(`/api/v1/orgs/acme/members/${bob.user.id}`, { method: "DELETE", headers: owner.headers });
    expect(del.status).toBe(204);
    expect((await t.fetch("/api/v1/orgs/acme", { headers: bob.headers })).status).toBe(403);
  });

  test("the last owner cannot be removed or demoted", async () => {
    const me = await (await t.fetch("/api/v1/session", { headers: owner.headers })).json();
    const del = await t.fetch(`/api/v1/orgs/acme/members/${me.user.id}`, { method: "DELETE", headers: owner.headers });
    expect(del.status).toBe(409);
    const demote = await t.fetch("/api/v1/orgs/acme/members", json({ email: "owner@example.com", role: "member" }, owner.headers));
    expect(demote.status).toBe(409);
  });

  test("bad input: unknown user 404, bad role or id 400, nothing written", async () => {
    const before = count("memberships");
    expect((await t.fetch("/api/v1/orgs/acme/members", json({ email: "ghost@example.com", role: "member" }, owner.headers))).status).toBe(404);
    expect((await t.fetch("/api/v1/orgs/acme/members", json({ email: "owner@example.com", role: "king" }, owner.headers))).status).toBe(400);
    expect((await t.fetch("/api/v1/orgs/acme/members/abc", { method: "DELETE", headers: owner.headers })).status).toBe(400);
    expect((await t.fetch("/api/v1/orgs/acme/members/99999", { method: "DELETE", headers: owner.headers })).status).toBe(404);
    expect(count("memberships")).toBe(before);
  });
});

describe("keys", () => {
  test("create shows the secret once; the list shows prefix, scopes, origins, expiry, created, last used", async () => {
    const res = await t.fetch(
      "/api/v1/orgs/acme/keys",
      json({ name: "web app", scopes: ["geocoding", "maps:read", "geocoding"], allowed_origins: ["https://APP.example.com/", "https://*.example.org"], expires_at: "2099-06-30", rate_limit_per_minute: 120, monthly_quota: 1000 }, owner.headers),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const created = await res.json();
    expect(created.secret).toMatch(/^msk_[0-9A-Za-z]{49}$/);
    expect(created.key).toMatchObject({
      name: "web app",
      scopes: ["geocoding", "maps:read"],
      allowed_origins: ["https://app.example.com", "https://*.example.org"],
      expires_at: "2099-06-30T00:00:00.000Z",
      rate_limit_per_minute: 120,
      monthly_quota: 1000,
      last_used_at: null,
      status: "active",
    });
    expect(created.secret.startsWith(created.key.prefix)).toBe(true);

    // the key works
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": created.secret, origin: "https://app.example.com" } })).status).toBe(200);

    const listed = await t.fetch("/api/v1/orgs/acme/keys", { headers: owner.headers });
    const text = await listed.text();
    expect(text).not.toContain(created.secret);
    const key = JSON.parse(text).keys.find((k: { id: number }) => k.id === created.key.id);
    expect(key.prefix).toBe(created.key.prefix);
    expect(key.last_used_at).not.toBeNull();
    expect(Object.keys(key).sort()).toEqual(["allowed_origins", "created_at", "expires_at", "id", "last_used_at", "monthly_quota", "name", "prefix", "rate_limit_per_minute", "revoked_at", "scopes", "status"]);
    // only the hash is stored
    const stored = t.ctx.sqlite.query("SELECT * FROM api_keys WHERE id = ?").get(created.key.id) as Record<string, unknown>;
    expect(JSON.stringify(stored)).not.toContain(created.secret);
  });

  test("PATCH changes a key at once; null clears", async () => {
    const created = await (await t.fetch("/api/v1/orgs/acme/keys", json({ name: "svc", scopes: ["geocoding"] }, owner.headers))).json();
    const patched = await send("PATCH", `/api/v1/orgs/acme/keys/${created.key.id}`, { scopes: ["elevation"], name: "svc2", expires_at: "2098-01-01T10:00:00Z" }, owner.headers);
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ name: "svc2", scopes: ["elevation"], expires_at: "2098-01-01T10:00:00.000Z" });
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": created.secret } })).status).toBe(403);
    expect((await t.fetch("/probe/elevation", { headers: { "x-api-key": created.secret } })).status).toBe(200);
    const cleared = await send("PATCH", `/api/v1/orgs/acme/keys/${created.key.id}`, { expires_at: null }, owner.headers);
    expect((await cleared.json()).expires_at).toBeNull();
  });

  test("DELETE revokes: 401 at once, hidden from the list unless include_revoked", async () => {
    const created = await (await t.fetch("/api/v1/orgs/acme/keys", json({ name: "old", scopes: ["geocoding"] }, owner.headers))).json();
    expect((await t.fetch(`/api/v1/orgs/acme/keys/${created.key.id}`, { method: "DELETE", headers: owner.headers })).status).toBe(204);
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": created.secret } })).status).toBe(401);
    const active = await (await t.fetch("/api/v1/orgs/acme/keys", { headers: owner.headers })).json();
    expect(active.keys.some((k: { id: number }) => k.id === created.key.id)).toBe(false);
    const all = await (await t.fetch("/api/v1/orgs/acme/keys?include_revoked=true", { headers: owner.headers })).json();
    expect(all.keys.find((k: { id: number }) => k.id === created.key.id).status).toBe("revoked");
    // revoking twice is fine; changing a revoked key is not
    expect((await t.fetch(`/api/v1/orgs/acme/keys/${created.key.id}`, { method: "DELETE", headers: owner.headers })).status).toBe(204);
    expect((await send("PATCH", `/api/v1/orgs/acme/keys/${created.key.id}`, { name: "again" }, owner.headers)).status).toBe(400);
  });

  test("bad input: unknown scopes, invalid origins or dates, out-of-range limits: 400, nothing written", async () => {
    const before = count("api_keys");
    const bad: [Record<string, unknown>, string][] = [
      [{ name: "x", scopes: ["geocoding", "admin"] }, "admin"],
      [{ name: "x", scopes: [] }, "scope"],
      [{ name: "x" }, "scopes"],
      [{ name: "", scopes: ["geocoding"] }, "name"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["example.com"] }, "example.com"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["https://example.com/path"] }, "origin"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["ftp://example.com"] }, "origin"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["https://*.com"] }, "broad"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["https://a.*.example.com"] }, "origin"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["https://user@example.com"] }, "origin"],
      [{ name: "x", scopes: ["geocoding"], allowed_origins: ["*"] }, "origin"],
      [{ name: "x", scopes: ["geocoding"], expires_at: "tomorrow" }, "expires_at"],
      [{ name: "x", scopes: ["geocoding"], expires_at: "2026-02-30" }, "expires_at"],
      [{ name: "x", scopes: ["geocoding"], expires_at: "2001-01-01" }, "future"],
      [{ name: "x", scopes: ["geocoding"], expires_at: 12345 }, "expires_at"],
      [{ name: "x", scopes: ["geocoding"], rate_limit_per_minute: 0 }, "rate_limit_per_minute"],
      [{ name: "x", scopes: ["geocoding"], monthly_quota: -5 }, "monthly_quota"],
      [{ name: "x", scopes: ["geocoding"], monthly_quota: 1.5 }, "monthly_quota"],
      [{ name: "x", scopes: ["geocoding"], secret: "msk_mine" }, "secret"],
    ];
    for (const [body, mention] of bad) {
      const res = await t.fetch("/api/v1/orgs/acme/keys", json(body, owner.headers));
      expect(res.status).toBe(400);
      const err = (await res.json()).error;
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.message.toLowerCase()).toContain(mention.toLowerCase());
    }
    // A union field names what it accepts, not "Expected union value".
    for (const [body, message] of [
      [{ rate_limit_per_minute: 0 }, "Invalid body field 'rate_limit_per_minute': expected an integer from 1 to 10000000 or null"],
      [{ monthly_quota: "many" }, "Invalid body field 'monthly_quota': expected an integer from 1 to 1000000000000 or null"],
      [{ expires_at: 12345 }, "Invalid body field 'expires_at': expected a string of at most 64 characters or null"],
    ] as const) {
      const res = await t.fetch("/api/v1/orgs/acme/keys", json({ name: "x", scopes: ["geocoding"], ...body }, owner.headers));
      const err = (await res.json()).error;
      expect(err.message).toBe(message);
      expect(err.details[0].message).toBe(message.slice(message.indexOf("expected")));
    }
    expect((await t.fetch("/api/v1/orgs/acme/keys", json({ name: "x", scopes: ["geocoding"], allowed_origins: Array(51).fill("https://a.example.com") }, owner.headers))).status).toBe(400);
    expect(count("api_keys")).toBe(before);
  });

  test("key ids that do not exist or belong to another org: 404", async () => {
    const other = seedOrg(t.ctx, "elsewhere");
    const foreign = seedKey(t.ctx, other.id, ["geocoding"]);
    for (const id of [String(foreign.id), "999999", "abc"]) {
      expect((await send("PATCH", `/api/v1/orgs/acme/keys/${id}`, { name: "x" }, owner.headers)).status).toBe(404);
      expect((await t.fetch(`/api/v1/orgs/acme/keys/${id}`, { method: "DELETE", headers: owner.headers })).status).toBe(404);
    }
    expect((await t.fetch("/probe/geo", { headers: { "x-api-key": foreign.secret } })).status).toBe(200);
  });

  test("members list keys; only owners and admins change them", async () => {
    const member = await seedSession(t.ctx);
    const acme = t.ctx.sqlite.query("SELECT id FROM orgs WHERE slug = 'acme'").get() as { id: number };
    t.ctx.sqlite.query("INSERT INTO memberships (user_id, org_id, role, created_at) VALUES (?, ?, 'member', ?)").run(member.user.id, acme.id, Date.now());
    expect((await t.fetch("/api/v1/orgs/acme/keys", { headers: member.headers })).status).toBe(200);
    const res = await t.fetch("/api/v1/orgs/acme/keys", json({ name: "x", scopes: ["geocoding"] }, member.headers));
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("FORBIDDEN");
  });

  test("creating a key from another site is refused (CSRF)", async () => {
    const before = count("api_keys");
    const res = await t.fetch("/api/v1/orgs/acme/keys", json({ name: "x", scopes: ["geocoding"] }, { cookie: owner.cookie, origin: "https://evil.example" }));
    expect(res.status).toBe(403);
    expect(count("api_keys")).toBe(before);
  });
});

describe("users (instance admins)", () => {
  test("admins create and list users; others are refused", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const res = await t.fetch("/api/v1/users", json({ email: "New@Example.com", password: "long enough pw" }, admin.headers));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ email: "new@example.com", is_admin: false });
    expect((await t.fetch("/api/v1/users", json({ email: "new@example.com", password: "long enough pw" }, admin.headers))).status).toBe(409);
    expect((await t.fetch("/api/v1/users", json({ email: "short@example.com", password: "short" }, admin.headers))).status).toBe(400);
    expect((await t.fetch("/api/v1/users", json({ email: "not-an-email", password: "long enough pw" }, admin.headers))).status).toBe(400);
    const list = await (await t.fetch("/api/v1/users", { headers: admin.headers })).json();
    expect(list.users.map((u: { email: string }) => u.email)).toContain("new@example.com");
    expect(JSON.stringify(list)).not.toContain("password");
    expect((await t.fetch("/api/v1/users", { headers: owner.headers })).status).toBe(403);
  });

  test("passwords are counted in characters, not UTF-16 units, and may not be only whitespace", async () => {
    const admin = await seedSession(t.ctx, { isAdmin: true });
    const create = (email: string, password: string) => t.fetch("/api/v1/users", json({ email, password }, admin.headers));
    const refused = async (email: string, password: string, message: string) => {
      const res = await create(email, password);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ code: "BAD_REQUEST", message });
    };
    await refused("spaces@example.com", " ".repeat(10), "Password must not be only whitespace");
    await refused("tabs@example.com", "\t \n\u00a0\u2003 \t \n ", "Password must not be only whitespace");
    // Five emoji are five characters (ten UTF-16 units).
    await refused("emoji5@example.com", "😀".repeat(5), "Password must be at least 10 characters (this one has 5)");
    await refused("emoji1025@example.com", "😀".repeat(1025), "Password must be at most 1024 characters");
    expect(count("users WHERE email LIKE 'spaces@%' OR email LIKE 'tabs@%' OR email LIKE 'emoji%'")).toBe(0);
    // Ten characters with spaces among them, and the longest password, are fine; the longest logs in.
    expect((await create("spaced@example.com", "  a b c d ")).status).toBe(201);
    const longest = "😀".repeat(1024);
    expect((await create("emoji1024@example.com", longest)).status).toBe(201);
    expect((await t.fetch("/api/v1/session", json({ email: "emoji1024@example.com", password: longest }))).status).toBe(200);
  }, 30_000);
});

describe("OpenAPI", () => {
  test("the management routes are documented", async () => {
    const doc = await (await t.fetch("/openapi.json")).json();
    for (const path of ["/api/v1/session", "/api/v1/setup", "/api/v1/orgs", "/api/v1/orgs/{org}/members", "/api/v1/orgs/{org}/keys", "/api/v1/orgs/{org}/keys/{id}", "/api/v1/orgs/{org}/keys/{id}/usage", "/api/v1/users", "/api/v1/users/{id}", "/api/v1/users/{id}/sessions"])
      expect(Object.keys(doc.paths)).toContain(path);
  });
});

// First-run web setup: the page, the one-time token, and that it is disabled once an admin exists.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authTestApp, errorCode, json } from "./support";
import type { TestApp } from "../../../support/app";
import { issueSetupToken } from "../../../../src/domain/accounts/setup-token";

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await authTestApp({ TRUST_PROXY: "true" });
  token = issueSetupToken(t.ctx.sqlite)!;
});
afterAll(() => t.close());

const admins = () => (t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM users WHERE is_admin = 1").get() as { n: number }).n;

describe("first-run setup", () => {
  test("GET /setup is a self-contained page with the form", async () => {
    const res = await t.fetch("/setup");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('id="token"');
    expect(html).toContain("/api/v1/setup");
    // Where the token is, and what to do when it is lost (each start while no admin exists writes a new one).
    expect(html).toContain("DATA_DIR/setup-token");
    expect(html).toContain("A lost file or token is replaced by restarting Mapstead");
    expect(html).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
    expect(html).not.toContain("@import");
  });

  test("bad input: 400, nothing written", async () => {
    for (const body of [{}, { token, email: "admin@example.com" }, { token, email: "nope", password: "long enough pw" }, { token, email: "a@b.c", password: "short" }, { token, email: "a@b.c", password: "long enough pw", admin: true }]) {
      const res = await t.fetch("/api/v1/setup", json(body, { "x-forwarded-for": "198.51.100.1" }));
      expect(res.status).toBe(400);
    }
    expect(admins()).toBe(0);
  });

  test("a wrong token is refused and counted against the client", async () => {
    const res = await t.fetch("/api/v1/setup", json({ token: "wrong", email: "admin@example.com", password: "long enough pw" }, { "x-forwarded-for": "198.51.100.2" }));
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("UNAUTHORIZED");
    expect(admins()).toBe(0);
  });

  test("guessing is throttled per client", async () => {
    const guess = () => t.fetch("/api/v1/setup", json({ token: "guess", email: "admin@example.com", password: "long enough pw" }, { "x-forwarded-for": "198.51.100.3" }));
    for (let i = 0; i < 20; i++) expect((await guess()).status).toBe(401);
    const res = await guess();
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  test("the right token creates the admin, logs them in, and disables setup", async () => {
    const res = await t.fetch("/api/v1/setup", json({ token, email: "Admin@Example.com", password: "long enough pw" }, { "x-forwarded-for": "198.51.100.4" }));
    expect(res.status).toBe(201);
    expect(res.headers.get("set-cookie")).toContain("HttpOnly");
    const body = await res.json();
    expect(body.user).toEqual({ id: expect.any(Number), email: "admin@example.com", is_admin: true });
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    expect((await t.fetch("/api/v1/session", { headers: { cookie } })).status).toBe(200);

    const again = await t.fetch("/api/v1/setup", json({ token, email: "second@example.com", password: "long enough pw" }, { "x-forwarded-for": "198.51.100.5" }));
    expect(again.status).toBe(409);
    expect(admins()).toBe(1);
    expect(t.ctx.sqlite.query("SELECT value FROM settings WHERE key = 'setup_token_hash'").get()).toBeNull();
    expect(await (await t.fetch("/setup")).text()).toContain("Setup is complete");
    // a restart issues no new token once an admin exists
    expect(issueSetupToken(t.ctx.sqlite)).toBeNull();
  });
});

// Console sessions over HTTP: login cookie, who-am-I, logout, idle and absolute expiry, CSRF, login
// throttling and what gets logged.
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { authTestApp, errorCode, json } from "./support";
import { seedOrg, seedSession } from "../../../support/seed";
import type { TestApp } from "../../../support/app";
import { createLogger } from "../../../../src/log";
import { SESSION_ABSOLUTE_MS, SESSION_IDLE_MS } from "../../../../src/domain/accounts/users";

let t: TestApp;
const logLines: string[] = [];
let orgId: number;

beforeAll(async () => {
  t = await authTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (l) => logLines.push(l)) });
  orgId = seedOrg(t.ctx, "acme").id;
});
afterAll(() => t.close());
afterEach(() => setSystemTime());

const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0]!;
const login = (email: string, password: string, headers: Record<string, string> = {}) => t.fetch("/api/v1/session", json({ email, password }, headers));
let ipCounter = 0;

describe("login", () => {
  test("sets an HttpOnly SameSite=Lax cookie (not Secure over http) and returns the CSRF token", async () => {
    const s = await seedSession(t.ctx, { orgId, role: "admin" });
    const res = await login(s.email.toUpperCase(), s.password);
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^mapstead_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
    const body = await res.json();
    expect(body.user.email).toBe(s.email);
    expect(body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.orgs).toEqual([{ slug: "acme", name: "ACME", role: "admin" }]);
    expect(res.headers.get("cache-control")).toBe("no-store");

    const me = await t.fetch("/api/v1/session", { headers: { cookie: cookieOf(res) } });
    expect(me.status).toBe(200);
    const who = await me.json();
    expect(who.user.email).toBe(s.email);
    expect(who.csrf_token).toBe(body.csrf_token);
  });

  test("the session token is stored hashed", async () => {
    const s = await seedSession(t.ctx);
    const res = await login(s.email, s.password);
    const token = cookieOf(res).split("=")[1]!;
    const rows = t.ctx.sqlite.query("SELECT token_hash FROM sessions").all() as { token_hash: string }[];
    expect(rows.some((r) => r.token_hash === token)).toBe(false);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  test("wrong password or unknown account: 401 with the same message, password never logged", async () => {
    const s = await seedSession(t.ctx);
    const wrong = await login(s.email, "wrong password 123", { "x-forwarded-for": "10.9.9.9" });
    const unknown = await login("nobody@example.com", "wrong password 456");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect((await wrong.json()).error.message).toBe((await unknown.json()).error.message);
    const text = logLines.join("\n");
    expect(text).toContain("login failed");
    expect(text).toContain(s.email);
    expect(text).not.toContain("wrong password");
  });

  test("bad input: 400 naming the field, no session created", async () => {
    const before = (t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM sessions").get() as { n: number }).n;
    for (const body of [{}, { email: "a@b.c" }, { email: 5, password: "x" }, { email: "a@b.c", password: "x".repeat(2049) }]) {
      const res = await t.fetch("/api/v1/session", json(body));
      expect(res.status).toBe(400);
      expect(await errorCode(res)).toBe("BAD_REQUEST");
    }
    const notJson = await t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(notJson.status).toBe(400);
    expect((t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM sessions").get() as { n: number }).n).toBe(before);
  });

  test("a cross-site login post is refused", async () => {
    const s = await seedSession(t.ctx);
    const res = await login(s.email, s.password, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
    // Most often the console was opened at another address than PUBLIC_URL: the message says what to set.
    expect((await res.json()).error.message).toBe(
      `Cross-site request refused: this page came from https://evil.example, but Mapstead's PUBLIC_URL is ${t.baseUrl}. If https://evil.example is this server's address, set PUBLIC_URL=https://evil.example and restart Mapstead.`,
    );
  });
});

describe("Secure cookies behind https", () => {
  test("PUBLIC_URL https sets Secure", async () => {
    const https = await authTestApp({ PUBLIC_URL: "https://maps.example.com" });
    try {
      const s = await seedSession(https.ctx);
      const res = await https.fetch("/api/v1/session", json({ email: s.email, password: s.password }));
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await https.close();
    }
  });
});

describe("logout and expiry", () => {
  test("DELETE /api/v1/session ends the session and clears the cookie", async () => {
    const s = await seedSession(t.ctx);
    const res = await t.fetch("/api/v1/session", { method: "DELETE", headers: s.headers });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0");
    const me = await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } });
    expect(me.status).toBe(401);
    expect((await t.fetch("/probe/geo", { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  test("logout without a session is a harmless 204", async () => {
    expect((await t.fetch("/api/v1/session", { method: "DELETE" })).status).toBe(204);
  });

  test("logout is CSRF-checked", async () => {
    const s = await seedSession(t.ctx);
    const res = await t.fetch("/api/v1/session", { method: "DELETE", headers: { cookie: s.cookie, origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(200);
  });

  test("idle expiry: a session unused for the idle time is over", async () => {
    const s = await seedSession(t.ctx);
    const start = Date.now();
    setSystemTime(new Date(start + SESSION_IDLE_MS - 60_000));
    expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(200);
    // activity moved the idle deadline
    setSystemTime(new Date(start + SESSION_IDLE_MS + 60_000));
    expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(200);
    setSystemTime(new Date(start + 2 * SESSION_IDLE_MS + 60_000));
    expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(401);
  });

  test("absolute expiry: even an active session ends", async () => {
    const s = await seedSession(t.ctx);
    const start = Date.now();
    for (let at = start; at < start + SESSION_ABSOLUTE_MS; at += SESSION_IDLE_MS / 2) {
      setSystemTime(new Date(at));
      expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(200);
    }
    setSystemTime(new Date(start + SESSION_ABSOLUTE_MS + 1000));
    expect((await t.fetch("/api/v1/session", { headers: { cookie: s.cookie } })).status).toBe(401);
  });
});

describe("CSRF", () => {
  test("unsafe session requests without Origin or token are refused", async () => {
    const s = await seedSession(t.ctx);
    const res = await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie } });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toContain("X-CSRF-Token");
  });

  test("a cross-site Origin is refused", async () => {
    const s = await seedSession(t.ctx);
    for (const origin of ["https://evil.example", "http://localhost:8080.evil.example", "null", "http://localhost:8081"]) {
      const res = await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie, origin } });
      expect(res.status).toBe(403);
    }
  });

  test("a wrong CSRF token is refused", async () => {
    const s = await seedSession(t.ctx);
    const other = await seedSession(t.ctx);
    for (const token of ["", "x", other.csrfToken, s.csrfToken + "x"]) {
      const res = await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie, "x-csrf-token": token } });
      expect(res.status).toBe(403);
    }
  });

  test("the same origin or the session's CSRF token passes", async () => {
    const s = await seedSession(t.ctx);
    expect((await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie, origin: t.baseUrl } })).status).toBe(200);
    expect((await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie, "x-csrf-token": s.csrfToken } })).status).toBe(200);
    expect((await t.fetch("/probe/session", { method: "POST", headers: { cookie: s.cookie, origin: "https://evil.example", "x-csrf-token": s.csrfToken } })).status).toBe(200);
  });

  test("safe methods need neither", async () => {
    const s = await seedSession(t.ctx);
    expect((await t.fetch("/probe/session", { headers: { cookie: s.cookie, origin: "https://evil.example" } })).status).toBe(200);
  });

  test("CSRF is checked before the body is validated", async () => {
    const s = await seedSession(t.ctx);
    const res = await t.fetch("/api/v1/orgs", json({ slug: 42 }, { cookie: s.cookie }));
    expect(res.status).toBe(403);
  });
});

describe("login throttling", () => {
  // TRUST_PROXY makes X-Forwarded-For the client address, so one test can play several clients.
  let app: TestApp;
  beforeAll(async () => {
    app = await authTestApp({ TRUST_PROXY: "true", LOG_LEVEL: "info" }, { log: createLogger("info", (l) => logLines.push(l)) });
  });
  afterAll(() => app.close());
  const from = (ip: string, email: string, password: string) => app.fetch("/api/v1/session", json({ email, password }, { "x-forwarded-for": ip }));

  test("an account under attack from many addresses still lets its owner in with the right password", async () => {
    const s = await seedSession(app.ctx);
    for (let i = 0; i < 30; i++) expect((await from(`10.1.0.${i + 1}`, s.email, `wrong password ${i}`)).status).toBe(401);
    expect((await from("10.1.9.9", s.email, s.password)).status).toBe(200);
  }, 30_000);

  test("a failing client waits longer after each further failure, even with the right password", async () => {
    const s = await seedSession(app.ctx);
    const ip = "10.2.0.1";
    // The clock stands still: on a loaded machine password checks can outlast the first 1 s wait.
    setSystemTime(new Date());
    for (let i = 0; i < 5; i++) expect((await from(ip, s.email, "wrong password!!")).status).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const refused = await from(ip, s.email, s.password);
      expect(refused.status).toBe(429);
      expect(await errorCode(refused)).toBe("TOO_MANY_ATTEMPTS");
      const retry = Number(refused.headers.get("retry-after"));
      waits.push(retry);
      setSystemTime(new Date(Date.now() + retry * 1000));
      expect((await from(ip, s.email, "wrong password!!")).status).toBe(401);
    }
    expect(waits).toEqual([1, 2, 4]);
    expect(logLines.join("\n")).toContain("login throttled");
    // once its wait is over, the right password works and clears the slate
    setSystemTime(new Date(Date.now() + 8_000));
    expect((await from(ip, s.email, s.password)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await from(ip, s.email, "wrong password!!")).status).toBe(401);
  }, 30_000);

  test("a guess spread over many addresses slows every address that took part", async () => {
    const s = await seedSession(app.ctx);
    for (let i = 0; i < 12; i++) expect((await from(`10.3.0.${i + 1}`, s.email, "wrong password!!")).status).toBe(401);
    const again = await from("10.3.0.1", s.email, "wrong password!!");
    expect(again.status).toBe(429);
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThanOrEqual(4);
    expect((await from("10.3.0.99", s.email, s.password)).status).toBe(200);
  }, 30_000);

  test("failures are shared by every process on the data directory: five password checks in all, not five per worker", async () => {
    // A second app on the same DATA_DIR is what another worker of a cluster is: its own memory, the
    // same SQLite file. The reviewer's case: 30 wrong logins on one account, alternating between them.
    const other = await authTestApp({ TRUST_PROXY: "true" }, { dataDir: app.dataDir });
    try {
      const s = await seedSession(app.ctx);
      setSystemTime(new Date()); // the first 1 s wait cannot run out during the test
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) {
        const via = i % 2 ? other : app;
        statuses.push((await via.fetch("/api/v1/session", json({ email: s.email, password: `wrong password ${i}` }, { "x-forwarded-for": "10.4.0.1" }))).status);
      }
      expect(statuses).toEqual([...Array(5).fill(401), ...Array(25).fill(429)]);
      // The failing address waits even with the right password, at either process; the owner elsewhere does not.
      expect((await other.fetch("/api/v1/session", json({ email: s.email, password: s.password }, { "x-forwarded-for": "10.4.0.1" }))).status).toBe(429);
      expect((await app.fetch("/api/v1/session", json({ email: s.email, password: s.password }, { "x-forwarded-for": "10.4.0.2" }))).status).toBe(200);
    } finally {
      await other.close();
    }
  }, 60_000);

  test("a successful login clears the account's failures", async () => {
    const s = await seedSession(t.ctx);
    for (let i = 0; i < 4; i++) await login(s.email, "wrong password!!");
    expect((await login(s.email, s.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(s.email, "wrong password!!")).status).toBe(401);
    expect((await login(s.email, s.password)).status).toBe(200);
  }, 30_000);
});

describe("login throttling per client", () => {
  test("20 failures from one address across accounts block that address, not others", async () => {
    // TRUST_PROXY makes X-Forwarded-For the client address, so one test can play several clients.
    const app = await authTestApp({ TRUST_PROXY: "true" });
    try {
      const s = await seedSession(app.ctx);
      const from = (ip: string, email: string, password: string) => app.fetch("/api/v1/session", json({ email, password }, { "x-forwarded-for": ip }));
      const guesses = await Promise.all(Array.from({ length: 20 }, (_, i) => from("192.0.2.7", `guess${i}@example.com`, "wrong password 1")));
      expect(guesses.map((r) => r.status)).toEqual(Array(20).fill(401));
      const blocked = await from("192.0.2.7", s.email, s.password);
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
      expect((await from("192.0.2.8", s.email, s.password)).status).toBe(200);
    } finally {
      await app.close();
    }
  }, 60_000);
});

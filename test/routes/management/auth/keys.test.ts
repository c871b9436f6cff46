// API key authentication over HTTP: header handling, results per SPEC.md, origin policy, expiry,
// revocation, and sessions where keys are accepted.
import { afterAll, afterEach, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { Database } from "bun:sqlite";
import { authTestApp, errorCode, json } from "./support";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import type { TestApp } from "../../../support/app";
import { databasePath } from "../../../../src/db/client";
import { generateSecret } from "../../../../src/domain/keys/secret";

let t: TestApp;
let orgId: number;
let otherOrgId: number;

beforeAll(async () => {
  t = await authTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  otherOrgId = seedOrg(t.ctx, "other").id;
});
afterAll(() => t.close());
afterEach(() => setSystemTime());

const geo = (headers: Record<string, string>) => t.fetch("/probe/geo", { headers });

describe("X-API-Key", () => {
  test("a valid key with the scope passes; the header name is case-insensitive", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    for (const name of ["X-API-Key", "x-api-key", "X-Api-Key", "X-API-KEY"]) {
      const res = await geo({ [name]: key.secret });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ kind: "key", id: `key:${key.id}` });
    }
  });

  test("missing key: 401 UNAUTHORIZED", async () => {
    const res = await geo({});
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("UNAUTHORIZED");
  });

  test("malformed keys: 401 UNAUTHORIZED", async () => {
    const good = seedKey(t.ctx, orgId, ["geocoding"]).secret;
    const flipped = good.slice(0, -1) + (good.endsWith("a") ? "b" : "a");
    for (const bad of ["", "nope", "msk_", good.slice(0, -2), flipped, `${good}x`, "msk_" + "é".repeat(49), "Bearer " + good, "x".repeat(8000)]) {
      const res = await geo({ "x-api-key": bad });
      expect(res.status).toBe(401);
      expect(await errorCode(res)).toBe("UNAUTHORIZED");
    }
  });

  test("a well-formed key that was never issued: 401 UNAUTHORIZED", async () => {
    const res = await geo({ "x-api-key": generateSecret() });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("UNAUTHORIZED");
  });

  test("surrounding whitespace is tolerated", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await geo({ "x-api-key": ` ${key.secret} ` })).status).toBe(200);
  });

  test("huge headers are refused with the envelope, never a 500", async () => {
    const res = await geo({ "x-api-key": "msk_" + "a".repeat(20_000) });
    expect(res.status).toBe(431);
    expect(await errorCode(res)).toBe("BAD_REQUEST");
  });

  test("a key without the route's scope: 403 INSUFFICIENT_SCOPE", async () => {
    const key = seedKey(t.ctx, orgId, ["elevation"]);
    const res = await geo({ "x-api-key": key.secret });
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("INSUFFICIENT_SCOPE");
    expect((await t.fetch("/probe/elevation", { headers: { "x-api-key": key.secret } })).status).toBe(200);
  });

  test("authentication comes before input validation", async () => {
    const res = await t.fetch("/probe/geo", json({ wrong: true }));
    expect(res.status).toBe(401);
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    const bad = await t.fetch("/probe/geo", json({ wrong: true }, { "x-api-key": key.secret }));
    expect(bad.status).toBe(400);
  });

  test("key-authenticated unsafe requests need no CSRF token or Origin", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding", "tilesets:write"]);
    const res = await t.fetch("/probe/geo", json({ q: "x" }, { "x-api-key": key.secret }));
    expect(res.status).toBe(200);
    expect((await t.fetch("/probe/tilesets", { method: "POST", headers: { "x-api-key": key.secret } })).status).toBe(200);
  });
});

describe("expiry", () => {
  test("a key works until the millisecond of its expiry, then 401 KEY_EXPIRED", async () => {
    const expiresAt = Date.now() + 60_000;
    const key = seedKey(t.ctx, orgId, ["geocoding"], { expiresAt });
    setSystemTime(new Date(expiresAt - 1));
    expect((await geo({ "x-api-key": key.secret })).status).toBe(200);
    setSystemTime(new Date(expiresAt));
    const res = await geo({ "x-api-key": key.secret });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("KEY_EXPIRED");
    setSystemTime(new Date(expiresAt + 86_400_000));
    expect(await errorCode(await geo({ "x-api-key": key.secret }))).toBe("KEY_EXPIRED");
  });
});

describe("browser origins", () => {
  let exact: string;
  let wildcard: string;
  beforeAll(() => {
    exact = seedKey(t.ctx, orgId, ["geocoding"], { allowedOrigins: ["https://app.example.com", "http://localhost:3000"] }).secret;
    wildcard = seedKey(t.ctx, orgId, ["geocoding"], { allowedOrigins: ["https://*.example.org"] }).secret;
  });

  test("exact origins match scheme, host and port", async () => {
    expect((await geo({ "x-api-key": exact, origin: "https://app.example.com" })).status).toBe(200);
    expect((await geo({ "x-api-key": exact, origin: "https://APP.example.com" })).status).toBe(200);
    expect((await geo({ "x-api-key": exact, origin: "https://app.example.com:443" })).status).toBe(200);
    expect((await geo({ "x-api-key": exact, origin: "http://localhost:3000" })).status).toBe(200);
    for (const o of ["http://app.example.com", "https://app.example.com:8443", "http://localhost:3001", "https://example.com", "https://x.app.example.com"]) {
      const res = await geo({ "x-api-key": exact, origin: o });
      expect(res.status).toBe(403);
      expect(await errorCode(res)).toBe("DOMAIN_NOT_ALLOWED");
    }
  });

  test("wildcards match any subdomain depth but not the apex", async () => {
    for (const o of ["https://a.example.org", "https://a.b.example.org", "https://xn--bcher-kva.example.org"])
      expect((await geo({ "x-api-key": wildcard, origin: o })).status).toBe(200);
    for (const o of ["https://example.org", "http://a.example.org", "https://a.example.org:8443"])
      expect((await geo({ "x-api-key": wildcard, origin: o })).status).toBe(403);
  });

  test("forged-looking origins are refused", async () => {
    for (const o of [
      "https://app.example.com.evil.com",
      "https://evilapp.example.com",
      "https://evil.com/app.example.com",
      "https://app.example.com@evil.com",
      "https://evil.com?app.example.com",
      "https://example.org.evil.com",
      "https://evilexample.org",
      "https://a.example.org.",
      "null",
      "javascript:alert(1)",
      "https://",
      "not an origin",
    ]) {
      const res = await geo({ "x-api-key": o.includes("example.org") ? wildcard : exact, origin: o });
      expect(res.status).toBe(403);
      expect(await errorCode(res)).toBe("DOMAIN_NOT_ALLOWED");
    }
  });

  test("Referer stands in when Origin is absent", async () => {
    expect((await geo({ "x-api-key": exact, referer: "https://app.example.com/maps/page?x=1" })).status).toBe(200);
    expect((await geo({ "x-api-key": wildcard, referer: "https://deep.sub.example.org/" })).status).toBe(200);
    const res = await geo({ "x-api-key": exact, referer: "https://evil.com/https://app.example.com" });
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("DOMAIN_NOT_ALLOWED");
  });

  test("Origin wins over Referer", async () => {
    const res = await geo({ "x-api-key": exact, origin: "https://evil.com", referer: "https://app.example.com/" });
    expect(res.status).toBe(403);
  });

  test("a restricted key without Origin or Referer is refused", async () => {
    const res = await geo({ "x-api-key": exact });
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("DOMAIN_NOT_ALLOWED");
  });

  test("an unrestricted key accepts any origin", async () => {
    const open = seedKey(t.ctx, orgId, ["geocoding"]).secret;
    expect((await geo({ "x-api-key": open, origin: "https://anything.test" })).status).toBe(200);
  });

  test("the key's origin is checked before its scope", async () => {
    const res = await t.fetch("/probe/elevation", { headers: { "x-api-key": exact, origin: "https://evil.com" } });
    expect(await errorCode(res)).toBe("DOMAIN_NOT_ALLOWED");
  });
});

describe("revocation", () => {
  test("revoking through the API refuses the key at once", async () => {
    const session = await seedSession(t.ctx, { orgId });
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await geo({ "x-api-key": key.secret })).status).toBe(200);
    const del = await t.fetch(`/api/v1/orgs/acme/keys/${key.id}`, { method: "DELETE", headers: session.headers });
    expect(del.status).toBe(204);
    const res = await geo({ "x-api-key": key.secret });
    expect(res.status).toBe(401);
    expect(await errorCode(res)).toBe("UNAUTHORIZED");
  });

  test("revoking from another process (the CLI) takes effect within 5 seconds", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await geo({ "x-api-key": key.secret })).status).toBe(200);
    const other = new Database(databasePath(t.dataDir));
    other.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(Date.now(), key.id);
    other.close();
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 6_000) {
      status = (await geo({ "x-api-key": key.secret })).status;
      if (status === 200) await Bun.sleep(250);
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(5_000);
  });

  test("verified keys are served from memory: no query per request", async () => {
    const key = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await geo({ "x-api-key": key.secret })).status).toBe(200);
    // Changing the row behind the cache's back is not seen until the cache entry ages out.
    t.ctx.sqlite.query("UPDATE api_keys SET scopes = '[\"elevation\"]' WHERE id = ?").run(key.id);
    expect((await geo({ "x-api-key": key.secret })).status).toBe(200);
    setSystemTime(new Date(Date.now() + 5_000));
    expect((await geo({ "x-api-key": key.secret })).status).toBe(403);
  });
});

describe("sessions where keys are accepted", () => {
  test("a console session passes a scope route", async () => {
    const s = await seedSession(t.ctx, { orgId });
    const res = await geo({ cookie: s.cookie });
    expect(res.status).toBe(200);
    expect((await res.json()).kind).toBe("session");
  });

  test("an unknown session cookie is no session", async () => {
    const res = await geo({ cookie: "mapstead_session=forged" });
    expect(res.status).toBe(401);
  });

  test("a session's unsafe requests on scope routes are CSRF-checked", async () => {
    const s = await seedSession(t.ctx, { orgId });
    const refused = await t.fetch("/probe/geo", json({ q: "x" }, { cookie: s.cookie }));
    expect(refused.status).toBe(403);
    expect(await errorCode(refused)).toBe("FORBIDDEN");
    expect((await t.fetch("/probe/geo", json({ q: "x" }, s.headers))).status).toBe(200);
  });

  test("a key takes precedence over a session cookie", async () => {
    const s = await seedSession(t.ctx, { orgId: otherOrgId });
    const key = seedKey(t.ctx, orgId, ["elevation"]);
    const res = await geo({ cookie: s.cookie, "x-api-key": key.secret });
    expect(res.status).toBe(403);
    expect(await errorCode(res)).toBe("INSUFFICIENT_SCOPE");
  });
});

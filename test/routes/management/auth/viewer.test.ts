// The viewer macro behind private map assets: only a maps:read key of the owning org or a member
// session sees private assets; everyone else gets the same 404 as for a missing asset.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authTestApp } from "./support";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import type { TestApp } from "../../../support/app";

let t: TestApp;
let acme: number;
let other: number;

beforeAll(async () => {
  t = await authTestApp();
  acme = seedOrg(t.ctx, "acme").id;
  other = seedOrg(t.ctx, "other").id;
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) => t.fetch(path, { headers });

describe("private assets", () => {
  test("a maps:read key of the owning org reads; it attaches owner context", async () => {
    const key = seedKey(t.ctx, acme, ["maps:read"]);
    const res = await get("/probe/private/acme", { "x-api-key": key.secret });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ org: "acme", authenticated: true });
  });

  test("everything else gets the same 404 as a missing asset", async () => {
    const missing = await get("/probe/private/no-such-org");
    const missingBody = (await missing.json()).error;
    const expired = seedKey(t.ctx, acme, ["maps:read"], { expiresAt: Date.now() + 50 });
    const revoked = seedKey(t.ctx, acme, ["maps:read"]);
    t.ctx.sqlite.query("UPDATE api_keys SET revoked_at = ? WHERE id = ?").run(Date.now(), revoked.id);
    await Bun.sleep(60);
    const outsider = await seedSession(t.ctx, { orgId: other });
    const cases: Record<string, string>[] = [
      {},
      { "x-api-key": seedKey(t.ctx, acme, ["geocoding"]).secret },
      { "x-api-key": seedKey(t.ctx, other, ["maps:read"]).secret },
      { "x-api-key": seedKey(t.ctx, acme, ["maps:read"], { allowedOrigins: ["https://app.example.com"] }).secret, origin: "https://evil.example" },
      { "x-api-key": expired.secret },
      { "x-api-key": revoked.secret },
      { "x-api-key": "msk_garbage" },
      { cookie: outsider.cookie },
      { cookie: "mapstead_session=forged" },
    ];
    for (const headers of cases) {
      const res = await get("/probe/private/acme", headers);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toEqual(missingBody);
    }
  });

  test("member sessions and instance admins read", async () => {
    const member = await seedSession(t.ctx, { orgId: acme, role: "member" });
    expect((await get("/probe/private/acme", { cookie: member.cookie })).status).toBe(200);
    const admin = await seedSession(t.ctx, { isAdmin: true });
    expect((await get("/probe/private/acme", { cookie: admin.cookie })).status).toBe(200);
  });

  test("public assets load anonymously, and a bad key does not break them", async () => {
    expect(await (await get("/probe/public")).json()).toEqual({ authenticated: false });
    expect((await get("/probe/public", { "x-api-key": "msk_garbage" })).status).toBe(200);
    const key = seedKey(t.ctx, acme, ["maps:read"]);
    expect(await (await get("/probe/public", { "x-api-key": key.secret })).json()).toEqual({ authenticated: true });
  });
});

// Two apps on one DATA_DIR, as the HTTP workers of `mapstead serve` with WORKERS above 1 are: a
// membership removed or a logout done through one must reach the other's session cache through the
// change bus within its watcher's tick, not after the cache's 4 s lifetime.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { makeTestApp, type TestApp } from "../../../support/app";
import { tempDir } from "../../../support/temp";
import { seedOrg, seedSession } from "../../../support/seed";

let dataDir: string;
let a: TestApp;
let b: TestApp;

beforeAll(async () => {
  dataDir = tempDir();
  a = await makeTestApp({}, { dataDir });
  b = await makeTestApp({}, { dataDir });
});
afterAll(async () => {
  await a.close();
  await b.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Polls every 50 ms for up to 1.5 s (well under the session cache's 4 s): the status seen last. */
async function statusWithin(fetch: () => Promise<Response>, wanted: number): Promise<number> {
  let status = 0;
  for (let i = 0; i < 30 && status !== wanted; i++) {
    status = (await fetch()).status;
    if (status !== wanted) await Bun.sleep(50);
  }
  return status;
}

test("a member removed through one worker loses the organization in the other at once", async () => {
  const org = seedOrg(a.ctx, "acme");
  const owner = await seedSession(a.ctx, { orgId: org.id, role: "owner" });
  const member = await seedSession(a.ctx, { orgId: org.id, role: "member" });
  const readOrg = () => b.fetch("/api/v1/orgs/acme", { headers: { cookie: member.cookie } });
  // The other worker has the member's session cached, memberships and all.
  expect((await readOrg()).status).toBe(200);
  const removed = await a.fetch(`/api/v1/orgs/acme/members/${member.user.id}`, { method: "DELETE", headers: owner.headers });
  expect(removed.status).toBe(204);
  expect(await statusWithin(readOrg, 403)).toBe(403);
});

test("a member added through one worker sees the organization in the other at once", async () => {
  const org = seedOrg(a.ctx, "beta");
  const owner = await seedSession(a.ctx, { orgId: org.id, role: "owner" });
  const newcomer = await seedSession(a.ctx, {});
  const readOrg = () => b.fetch("/api/v1/orgs/beta", { headers: { cookie: newcomer.cookie } });
  expect((await readOrg()).status).toBe(403);
  const added = await a.fetch("/api/v1/orgs/beta/members", {
    method: "POST",
    headers: { ...owner.headers, "content-type": "application/json" },
    body: JSON.stringify({ email: newcomer.email, role: "member" }),
  });
  expect(added.status).toBe(201);
  expect(await statusWithin(readOrg, 200)).toBe(200);
});

test("a logout through one worker ends the session in the other at once", async () => {
  const user = await seedSession(a.ctx, {});
  const whoAmI = () => b.fetch("/api/v1/session", { headers: { cookie: user.cookie } });
  expect((await whoAmI()).status).toBe(200);
  expect((await a.fetch("/api/v1/session", { method: "DELETE", headers: user.headers })).status).toBe(204);
  expect(await statusWithin(whoAmI, 401)).toBe(401);
});

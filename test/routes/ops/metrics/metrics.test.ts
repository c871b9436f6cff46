import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { createTileset, upload, waitForVersion } from "../../management/tilesets/fixtures";

let t: TestApp;
let remote: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
  remote = await makeTestApp({ TRUST_PROXY: "true" });
});
afterAll(async () => {
  await t.close();
  await remote.close();
});

test("/metrics counts requests by route group for a loopback caller", async () => {
  await t.fetch("/health");
  await t.fetch("/tiles/v1/nobody/none.json");
  await t.fetch("/routing/v1/driving/13.38,52.51;13.39,52.52");
  await Bun.sleep(10); // after-response hooks run once the response is handed back
  const res = await t.fetch("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const body = await res.text();
  expect(body).toMatch(/mapstead_http_requests_total\{group="health",method="GET",status="2xx"\} [1-9]/);
  expect(body).toMatch(/mapstead_http_requests_total\{group="tiles",method="GET",status="4xx"\} [1-9]/);
  expect(body).toMatch(/mapstead_http_requests_total\{group="routing",method="GET",status="4xx"\} [1-9]/);
  expect(body).toContain("mapstead_http_request_duration_seconds_bucket");
  expect(body).toContain("mapstead_jobs_queued 0");
  // One process serves and processes: its memory is the server's.
  expect(body).toMatch(/^mapstead_process_resident_bytes\{process="server"\} [1-9]\d*$/m);
});

test("/metrics is hidden from remote callers unless they are admins", async () => {
  const anon = await remote.fetch("/metrics", { headers: { "x-forwarded-for": "203.0.113.9" } });
  expect(anon.status).toBe(404);
  const member = await seedSession(remote.ctx, { isAdmin: false });
  expect((await remote.fetch("/metrics", { headers: { "x-forwarded-for": "203.0.113.9", cookie: member.cookie } })).status).toBe(404);
  const admin = await seedSession(remote.ctx, { isAdmin: true });
  expect((await remote.fetch("/metrics", { headers: { "x-forwarded-for": "203.0.113.9", cookie: admin.cookie } })).status).toBe(200);
});

test("the landing page shows health and points to setup while no admin exists", async () => {
  const res = await t.fetch("/");
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain("Mapstead");
  expect(html).toContain('href="/setup"');
  expect(html).toContain("not configured");
  expect(html).not.toMatch(/https?:\/\/(?!localhost)[^"]*\.(js|css)/);
});

test("behind a proxy on this machine without TRUST_PROXY, relayed visitors are not the server itself", async () => {
  // Every visitor reaches Mapstead from 127.0.0.1 then: the proxy's headers are what tell them apart.
  for (const header of ["x-forwarded-for", "forwarded", "x-real-ip"]) expect((await t.fetch("/metrics", { headers: { [header]: "203.0.113.9" } })).status).toBe(404);
  const admin = await seedSession(t.ctx, { isAdmin: true });
  expect((await t.fetch("/metrics", { headers: { "x-forwarded-for": "203.0.113.9", cookie: admin.cookie } })).status).toBe(200);
  expect((await t.fetch("/metrics")).status).toBe(200);
});

test("an import that fails on its data counts in mapstead_jobs_failed, as monitoring expects", async () => {
  const app = await makeTestApp();
  try {
    const orgId = seedOrg(app.ctx, "acme").id;
    const { headers } = await seedSession(app.ctx, { orgId });
    await createTileset(app, "acme", headers, { slug: "broken" });
    expect((await upload(app, "acme", "broken", headers, '{"type":"FeatureCollection","features":[{"type":"Feature"')).status).toBe(202);
    expect(((await waitForVersion(app, "acme", "broken", 1, headers)) as { state: string }).state).toBe("failed");
    const body = await (await app.fetch("/metrics")).text();
    expect(body).toContain("mapstead_jobs_failed 1");
  } finally {
    await app.close();
  }
});

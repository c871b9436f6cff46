// Upload routes (those that read their own body, `parse: "none"`) take bodies up to MAX_UPLOAD_MB, not the
// JSON routes' 10 MiB: the route table must recognise them once Elysia has mounted them (it keeps their
// parsers as `[{ fn: "none" }]`, not as the string the module wrote).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { JSON_BODY_LIMIT } from "../../src/http/body-limit";
import { factsOf, routeTableFrom } from "../../src/http/route-facts";
import { serveTestApp, type TestApp } from "../support/app";
import { seedOrg, seedSession } from "../support/seed";
import { countries, createTileset, waitForVersion } from "../routes/management/tilesets/fixtures";

let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await serveTestApp();
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
});
afterAll(() => t.close());

test("every mounted route that reads its own body is an upload in the route table", () => {
  const table = routeTableFrom(() => t.app.routes);
  const own = t.app.routes.filter((r) => JSON.stringify((r.hooks as { parse?: unknown }).parse ?? null).includes('"none"'));
  // tileset versions, sprites, fonts, gazetteer datasets
  expect(own.length).toBeGreaterThanOrEqual(4);
  for (const route of own) {
    expect({ path: route.path, body: factsOf(route).body }).toEqual({ path: route.path, body: "upload" });
    const concrete = route.path.replace(/:[a-z]+/gi, "x");
    expect({ path: concrete, body: table.find(route.method, concrete).body }).toEqual({ path: concrete, body: "upload" });
  }
});

test("a tileset upload over the JSON routes' limit is accepted and processed (not 413)", async () => {
  await createTileset(t, "acme", headers, { slug: "padded" });
  // Valid GeoJSON padded with whitespace to just over 10 MiB, sent with its Content-Length.
  const json = JSON.stringify(countries());
  const body = json + " ".repeat(JSON_BODY_LIMIT + 1 - json.length);
  const res = await t.fetch("/api/v1/orgs/acme/tilesets/padded/versions?maxzoom=1", { method: "POST", headers, body });
  expect(res.status).toBe(202);
  const v = (await waitForVersion(t, "acme", "padded", 1, headers)) as { state: string };
  expect(v.state).toBe("ready");
});

test("a JSON route still refuses a declared body over 10 MiB with 413", async () => {
  const res = await t.fetch("/api/v1/orgs/acme/tilesets", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ slug: "x", description: " ".repeat(JSON_BODY_LIMIT) }),
  });
  expect(res.status).toBe(413);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
});

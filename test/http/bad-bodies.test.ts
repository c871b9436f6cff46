// Management inputs a careless client sends: a JSON array where an object belongs, a blank name, a
// version number out of range. Each is a 400 whose message names the problem, and changes nothing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../support/app";
import { seedOrg, seedSession } from "../support/seed";

let t: TestApp;
let headers: Record<string, string>;
beforeAll(async () => {
  t = await makeTestApp();
  const org = seedOrg(t.ctx, "acme");
  const session = await seedSession(t.ctx, { orgId: org.id });
  headers = { ...session.headers, "content-type": "application/json" };
  for (const [path, body] of [["/api/v1/orgs/acme/tilesets", { slug: "roads", name: "Roads" }], ["/api/v1/orgs/acme/styles", { slug: "basic", name: "Basic" }]] as const)
    expect((await t.fetch(path, { method: "POST", headers, body: JSON.stringify(body) })).status).toBe(201);
});
afterAll(() => t.close());

async function send(method: string, path: string, body: string) {
  const res = await t.fetch(path, { method, headers, body });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string; details?: unknown[] }; name?: string } };
}

test("a JSON array where an object belongs is refused as such, not as an empty edit or a missing field", async () => {
  for (const [method, path, body] of [
    ["PATCH", "/api/v1/orgs/acme/tilesets/roads", "[]"],
    ["PATCH", "/api/v1/orgs/acme/styles/basic", "[]"],
    ["POST", "/api/v1/orgs/acme/tilesets", '[{"slug":"e5"}]'],
    ["POST", "/api/v1/orgs/acme/keys", '[{"name":"k"}]'],
  ] as const) {
    const r = await send(method, path, body);
    expect([method, path, r.status, r.body.error?.message]).toEqual([method, path, 400, "The body must be a JSON object, not an array"]);
  }
  expect((await (await t.fetch("/api/v1/orgs/acme/tilesets/roads", { headers })).json()).name).toBe("Roads");
});

test("a blank name is refused on tilesets and styles alike; leaving it out still gives the slug", async () => {
  for (const [method, path, body] of [
    ["PATCH", "/api/v1/orgs/acme/tilesets/roads", { name: "" }],
    ["PATCH", "/api/v1/orgs/acme/tilesets/roads", { name: "   " }],
    ["POST", "/api/v1/orgs/acme/tilesets", { slug: "blank", name: " " }],
    ["PATCH", "/api/v1/orgs/acme/styles/basic", { name: "  " }],
    ["POST", "/api/v1/orgs/acme/styles", { slug: "blank", name: "\t" }],
  ] as const) {
    const r = await send(method, path, JSON.stringify(body));
    expect([method, path, r.status, r.body.error?.message]).toEqual([method, path, 400, "'name' must not be blank; leave it out to use the slug"]);
  }
  expect((await (await t.fetch("/api/v1/orgs/acme/tilesets/roads", { headers })).json()).name).toBe("Roads");
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/blank", { headers })).status).toBe(404);
  const unnamed = await send("POST", "/api/v1/orgs/acme/tilesets", JSON.stringify({ slug: "unnamed" }));
  expect([unnamed.status, unnamed.body.name]).toEqual([201, "unnamed"]);
});

test("a version number out of range names what it is and the range", async () => {
  const res = await t.fetch("/api/v1/orgs/acme/tilesets/roads/versions/0", { headers });
  expect(res.status).toBe(400);
  expect((await res.json()).error.message).toBe("Invalid version number 0: expected an integer from 1 to 2147483647");
});

test("a field that fails every branch of a union is listed once in details", async () => {
  const r = await send("POST", "/api/v1/orgs/acme/tilesets/roads/publish", "{}");
  expect(r.status).toBe(400);
  expect(r.body.error!.details).toEqual([{ in: "body", path: "version", message: "expected an integer from 1 to 2147483647" }]);
});

test("a tile's z or x too long to be a zoom or column gets the tile rule's words, not a schema length", async () => {
  const res = await t.fetch("/tiles/v1/acme/roads@1/99999999999999999999/0/0.mvt");
  expect(res.status).toBe(400);
  expect((await res.json()).error.message).toBe("Path parameters z, x and y must be non-negative integers");
});

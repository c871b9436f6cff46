// A Host header that is no host name ("a/b") makes Bun hand the route a url that is its path alone:
// routes that read their query string must not parse that url as a whole URL (it threw: a bare 500).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { serveTestApp, type TestApp } from "../support/app";
import { seedKey, seedOrg } from "../support/seed";

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await serveTestApp();
  const org = seedOrg(t.ctx, "acme");
  key = seedKey(t.ctx, org.id, ["static_maps", "tilesets:write"]).secret;
  const created = await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { "x-api-key": key, "content-type": "application/json" }, body: JSON.stringify({ slug: "roads" }) });
  expect(created.status).toBe(201);
});
afterAll(() => t?.close());

/** curl, not fetch: fetch will not send a Host header of its own choosing. */
async function withHost(method: string, path: string, body?: string) {
  const args = ["curl", "-s", "-i", "-X", method, "-H", "Host: a/b", "-H", `X-API-Key: ${key}`, ...(body ? ["--data-binary", body] : []), t.baseUrl + path];
  const out = await new Response(Bun.spawn(args, { stdout: "pipe" }).stdout).text();
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(out)?.[1]), body: out.slice(out.indexOf("\r\n\r\n") + 4) };
}

test("a static image and a tileset upload with an odd Host answer in the envelope, not 500", async () => {
  const image = await withHost("GET", "/static/v1/acme/nothing/0,0,1/100x100.png?attribution=false");
  expect(image.status).toBe(404);
  expect(JSON.parse(image.body).error.code).toBe("STYLE_NOT_FOUND");
  const upload = await withHost("POST", "/api/v1/orgs/acme/tilesets/roads/versions?maxzoom=99", '{"type":"FeatureCollection","features":[]}');
  expect(upload.status).toBe(400);
  expect(JSON.parse(upload.body).error.message).toContain("maxzoom");
});

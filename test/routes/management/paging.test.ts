// Paging of the management lists (limit, cursor, next_cursor) over HTTP: every item exactly once across
// pages, stable when items are created or deleted between pages, each list in its own order, and bad
// limits and foreign cursors refused with a 400 naming the parameter.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg, seedSession } from "../../support/seed";
import { createTileset, upload, waitForVersion } from "./tilesets/fixtures";

let t: TestApp;
let headers: Record<string, string>;
let admin: Record<string, string>;
let orgId: number;

beforeAll(async () => {
  t = await makeTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  admin = (await seedSession(t.ctx, { isAdmin: true, email: "root@example.com" })).headers;
});
afterAll(() => t?.close());

/** Every page of a list, following next_cursor; the names of each page's items. */
async function pages(path: string, name: string, limit: number, as = headers, between?: (page: number) => Promise<void>) {
  const seen: string[][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 50; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const res = await t.fetch(`${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { headers: as });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown> & { next_cursor?: string };
    const items = body[name] as { slug?: string; id?: number; version?: number }[];
    expect(items.length).toBeLessThanOrEqual(limit);
    seen.push(items.map((i) => String(i.slug ?? i.version ?? i.id)));
    if (body.next_cursor === undefined) return seen;
    cursor = body.next_cursor;
    await between?.(page);
  }
  throw new Error("paging never ended");
}

test("tilesets by slug: pages of `limit`, every one once, next_cursor only while more remain", async () => {
  for (const slug of ["delta", "alpha", "echo", "charlie", "bravo"]) await createTileset(t, "acme", headers, { slug });
  expect(await pages("/api/v1/orgs/acme/tilesets", "tilesets", 2)).toEqual([["alpha", "bravo"], ["charlie", "delta"], ["echo"]]);
  // Exactly filled: no cursor after the last page, and no empty page.
  expect(await pages("/api/v1/orgs/acme/tilesets", "tilesets", 5)).toEqual([["alpha", "bravo", "charlie", "delta", "echo"]]);
  // Without a limit, every item and no cursor, as before lists were paged.
  const all = (await (await t.fetch("/api/v1/orgs/acme/tilesets", { headers })).json()) as { tilesets: unknown[]; next_cursor?: string };
  expect(all.tilesets).toHaveLength(5);
  expect(all.next_cursor).toBeUndefined();
});

test("a page is cut after the last item sent, not at an index: deleting or creating items between pages skips and repeats none", async () => {
  const seen = await pages("/api/v1/orgs/acme/tilesets", "tilesets", 2, headers, async (page) => {
    if (page !== 0) return;
    // alpha and bravo were sent; bravo goes, and a new item sorts before the cursor and one after it.
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/bravo", { method: "DELETE", headers })).status).toBe(204);
    await createTileset(t, "acme", headers, { slug: "aardvark" });
    await createTileset(t, "acme", headers, { slug: "foxtrot" });
  });
  expect(seen).toEqual([["alpha", "bravo"], ["charlie", "delta"], ["echo", "foxtrot"]]);
});

test("styles by slug, keys newest first, versions newest first, organizations by slug", async () => {
  const json = { ...headers, "content-type": "application/json" };
  for (const slug of ["streets", "outdoors", "light"]) expect((await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: json, body: JSON.stringify({ slug }) })).status).toBe(201);
  expect(await pages("/api/v1/orgs/acme/styles", "styles", 2)).toEqual([["light", "outdoors"], ["streets"]]);

  const ids = [1, 2, 3].map(() => seedKey(t.ctx, orgId, ["maps:read"]).id);
  const keyPages = await pages("/api/v1/orgs/acme/keys", "keys", 2);
  expect(keyPages.flat()).toEqual([...ids].reverse().map(String));
  expect(keyPages.map((p) => p.length)).toEqual([2, 1]);

  const geojson = JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [1, 2] } }] });
  for (const n of [1, 2, 3]) {
    await upload(t, "acme", "alpha", headers, geojson, "?maxzoom=2");
    await waitForVersion(t, "acme", "alpha", n, headers);
  }
  expect(await pages("/api/v1/orgs/acme/tilesets/alpha/versions", "versions", 2)).toEqual([["3", "2"], ["1"]]);

  for (const slug of ["zulu", "beta"]) seedOrg(t.ctx, slug);
  expect(await pages("/api/v1/orgs", "orgs", 2, admin)).toEqual([["acme", "beta"], ["zulu"]]);
});

test("a limit outside 1-1000 or a cursor this server did not give is a 400 naming the parameter", async () => {
  for (const limit of ["0", "1001", "-1", "1.5", "ten", ""]) {
    const res = await t.fetch(`/api/v1/orgs/acme/tilesets?limit=${limit}`, { headers });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string; details: { parameter: string } } };
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.details.parameter).toBe("limit");
    expect(error.message).toBe("limit must be a whole number from 1 to 1000");
  }
  // a cursor of another list: a key's id on the list of tilesets
  const keyPage = (await (await t.fetch("/api/v1/orgs/acme/keys?limit=1", { headers })).json()) as { next_cursor: string };
  const crossed = await t.fetch(`/api/v1/orgs/acme/tilesets?cursor=${keyPage.next_cursor}`, { headers });
  expect(crossed.status).toBe(400);
  expect(((await crossed.json()) as { error: { details: { parameter: string } } }).error.details.parameter).toBe("cursor");
  const forged = [Buffer.from('{"after":"x"}').toString("base64url"), "not a cursor!", "x".repeat(600), Buffer.from("[[1]]").toString("base64url")];
  for (const cursor of forged) {
    const res = await t.fetch(`/api/v1/orgs/acme/keys?cursor=${encodeURIComponent(cursor)}`, { headers });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { message: string; details: { parameter: string } } };
    expect(error.details.parameter).toBe("cursor");
    expect(error.message).toContain("cursor is not one this server gave");
  }
});

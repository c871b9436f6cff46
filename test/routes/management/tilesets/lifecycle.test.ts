// The life of a tileset over the management API: create, upload, watch the states, publish, upload
// again while the old version keeps serving, publish the new one, delete versions and the tileset.
// And who may do it: member sessions and keys of the org with tilesets:write.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { countries, countries50m, createTileset, publish, upload, waitForProgress, waitForVersion } from "./fixtures";

let t: TestApp;
let headers: Record<string, string>;
let orgId: number;

beforeAll(async () => {
  t = await makeTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
});
afterAll(() => t.close());

const json = (body: unknown) => ({ method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("records", () => {
  test("create, list, read, edit; slug rules and conflicts", async () => {
    const res = await t.fetch("/api/v1/orgs/acme/tilesets", json({ slug: "roads", name: "Roads", description: "All roads", attribution: "© Us", visibility: "private" }));
    expect(res.status).toBe(201);
    const created = (await res.json()) as any;
    expect(created).toMatchObject({ owner: "acme", slug: "roads", name: "Roads", description: "All roads", attribution: "© Us", visibility: "private", published_version: null, tilejson_url: null });
    expect((await t.fetch("/api/v1/orgs/acme/tilesets", json({ slug: "roads" }))).status).toBe(409);
    const bad = await t.fetch("/api/v1/orgs/acme/tilesets", json({ slug: "Bad Slug" }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.message).toContain("slug");
    const list = (await (await t.fetch("/api/v1/orgs/acme/tilesets", { headers })).json()) as any;
    expect(list.tilesets.map((x: any) => x.slug)).toContain("roads");
    const patched = await t.fetch("/api/v1/orgs/acme/tilesets/roads", { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: "Main roads", visibility: "public" }) });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ name: "Main roads", visibility: "public", description: "All roads" });
    // A typo must not be dropped silently (a tileset meant to be private would go public).
    const typo = await t.fetch("/api/v1/orgs/acme/tilesets", json({ slug: "typo", visiblity: "private" }));
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as any).error.message).toContain("visiblity");
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/typo", { headers })).status).toBe(404);
    const typoPatch = await t.fetch("/api/v1/orgs/acme/tilesets/roads", { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ visibilty: "private" }) });
    expect(typoPatch.status).toBe(400);
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/nope", { headers })).status).toBe(404);
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/Not_A_Slug", { headers })).status).toBe(404);
  });

  test("who may manage: member sessions and keys of the org with tilesets:write", async () => {
    const other = seedOrg(t.ctx, "other");
    const anonymous = await t.fetch("/api/v1/orgs/acme/tilesets");
    expect(anonymous.status).toBe(401);
    const stranger = (await seedSession(t.ctx, { orgId: other.id })).headers;
    const forbidden = await t.fetch("/api/v1/orgs/acme/tilesets", { headers: stranger });
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as any).error.code).toBe("FORBIDDEN");
    expect((await t.fetch("/api/v1/orgs/nowhere/tilesets", { headers })).status).toBe(404);

    const writer = seedKey(t.ctx, orgId, ["tilesets:write"]);
    const keyHeaders = { "x-api-key": writer.secret };
    const created = await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...keyHeaders, "content-type": "application/json" }, body: JSON.stringify({ slug: "by-key" }) });
    expect(created.status).toBe(201);
    const up = await upload(t, "acme", "by-key", keyHeaders, JSON.stringify(countries()));
    expect(up.status).toBe(202);
    expect(((await waitForVersion(t, "acme", "by-key", 1, keyHeaders)) as any).state).toBe("ready");

    const reader = seedKey(t.ctx, orgId, ["maps:read"]);
    const noScope = await t.fetch("/api/v1/orgs/acme/tilesets", { headers: { "x-api-key": reader.secret } });
    expect(noScope.status).toBe(403);
    expect(((await noScope.json()) as any).error.code).toBe("INSUFFICIENT_SCOPE");
    const foreign = seedKey(t.ctx, other.id, ["tilesets:write"]);
    const wrongOrg = await upload(t, "acme", "by-key", { "x-api-key": foreign.secret }, JSON.stringify(countries()));
    expect(wrongOrg.status).toBe(403);
    // a cross-site form post riding on the session cookie is refused
    const csrf = await upload(t, "acme", "by-key", { cookie: headers.cookie!, origin: "https://evil.example" }, JSON.stringify(countries()));
    expect(csrf.status).toBe(403);
  });
});

test("states queued -> processing -> ready with rising progress; publish waits for ready", async () => {
  await createTileset(t, "acme", headers, { slug: "world" });
  const res = await upload(t, "acme", "world", headers, JSON.stringify(await countries50m()), "?maxzoom=6");
  const first = (await res.json()) as any;
  expect(first).toMatchObject({ version: 1, state: "queued", progress: 0, error: null, published: false, source_format: "geojson" });
  const early = await publish(t, "acme", "world", 1, headers);
  expect(early.status).toBe(409);
  expect(((await early.json()) as any).error).toMatchObject({ code: "CONFLICT" });
  const seen: string[] = [];
  const progress: number[] = [];
  const phases = new Set<string>();
  const tilingRates: [number, string, number][] = [];
  for (;;) {
    const v = (await (await t.fetch("/api/v1/orgs/acme/tilesets/world/versions/1", { headers })).json()) as any;
    if (seen[seen.length - 1] !== v.state) seen.push(v.state);
    if (v.state === "processing") progress.push(v.progress);
    if (v.state === "processing" && v.stats.phase) phases.add(v.stats.phase);
    if (v.stats.phase === "tiling" && v.stats.rate !== null) tilingRates.push([v.stats.rate, v.stats.rate_unit, v.stats.eta_seconds]);
    if (v.state === "ready" || v.state === "failed") break;
    await Bun.sleep(10);
  }
  expect(seen.filter((s) => s !== "queued")).toEqual(["processing", "ready"]);
  expect(progress.length).toBeGreaterThan(1);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  // Phases in order of the work. A rate appears once a phase has run half a second, which this small job
  // may not reach on a fast machine: when it does, it is in tiles/s with an ETA (test/tiles/progress-rate
  // covers the arithmetic).
  expect([...phases].filter((p) => p !== "indexing" && p !== "writing")).toEqual(["reading", "tiling"]);
  for (const [rate, unit, eta] of tilingRates) {
    expect(unit).toBe("tiles/s");
    expect(rate >= 0 && eta >= 0).toBe(true);
  }
  const ready = (await (await t.fetch("/api/v1/orgs/acme/tilesets/world/versions/1", { headers })).json()) as any;
  expect(ready.progress).toBe(100);
  expect(ready.stats.tiles).toBeGreaterThan(1000);
  expect(ready.tilejson_url).toBe(`${t.baseUrl}/tiles/v1/acme/world@1.json`);
});

test("publishing: the old version serves until the new one is published; deletes", async () => {
  await createTileset(t, "acme", headers, { slug: "life" });
  await upload(t, "acme", "life", headers, JSON.stringify(countries()), "?layer=v1&maxzoom=2");
  await waitForVersion(t, "acme", "life", 1, headers);
  expect((await t.fetch("/tiles/v1/acme/life.json")).status).toBe(404);
  const pub1 = await publish(t, "acme", "life", 1, headers);
  expect(pub1.status).toBe(200);
  expect(await pub1.json()).toMatchObject({ published_version: 1, tilejson_url: `${t.baseUrl}/tiles/v1/acme/life.json` });
  const stable1 = (await (await t.fetch("/tiles/v1/acme/life.json")).json()) as any;
  expect(stable1.tiles).toEqual([`${t.baseUrl}/tiles/v1/acme/life@1/{z}/{x}/{y}.mvt`]);

  await upload(t, "acme", "life", headers, JSON.stringify(countries()), "?layer=v2&maxzoom=2");
  const v2 = (await waitForVersion(t, "acme", "life", 2, headers)) as any;
  expect(v2.layers[0].id).toBe("v2");
  // v2 is ready but not published: the stable TileJSON still says v1
  expect(((await (await t.fetch("/tiles/v1/acme/life.json")).json()) as any).vector_layers[0].id).toBe("v1");
  // ... and v2's own URLs answer only to the organization, never cached as immutable, until published
  expect(v2.published_at).toBeNull();
  for (const path of ["/tiles/v1/acme/life@2/0/0/0.mvt", "/tiles/v1/acme/life@2.json"]) {
    const anonymous = await t.fetch(path);
    expect(anonymous.status).toBe(404);
    expect(((await anonymous.json()) as any).error.code).toBe("TILESET_NOT_FOUND");
    const member = await t.fetch(path, { headers });
    expect(member.status).toBe(200);
    expect(member.headers.get("cache-control")).toBe("private");
  }
  expect((await publish(t, "acme", "life", 2, headers)).status).toBe(200);
  const published2 = (await (await t.fetch("/api/v1/orgs/acme/tilesets/life/versions/2", { headers })).json()) as any;
  expect(Date.parse(published2.published_at)).toBeGreaterThan(Date.now() - 60_000);
  const anonymous2 = await t.fetch("/tiles/v1/acme/life@2/0/0/0.mvt");
  expect(anonymous2.status).toBe(200);
  expect(anonymous2.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  const stable2 = (await (await t.fetch("/tiles/v1/acme/life.json")).json()) as any;
  expect(stable2.tiles).toEqual([`${t.baseUrl}/tiles/v1/acme/life@2/{z}/{x}/{y}.mvt`]);
  expect(stable2.vector_layers[0].id).toBe("v2");
  expect((await t.fetch("/tiles/v1/acme/life@1/0/0/0.mvt")).status).toBe(200);

  const list = (await (await t.fetch("/api/v1/orgs/acme/tilesets/life/versions", { headers })).json()) as any;
  expect(list.versions.map((v: any) => [v.version, v.published])).toEqual([[2, true], [1, false]]);

  expect((await publish(t, "acme", "life", 9, headers)).status).toBe(404);
  const delPublished = await t.fetch("/api/v1/orgs/acme/tilesets/life/versions/2", { method: "DELETE", headers });
  expect(delPublished.status).toBe(409);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/life/versions/1", { method: "DELETE", headers })).status).toBe(204);
  expect((await t.fetch("/tiles/v1/acme/life@1/0/0/0.mvt")).status).toBe(404);
  expect((await t.fetch("/tiles/v1/acme/life@1.json")).status).toBe(404);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/life/versions/1", { headers })).status).toBe(404);

  const unpub = await t.fetch("/api/v1/orgs/acme/tilesets/life/unpublish", { method: "POST", headers });
  expect(((await unpub.json()) as any).published_version).toBeNull();
  expect((await t.fetch("/tiles/v1/acme/life.json")).status).toBe(404);
  expect((await t.fetch("/tiles/v1/acme/life@2.json")).status).toBe(200);

  const dir = readdirSync(join(t.dataDir, "tilesets"));
  expect(dir.length).toBeGreaterThan(0);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/life", { method: "DELETE", headers })).status).toBe(204);
  expect((await t.fetch("/tiles/v1/acme/life@2/0/0/0.mvt")).status).toBe(404);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/life", { headers })).status).toBe(404);
  expect(readdirSync(join(t.dataDir, "tilesets")).length).toBe(dir.length - 1);

  // Made again, the slug goes on counting: life@1 and life@2 were cached as immutable.
  await createTileset(t, "acme", headers, { slug: "life" });
  const again = (await (await upload(t, "acme", "life", headers, JSON.stringify(countries()), "?maxzoom=1")).json()) as any;
  expect(again.version).toBe(3);
  await waitForVersion(t, "acme", "life", 3, headers);
  expect((await t.fetch("/tiles/v1/acme/life@1.json")).status).toBe(404);
  expect((await t.fetch("/tiles/v1/acme/life@3.json", { headers })).status).toBe(200);
});

test("editing a tileset changes its stable TileJSON; a versioned TileJSON, served as immutable, keeps its words", async () => {
  await createTileset(t, "acme", headers, { slug: "words", name: "Words", attribution: "© Old" });
  await upload(t, "acme", "words", headers, JSON.stringify(countries()), "?maxzoom=1");
  await waitForVersion(t, "acme", "words", 1, headers);
  expect((await publish(t, "acme", "words", 1, headers)).status).toBe(200);
  const before = await t.fetch("/tiles/v1/acme/words@1.json");
  const etag = before.headers.get("etag")!;
  expect(await before.json()).toMatchObject({ name: "Words", attribution: "© Old" });

  const patch = { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ name: "Renamed", attribution: "© New" }) };
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/words", patch)).status).toBe(200);
  const stable = await t.fetch("/tiles/v1/acme/words.json");
  expect(stable.headers.get("cache-control")).toBe("public, max-age=60");
  expect(await stable.json()).toMatchObject({ name: "Renamed", attribution: "© New" });
  const versioned = await t.fetch("/tiles/v1/acme/words@1.json");
  expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  expect(versioned.headers.get("etag")).toBe(etag);
  expect(await versioned.json()).toMatchObject({ name: "Words", attribution: "© Old" });
  expect((await t.fetch("/tiles/v1/acme/words@1.json", { headers: { "if-none-match": etag } })).status).toBe(304);
  // The next version takes the words the tileset has when it becomes ready.
  await upload(t, "acme", "words", headers, JSON.stringify(countries()), "?maxzoom=1");
  await waitForVersion(t, "acme", "words", 2, headers);
  expect(await (await t.fetch("/tiles/v1/acme/words@2.json", { headers })).json()).toMatchObject({ name: "Renamed", attribution: "© New" });
});

test("deleting a version while it processes stops the work and leaves no files", async () => {
  await createTileset(t, "acme", headers, { slug: "cancel" });
  await upload(t, "acme", "cancel", headers, JSON.stringify(await countries50m()), "?maxzoom=8");
  await waitForProgress(t, "acme", "cancel", 1, headers, 35);
  expect((await t.fetch("/api/v1/orgs/acme/tilesets/cancel/versions/1", { method: "DELETE", headers })).status).toBe(204);
  // The worker notices at once; give it a moment to clean up.
  const tilesetDirs = () => readdirSync(join(t.dataDir, "tilesets")).flatMap((d) => readdirSync(join(t.dataDir, "tilesets", d)).map((f) => `${d}/${f}`));
  for (let i = 0; i < 100 && tilesetDirs().some((f) => f.includes(".tmp")); i++) await Bun.sleep(20);
  expect(tilesetDirs().filter((f) => f.includes(".tmp"))).toEqual([]);
  expect(readdirSync(join(t.dataDir, "uploads"))).toEqual([]);
  // the queue moves on, and version numbers are never reused
  const next = (await (await upload(t, "acme", "cancel", headers, JSON.stringify(countries()), "?maxzoom=1")).json()) as any;
  expect(next.version).toBe(2);
  expect(((await waitForVersion(t, "acme", "cancel", 2, headers)) as any).state).toBe("ready");
  expect(existsSync(join(t.dataDir, "tilesets"))).toBe(true);
});

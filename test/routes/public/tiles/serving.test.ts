// The public tile routes: TileJSON 3.0.0 (stable and versioned) with absolute URLs from PUBLIC_URL,
// tiles with gzip negotiation, strong ETags and 304, 204 empty / 404 outside, cache headers, HEAD,
// CORS, private tilesets behind maps:read, and the lookup cache following publishes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { countries, createTileset, publish, upload, waitForVersion } from "../../management/tilesets/fixtures";

const PUBLIC = "https://maps.example.com";
let t: TestApp;
let headers: Record<string, string>;
let orgId: number;

async function ready(slug: string, body: string, query: string, extra: Record<string, unknown> = {}) {
  await createTileset(t, "acme", headers, { slug, ...extra });
  await upload(t, "acme", slug, headers, body, query);
  const v = (await waitForVersion(t, "acme", slug, 1, headers)) as any;
  expect(v.state).toBe("ready");
  expect((await publish(t, "acme", slug, 1, headers)).status).toBe(200);
}

beforeAll(async () => {
  t = await makeTestApp({ PUBLIC_URL: PUBLIC });
  orgId = seedOrg(t.ctx, "acme").id;
  headers = (await seedSession(t.ctx, { orgId })).headers;
  const world = JSON.stringify(countries());
  const brazil = JSON.stringify(countries().features.find((f) => f.properties?.name === "Brazil"));
  await ready("world", world, "?maxzoom=4", { name: "World", attribution: "© Natural Earth", description: "Countries" });
  await ready("brazil", brazil, "?minzoom=2&maxzoom=5");
  await ready("secret", world, "?maxzoom=1", { visibility: "private" });
});
afterAll(() => t.close());

describe("TileJSON", () => {
  test("stable: the published version, absolute versioned tile URLs, max-age=60 with ETag and 304", async () => {
    const res = await t.fetch("/tiles/v1/acme/world.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const tj = (await res.json()) as any;
    expect(tj).toMatchObject({
      tilejson: "3.0.0",
      name: "World",
      description: "Countries",
      attribution: "© Natural Earth",
      scheme: "xyz",
      tiles: [`${PUBLIC}/tiles/v1/acme/world@1/{z}/{x}/{y}.mvt`],
      minzoom: 0,
      maxzoom: 4,
      vector_layers: [{ id: "world", fields: { name: "String" }, minzoom: 0, maxzoom: 4 }],
    });
    expect(tj.bounds).toHaveLength(4);
    expect(tj.center).toHaveLength(3);
    const again = await t.fetch("/tiles/v1/acme/world.json", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
  });

  test("versioned: immutable for a year; unknown or malformed names are 404", async () => {
    const res = await t.fetch("/tiles/v1/acme/world@1.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(((await res.json()) as any).tiles).toEqual([`${PUBLIC}/tiles/v1/acme/world@1/{z}/{x}/{y}.mvt`]);
    for (const path of ["/tiles/v1/acme/world@2.json", "/tiles/v1/acme/nope.json", "/tiles/v1/nobody/world.json", "/tiles/v1/acme/world@0.json", "/tiles/v1/acme/world@x.json", "/tiles/v1/acme/world"]) {
      const r = await t.fetch(path);
      expect(r.status).toBe(404);
      expect(r.headers.get("x-request-id")).toBeTruthy();
    }
    expect(((await (await t.fetch("/tiles/v1/acme/nope.json")).json()) as any).error.code).toBe("TILESET_NOT_FOUND");
  });

  test("one slug@version grammar: a malformed name is 404 NOT_FOUND for TileJSON and tiles alike", async () => {
    expect((await t.fetch("/tiles/v1/acme/world@1/0/0/0.mvt")).status).toBe(200);
    for (const name of ["world@0", "world@01", "world@1@1", "world@1.0", "world@1000000000", "World@1", "world@", "@1"]) {
      for (const path of [`/tiles/v1/acme/${name}.json`, `/tiles/v1/acme/${name}/0/0/0.mvt`]) {
        const r = await t.fetch(path);
        expect([path, r.status, ((await r.json()) as any).error.code]).toEqual([path, 404, "NOT_FOUND"]);
      }
    }
  });
});

describe("tiles", () => {
  test("gzip stored, sent as is when accepted, decoded otherwise; strong ETags per encoding; 304", async () => {
    const gz = await t.fetch("/tiles/v1/acme/world@1/0/0/0.mvt", { headers: { "accept-encoding": "br, gzip" } });
    expect(gz.status).toBe(200);
    expect(gz.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(gz.headers.get("vary")).toContain("Accept-Encoding");
    expect(gz.headers.get("access-control-allow-origin")).toBe("*");
    const gzBytes = new Uint8Array(await gz.arrayBuffer());
    expect(gzBytes[0]).toBe(0x1f);
    const plain = await t.fetch("/tiles/v1/acme/world@1/0/0/0.pbf");
    expect(plain.headers.get("content-encoding")).toBeNull();
    const plainBytes = new Uint8Array(await plain.arrayBuffer());
    expect(plainBytes).toEqual(Bun.gunzipSync(gzBytes));
    const refused = await t.fetch("/tiles/v1/acme/world@1/0/0/0.mvt", { headers: { "accept-encoding": "gzip;q=0, identity" } });
    expect(refused.headers.get("content-encoding")).toBeNull();
    const etagGz = gz.headers.get("etag")!;
    const etagPlain = plain.headers.get("etag")!;
    expect(etagGz).toMatch(/^"[^"]+"$/);
    expect(etagGz).not.toBe(etagPlain);
    const cached = await t.fetch("/tiles/v1/acme/world@1/0/0/0.mvt", { headers: { "accept-encoding": "gzip", "if-none-match": `"other", ${etagGz}` } });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe("");
    const stale = await t.fetch("/tiles/v1/acme/world@1/0/0/0.mvt", { headers: { "accept-encoding": "gzip", "if-none-match": etagPlain } });
    expect(stale.status).toBe(200);
  });

  test("HEAD answers the headers without a body", async () => {
    const res = await t.fetch("/tiles/v1/acme/world@1/1/0/0.mvt", { method: "HEAD", headers: { "accept-encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
    expect(res.headers.get("etag")).toBeTruthy();
    expect(await res.text()).toBe("");
  });

  test("204 for empty tiles inside zoom range and bounds; 404 TILE_NOT_FOUND outside", async () => {
    const statuses = new Map<number, number>();
    for (let x = 0; x < 16; x++)
      for (let y = 0; y < 16; y++) {
        const r = await t.fetch(`/tiles/v1/acme/world@1/4/${x}/${y}.mvt`);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 204) {
          expect(await r.text()).toBe("");
          expect(r.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
        }
      }
    expect([...statuses.keys()].sort()).toEqual([200, 204]);
    expect(statuses.get(204)).toBeGreaterThan(20);

    const beyondZoom = await t.fetch("/tiles/v1/acme/world@1/5/0/0.mvt");
    expect(beyondZoom.status).toBe(404);
    expect(((await beyondZoom.json()) as any).error.code).toBe("TILE_NOT_FOUND");
    expect((await t.fetch("/tiles/v1/acme/brazil@1/1/0/0.mvt")).status).toBe(404); // below minzoom
    // Outside the bounds but inside the zoom range: empty, as TileServer GL, martin and pmtiles serve answer
    // (GDAL's ogr2ogr asks one tile past the bounds and fails on a 404).
    const outside = await t.fetch("/tiles/v1/acme/brazil@1/5/0/0.mvt");
    expect(outside.status).toBe(204);
    expect(outside.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await t.fetch("/tiles/v1/acme/brazil@1/5/11/17.mvt")).status).toBe(200); // Brazil itself
    expect((await t.fetch("/tiles/v1/acme/world@1/2/4/0.mvt")).status).toBe(404); // x beyond 2^z
  });

  test("extension must match the archive; bad numbers are 400; unknown versions 404", async () => {
    const png = await t.fetch("/tiles/v1/acme/world@1/0/0/0.png");
    expect(png.status).toBe(404);
    expect(((await png.json()) as any).error.message).toContain(".mvt");
    const bad = await t.fetch("/tiles/v1/acme/world@1/a/0/0.mvt");
    expect(bad.status).toBe(400);
    expect((await t.fetch("/tiles/v1/acme/world@7/0/0/0.mvt")).status).toBe(404);
    expect((await t.fetch("/tiles/v1/acme/world/0/0/0.mvt")).status).toBe(404);
  });
});

describe("private tilesets", () => {
  test("anonymous and foreign callers get the same 404 as for a missing tileset", async () => {
    const other = seedOrg(t.ctx, "other");
    const foreignKey = seedKey(t.ctx, other.id, ["maps:read"]);
    for (const h of [{}, { "x-api-key": foreignKey.secret }] as Record<string, string>[]) {
      for (const [priv, missing] of [
        ["/tiles/v1/acme/secret.json", "/tiles/v1/acme/missing.json"],
        ["/tiles/v1/acme/secret@1.json", "/tiles/v1/acme/missing@1.json"],
        ["/tiles/v1/acme/secret@1/0/0/0.mvt", "/tiles/v1/acme/missing@1/0/0/0.mvt"],
      ] as const) {
        const a = await t.fetch(priv, { headers: h });
        const b = await t.fetch(missing, { headers: h });
        expect(a.status).toBe(404);
        expect(b.status).toBe(404);
        const ea = ((await a.json()) as any).error;
        const eb = ((await b.json()) as any).error;
        expect(ea.code).toBe(eb.code);
        expect(ea.message.replace("secret", "missing")).toBe(eb.message);
      }
    }
  });

  test("a key of the org with maps:read, or a member session, reads them with Cache-Control private", async () => {
    const key = seedKey(t.ctx, orgId, ["maps:read"]);
    const withKey = await t.fetch("/tiles/v1/acme/secret.json", { headers: { "x-api-key": key.secret } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get("cache-control")).toBe("private");
    const tile = await t.fetch("/tiles/v1/acme/secret@1/0/0/0.mvt", { headers: { "x-api-key": key.secret } });
    expect(tile.status).toBe(200);
    expect(tile.headers.get("cache-control")).toBe("private");
    const member = await t.fetch("/tiles/v1/acme/secret@1/1/0/0.mvt", { headers: { cookie: headers.cookie! } });
    expect(member.status).toBe(200);
    const wrongScope = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await t.fetch("/tiles/v1/acme/secret@1/0/0/0.mvt", { headers: { "x-api-key": wrongScope.secret } })).status).toBe(404);
  });

  test("a private TileJSON a member has read (and the server remembers) is still 404 to everyone else", async () => {
    const key = seedKey(t.ctx, orgId, ["maps:read"]);
    const foreign = seedKey(t.ctx, seedOrg(t.ctx, "foreign").id, ["maps:read"]);
    for (const path of ["/tiles/v1/acme/secret.json", "/tiles/v1/acme/secret@1.json"]) {
      for (let i = 0; i < 2; i++) expect((await t.fetch(path, { headers: { "x-api-key": key.secret } })).status).toBe(200);
      expect((await t.fetch(path)).status).toBe(404);
      expect((await t.fetch(path, { headers: { "x-api-key": foreign.secret } })).status).toBe(404);
      expect((await t.fetch(path, { headers: { cookie: headers.cookie! } })).status).toBe(200);
    }
  });

  test("making a tileset private takes effect at once", async () => {
    expect((await t.fetch("/tiles/v1/acme/brazil@1/5/11/17.mvt")).status).toBe(200);
    // Read (and so remembered) while public.
    for (const path of ["/tiles/v1/acme/brazil.json", "/tiles/v1/acme/brazil@1.json"]) expect((await t.fetch(path)).status).toBe(200);
    await t.fetch("/api/v1/orgs/acme/tilesets/brazil", { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ visibility: "private" }) });
    expect((await t.fetch("/tiles/v1/acme/brazil@1/5/11/17.mvt")).status).toBe(404);
    expect((await t.fetch("/tiles/v1/acme/brazil.json")).status).toBe(404);
    expect((await t.fetch("/tiles/v1/acme/brazil@1.json")).status).toBe(404);
    await t.fetch("/api/v1/orgs/acme/tilesets/brazil", { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ visibility: "public" }) });
    expect((await t.fetch("/tiles/v1/acme/brazil@1/5/11/17.mvt")).status).toBe(200);
  });
});

test("a publish by another process (the CLI) reaches the cached stable TileJSON within seconds", async () => {
  await upload(t, "acme", "world", headers, JSON.stringify(countries()), "?maxzoom=2");
  expect(((await waitForVersion(t, "acme", "world", 2, headers)) as any).state).toBe("ready");
  expect(((await (await t.fetch("/tiles/v1/acme/world.json")).json()) as any).maxzoom).toBe(4);
  const cli = Bun.spawn(["bun", join(import.meta.dir, "../../../../src/main.ts"), "tilesets", "publish", "--org", "acme", "--slug", "world", "--version", "2"], {
    env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: "error", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await cli.exited).toBe(0);
  let maxzoom = 4;
  for (let i = 0; i < 40 && maxzoom === 4; i++) {
    await Bun.sleep(50);
    maxzoom = ((await (await t.fetch("/tiles/v1/acme/world.json")).json()) as any).maxzoom;
  }
  expect(maxzoom).toBe(2);
});

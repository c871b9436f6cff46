import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedOrg, seedSession } from "../../support/seed";
import { json, mapStyle, seedTileset } from "./styles/helpers";
import { readPng } from "../../../src/sprites/png";
import { enc, pinSvg, squareSvg, zipOf } from "../../sprites/fixtures";

let t: TestApp;
let s: Awaited<ReturnType<typeof seedSession>>;
const BASE = "http://localhost:8080";
const upload = (body: BodyInit | Uint8Array, contentType?: string, query = "", style = "icons") =>
  t.fetch(`/api/v1/orgs/acme/styles/${style}/sprite${query}`, { method: "PUT", headers: { ...s.headers, ...(contentType ? { "content-type": contentType } : {}) }, body: body as BodyInit });

beforeAll(async () => {
  t = await makeTestApp();
  const org = seedOrg(t.ctx, "acme");
  s = await seedSession(t.ctx, { orgId: org.id });
  seedTileset(t.ctx, org.id, "countries");
  await t.fetch("/api/v1/orgs/acme/styles", json(s.headers, { slug: "icons" }));
});
afterAll(() => t.close());

describe("sprite uploads", () => {
  test("a zip of SVGs becomes the draft sprite; the style can then reference it and publish it", async () => {
    const res = await upload(zipOf({ "pin.svg": pinSvg, "park.svg": squareSvg("#00aa00") }), "application/zip");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ icons: ["park", "pin"], source: "svg" });

    const detail = await (await t.fetch("/api/v1/orgs/acme/styles/icons", { headers: s.headers })).json();
    expect(detail.has_sprite).toBe(true);
    expect(detail.sprite_icons).toEqual(["park", "pin"]);
    const draftJson = await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite@2x.json", { headers: s.headers });
    expect((await draftJson.json()).pin).toMatchObject({ width: 40, height: 48, pixelRatio: 2 });

    const style = mapStyle("acme", { sprite: "icons" });
    expect((await t.fetch("/api/v1/orgs/acme/styles/icons/draft", json(s.headers, style, "PUT"))).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/icons/publish", { method: "POST", headers: s.headers })).status).toBe(200);

    const stable = await (await t.fetch("/styles/v1/acme/icons")).json();
    expect(stable.sprite).toBe(`${BASE}/styles/v1/acme/icons/sprite`);
    const v1 = await (await t.fetch("/styles/v1/acme/icons@1")).json();
    expect(v1.sprite).toBe(`${BASE}/styles/v1/acme/icons@1/sprite`);

    const index = await t.fetch("/styles/v1/acme/icons@1/sprite.json");
    expect(index.status).toBe(200);
    expect(index.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(index.headers.get("access-control-allow-origin")).toBe("*");
    const entries = await index.json();
    const png = await t.fetch("/styles/v1/acme/icons@1/sprite.png");
    expect(png.headers.get("content-type")).toBe("image/png");
    const info = readPng(new Uint8Array(await png.arrayBuffer()));
    for (const e of Object.values(entries) as { x: number; y: number; width: number; height: number }[]) {
      expect(e.x + e.width).toBeLessThanOrEqual(info.width);
      expect(e.y + e.height).toBeLessThanOrEqual(info.height);
    }
    const stablePng = await t.fetch("/styles/v1/acme/icons/sprite@2x.png");
    expect(stablePng.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = stablePng.headers.get("etag")!;
    expect((await t.fetch("/styles/v1/acme/icons/sprite@2x.png", { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  test("a published version keeps its sprite snapshot when the draft sprite is replaced", async () => {
    const before = await (await t.fetch("/styles/v1/acme/icons@1/sprite.json")).json();
    const res = await upload(enc(squareSvg("#ff0000")), "image/svg+xml", "?name=only-red");
    expect(res.status).toBe(200);
    expect((await res.json()).icons).toEqual(["only-red"]);
    expect(await (await t.fetch("/styles/v1/acme/icons@1/sprite.json")).json()).toEqual(before);
    expect(await (await t.fetch("/styles/v1/acme/icons/sprite.json")).json()).toEqual(before);
    // Old draft directories are cleaned up; the version directory stays.
    const dirs = readdirSync(join(t.dataDir, "sprites", String(1))).sort();
    expect(dirs.filter((d) => d.startsWith("draft-")).length).toBe(1);
    expect(dirs.filter((d) => /^v1-/.test(d)).length).toBe(1);
    // After publishing, version 2 serves the new sprite.
    await t.fetch("/api/v1/orgs/acme/styles/icons/publish", { method: "POST", headers: s.headers });
    expect(Object.keys(await (await t.fetch("/styles/v1/acme/icons@2/sprite.json")).json())).toEqual(["only-red"]);
    expect(Object.keys(await (await t.fetch("/styles/v1/acme/icons/sprite.json")).json())).toEqual(["only-red"]);
  });

  test("multipart: SVG files, or a ready sprite.json + sprite.png pair validated against the image", async () => {
    const form = new FormData();
    form.append("file", new Blob([squareSvg("#123")], { type: "image/svg+xml" }), "a.svg");
    form.append("file", new Blob([squareSvg("#456")], { type: "image/svg+xml" }), "b.svg");
    const res = await upload(form);
    expect(res.status).toBe(200);
    expect((await res.json()).icons).toEqual(["a", "b"]);

    const png = new Uint8Array(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.png", { headers: s.headers })).arrayBuffer());
    const index = await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).json();
    const pair = new FormData();
    pair.append("json", new Blob([JSON.stringify(index)]), "sprite.json");
    pair.append("png", new Blob([png]), "sprite.png");
    const ok = await upload(pair);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ source: "ready", icons: ["a", "b"] });
    // Without a @2x pair, the 1x files answer @2x requests too.
    expect(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite@2x.json", { headers: s.headers })).json()).toEqual(index);

    const outside = new FormData();
    outside.append("json", new Blob([JSON.stringify({ ...index, wide: { x: 0, y: 0, width: 5000, height: 1, pixelRatio: 1 } })]), "sprite.json");
    outside.append("png", new Blob([png]), "sprite.png");
    const bad = await upload(outside);
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("'wide'");

    const notPng = new FormData();
    notPng.append("json", new Blob([JSON.stringify(index)]), "sprite.json");
    notPng.append("png", new Blob(["GIF89a"]), "sprite.png");
    expect((await (await upload(notPng)).json()).error.message).toContain("sprite.png does not decode");

    const half = new FormData();
    half.append("json", new Blob([JSON.stringify(index)]), "sprite.json");
    expect((await (await upload(half)).json()).error.message).toContain("both sprite.json and sprite.png");

    // A sheet keeps the name its tool gave it; a @2x pair alone serves both ratios.
    const named = new FormData();
    named.append("json", new Blob([JSON.stringify(index)]), "icons.json");
    named.append("png", new Blob([png]), "icons.png");
    expect(await (await upload(named)).json()).toMatchObject({ source: "ready", icons: ["a", "b"] });
    const retina = new FormData();
    retina.append("json", new Blob([JSON.stringify(index)]), "icons@2x.json");
    retina.append("png", new Blob([png]), "icons@2x.png");
    expect((await upload(retina)).status).toBe(200);
    expect(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).json()).toEqual(index);
    const two = new FormData();
    two.append("json", new Blob([JSON.stringify(index)]), "icons.json");
    two.append("png", new Blob([png]), "other.png");
    expect((await (await upload(two)).json()).error.message).toContain("share one name, but these name 2: 'icons', 'other'");
  });

  test("bad uploads are clear 4xx errors and leave the current sprite alone", async () => {
    const before = await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).text();
    const cases: [Promise<Response>, number, RegExp][] = [
      [upload(zipOf({ "../../etc/x.svg": squareSvg("#000") }), "application/zip"), 400, /unsafe path/],
      [upload(zipOf({ "evil.svg": `<svg xmlns="http://www.w3.org/2000/svg"><image href="http://x.example/a.png"/></svg>` }), "application/zip"), 400, /'evil'.*<image>/],
      [upload(zipOf({ "x.svg": `<!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>` }), "application/zip"), 400, /DOCTYPE/],
      [upload(zipOf({ "big.svg": squareSvg("#000", 5000) }), "application/zip"), 400, /2048 px/],
      [upload(zipOf({ "bomb.svg": new Uint8Array(20 * 1024 * 1024) }), "application/zip"), 400, /byte limit per SVG/],
      [upload(enc(squareSvg("#000")), "image/svg+xml"), 400, /'name' is required/],
      [upload(enc(squareSvg("#000")), "image/svg+xml", "?name=../../x"), 400, /icon names/],
      [upload(enc("hello"), "text/plain"), 415, /not a sprite upload/],
      [upload(new Uint8Array(0), "application/zip"), 400, /empty/],
      [upload(enc("PK\u0003\u0004garbage"), "application/zip"), 400, /could not be read|not a zip/],
    ];
    for (const [req, status, message] of cases) {
      const res = await req;
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(body.error.message).toMatch(message);
    }
    expect(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).text()).toBe(before);
  });

  test("an icon named __proto__ is refused naming it in every upload form, and the sprite stays as it was", async () => {
    const before = await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).text();
    const png = new Uint8Array(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.png", { headers: s.headers })).arrayBuffer());
    const form = new FormData();
    form.append("file", new Blob([squareSvg("#123")], { type: "image/svg+xml" }), "__proto__.svg");
    const pair = new FormData();
    // JSON.parse makes "__proto__" an ordinary key; assigning it to a plain object would not.
    pair.append("json", new Blob([`{"__proto__":{"x":0,"y":0,"width":1,"height":1,"pixelRatio":1},${before.slice(1)}`]), "sprite.json");
    pair.append("png", new Blob([png]), "sprite.png");
    const cases: [string, Promise<Response>, RegExp][] = [
      ["svg", upload(enc(squareSvg("#000")), "image/svg+xml", "?name=__proto__"), /'__proto__'.*reserved/],
      ["zip", upload(zipOf({ "__proto__.svg": squareSvg("#000"), "pin.svg": pinSvg }), "application/zip"), /'__proto__\.svg'.*reserved/],
      ["multipart", upload(form), /'__proto__\.svg'.*reserved/],
      ["ready pair", upload(pair), /sprite\.json entry '__proto__'.*reserved/],
    ];
    for (const [what, req, message] of cases) {
      const res = await req;
      const body = await res.json();
      expect(res.status, `${what}: ${JSON.stringify(body)}`).toBe(400);
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.message).toMatch(message);
    }
    expect(await (await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).text()).toBe(before);
  });

  test("public sprite routes: unknown files, versions without sprites and private styles are 404", async () => {
    for (const path of ["/styles/v1/acme/icons/sprite.gif", "/styles/v1/acme/icons@9/sprite.json", "/styles/v1/acme/nope/sprite.json", "/styles/v1/acme/icons/../sprite.json"]) {
      expect((await t.fetch(path)).status).toBe(404);
    }
    await t.fetch("/api/v1/orgs/acme/styles", json(s.headers, { slug: "plain" }));
    await t.fetch("/api/v1/orgs/acme/styles/plain/publish", { method: "POST", headers: s.headers });
    expect((await t.fetch("/styles/v1/acme/plain/sprite.json")).status).toBe(404);
    await t.fetch("/api/v1/orgs/acme/styles/icons", json(s.headers, { visibility: "private" }, "PATCH"));
    expect((await t.fetch("/styles/v1/acme/icons/sprite.json")).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/icons/sprite.json", { headers: { cookie: s.cookie } })).status).toBe(200);
  });

  test("the sprite cannot be removed while the draft references it; deleting the style removes its files", async () => {
    const del = await t.fetch("/api/v1/orgs/acme/styles/icons/sprite", { method: "DELETE", headers: s.headers });
    expect(del.status).toBe(409);
    await t.fetch("/api/v1/orgs/acme/styles/icons/draft", json(s.headers, mapStyle("acme"), "PUT"));
    expect((await t.fetch("/api/v1/orgs/acme/styles/icons/sprite", { method: "DELETE", headers: s.headers })).status).toBe(204);
    expect((await t.fetch("/api/v1/orgs/acme/styles/icons/draft/sprite.json", { headers: s.headers })).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/icons@1/sprite.json", { headers: { cookie: s.cookie } })).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/icons", { method: "DELETE", headers: s.headers })).status).toBe(204);
    expect(readdirSync(join(t.dataDir, "sprites"))).not.toContain("1");
  });
});

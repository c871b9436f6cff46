import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { createChangeBus } from "../../../../src/domain/changes/bus";
import { json, mapStyle, publishTilesetVersion, seedTileset } from "./helpers";

let t: TestApp;
let owner: Awaited<ReturnType<typeof seedSession>>;
let outsider: Awaited<ReturnType<typeof seedSession>>;
let orgId: number;
let countriesId: number;
const BASE = "http://localhost:8080";

beforeAll(async () => {
  t = await makeTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  const other = seedOrg(t.ctx, "other");
  owner = await seedSession(t.ctx, { orgId });
  outsider = await seedSession(t.ctx, { orgId: other.id });
  countriesId = seedTileset(t.ctx, orgId, "countries", { versions: 2, published: 1 }).id;
  seedTileset(t.ctx, orgId, "draft-only", { published: null });
  seedTileset(t.ctx, other.id, "secret", { visibility: "private" });
});
afterAll(() => t.close());

const create = (body: unknown, headers = owner.headers) => t.fetch("/api/v1/orgs/acme/styles", json(headers, body));

describe("style management", () => {
  test("create, read the draft, list; the draft is not public", async () => {
    const res = await create({ slug: "streets", name: "Streets", style: mapStyle("acme") });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toMatchObject({ slug: "streets", name: "Streets", visibility: "public", published_version: null, urls: { stable: null } });
    expect(body.draft.sources.countries.url).toBe("mapstead://tilesets/acme/countries");
    // The preview has absolute URLs.
    expect(body.draft_preview.sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries.json`);
    expect(body.draft_preview.glyphs).toBe(`${BASE}/fonts/v1/{fontstack}/{range}.pbf`);

    const list = await (await t.fetch("/api/v1/orgs/acme/styles", { headers: owner.headers })).json();
    expect(list.styles.map((s: { slug: string }) => s.slug)).toContain("streets");

    const pub = await t.fetch("/styles/v1/acme/streets");
    expect(pub.status).toBe(404);
    expect((await pub.json()).error.code).toBe("STYLE_NOT_FOUND");
  });

  test("a duplicate slug is 409, a bad slug 400, a non-object style 422", async () => {
    expect((await create({ slug: "streets" })).status).toBe(409);
    const bad = await create({ slug: "Bad_Slug" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("slug");
    // A typo must not silently publish a style meant to be private.
    const typo = await create({ slug: "x1", visiblity: "private" });
    expect(typo.status).toBe(400);
    expect((await typo.json()).error.message).toContain("'visiblity'");
    const arr = await create({ slug: "x1", style: [1, 2] });
    expect(arr.status).toBe(422);
    expect((await arr.json()).error.code).toBe("INVALID_STYLE");
  });

  test("invalid styles are 422 INVALID_STYLE with every validator message and its path", async () => {
    const style = {
      version: 8,
      sources: { s: { type: "vector", url: "mapstead://tilesets/acme/countries" } },
      layers: [
        { id: "a", type: "fill", source: "s", "source-layer": "x", paint: { "fill-color": 42 } },
        { id: "a", type: "nope", source: "s" },
      ],
    };
    const res = await create({ slug: "broken", style });
    expect(res.status).toBe(422);
    const { error } = await res.json();
    expect(error.code).toBe("INVALID_STYLE");
    const paths = error.details.map((d: { path: string }) => d.path);
    expect(paths).toContain("layers[0].paint.fill-color");
    expect(paths).toContain("layers[1].type");
    expect(error.details.find((d: { path: string }) => d.path === "layers[1]").message).toContain("duplicate layer id");
    expect(error.message).toContain("layers[0].paint.fill-color");
  });

  test("mapstead:// references must resolve: tileset published, pinned version ready, fonts installed, own sprite present", async () => {
    const cases: [unknown, string, RegExp][] = [
      [mapStyle("acme", { tileset: "missing" }), "sources.countries.url", /does not exist or is not published/],
      [mapStyle("acme", { tileset: "draft-only" }), "sources.countries.url", /not published/],
      [mapStyle("acme", { tileset: "countries@9" }), "sources.countries.url", /countries@9' does not exist/],
      [mapStyle("other", { tileset: "secret" }), "sources.countries.url", /does not exist/],
      [mapStyle("acme", { font: "Comic Sans Bold" }), "layers[2].layout.text-font", /not installed: 'Comic Sans Bold'/],
      [mapStyle("acme", { sprite: "streets2" }), "sprite", /only use its own sprite/],
      [{ ...mapStyle("acme"), sprite: [{ id: "default", url: "mapstead://sprites/acme/refs" }] }, "sprite[0].url", /no sprite yet/],
      [{ ...mapStyle("acme"), sprite: "mapstead://sprites/acme" }, "sprite", /must look like/],
      [mapStyle("acme", { tileset: "countries@x" }), "sources.countries.url", /must be a positive integer/],
      [{ ...mapStyle("acme"), glyphs: "mapstead://fonts/{fontstack}.pbf" }, "glyphs", /must be exactly/],
      [{ ...mapStyle("acme"), sources: { c: { type: "vector", tiles: ["mapstead://tilesets/acme/countries"] } }, layers: [] }, "sources.c.tiles[0]", /"url"/],
      // What the tileset holds: its layers, and vector tiles (not images).
      [{ ...mapStyle("acme"), layers: [{ id: "roads", type: "line", source: "countries", "source-layer": "roads" }] }, "layers[0].source-layer", /'roads' is not a layer of tileset 'acme\/countries@\d+' \(its layers: countries\)/],
      [{ ...mapStyle("acme"), sources: { countries: { type: "raster", url: "mapstead://tilesets/acme/countries" } }, layers: [] }, "sources.countries.url", /holds vector tiles: use it in a source of type vector/],
    ];
    for (const [style, path, message] of cases) {
      const res = await create({ slug: "refs", style });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      const hits = error.details.filter((d: { path: string; message: string }) => d.path === path && message.test(d.message));
      expect(hits.length, `${path} ${message} in ${JSON.stringify(error.details)}`).toBe(1);
    }
    // Own sprite, but none uploaded yet.
    const res = await create({ slug: "refs", style: mapStyle("acme", { sprite: "refs" }) });
    expect((await res.json()).error.details[0].message).toContain("no sprite yet");
    // MapLibre's default text-font stack is not installed: a text-field without text-font is refused.
    const noFont = mapStyle("acme");
    delete (noFont.layers[2]!.layout as Record<string, unknown>)["text-font"];
    const res2 = await create({ slug: "refs", style: noFont });
    expect((await res2.json()).error.details[0].message).toContain("Open Sans Regular");
    // Expressions name fonts only in their `literal` stacks: ["zoom"], ["geometry-type"] and match labels
    // are no fonts; a stack is served from the fonts of it that are installed, so one is enough.
    const withFont = (textFont: unknown, textField: unknown = ["get", "name"]) => {
      const style = mapStyle("acme");
      style.layers[2]!.layout = { "text-field": textField, "text-font": textFont } as never;
      return style;
    };
    const good: unknown[] = [
      ["step", ["zoom"], ["literal", ["Noto Sans Regular"]], 5, ["literal", ["Noto Sans Bold"]]],
      ["case", ["==", ["geometry-type"], "Point"], ["literal", ["Noto Sans Bold"]], ["literal", ["Noto Sans Regular"]]],
      ["match", ["get", "country"], ["DE", "FR"], ["literal", ["Noto Sans Bold"]], ["literal", ["Noto Sans Regular"]]],
      ["Noto Sans Regular", "Arial Unicode MS Regular"],
    ];
    for (const textFont of good) {
      const ok = await create({ slug: "fonts-ok", style: withFont(textFont) });
      expect(ok.status, JSON.stringify(textFont)).toBe(201);
      expect((await t.fetch("/api/v1/orgs/acme/styles/fonts-ok", { method: "DELETE", headers: owner.headers })).status).toBe(204);
    }
    const bad: [unknown, unknown, string, string][] = [
      [["step", ["zoom"], ["literal", ["Noto Sans Regular"]], 5, ["literal", ["Comic Sans Bold"]]], ["get", "name"], "layers[2].layout.text-font", "font not installed: 'Comic Sans Bold'"],
      [["Noto Sans Regular"], ["format", ["get", "name"], { "text-font": ["literal", ["Comic Sans Bold", "Papyrus"]] }], "layers[2].layout.text-field", "fonts not installed: 'Comic Sans Bold', 'Papyrus'"],
    ];
    for (const [textFont, textField, path, message] of bad) {
      const res = await create({ slug: "fonts-bad", style: withFont(textFont, textField) });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      const details = error.details as { path: string; message: string; layer?: string }[];
      expect(details.map((d) => d.path)).toEqual([path]);
      expect(details[0]!.message).toStartWith(message);
      // The layer's id, which the author wrote, besides its index.
      expect(details[0]!.layer).toBe("labels");
      expect(error.message).toStartWith(`The style is invalid: ${path} (layer "labels"): ${message}`);
    }
    // External URLs are not checked and pass through.
    const ext = { version: 8, glyphs: "https://fonts.example.com/{fontstack}/{range}.pbf", sources: { x: { type: "vector", url: "https://tiles.example.com/x.json" } }, layers: [] };
    expect((await create({ slug: "external", style: ext })).status).toBe(201);
  });

  test("text needs glyphs: without them a text layer is refused (with the line to add), and its fonts are still checked", async () => {
    const noGlyphs = (layout: Record<string, unknown>) => {
      const style = mapStyle("acme") as Record<string, unknown> & { layers: { layout?: unknown }[] };
      delete style.glyphs;
      style.layers[2]!.layout = layout;
      return style;
    };
    const cases: [Record<string, unknown>, string[]][] = [
      // The reviewers' case: labels MapLibre GL JS would draw in a local font, and the server not at all.
      [{ "text-field": ["get", "name"], "text-font": ["Comic Sans Bold"] }, ["glyphs", "layers[2].layout.text-font"]],
      [{ "text-field": ["get", "name"] }, ["glyphs", "layers[2].layout.text-font"]],
      [{ "text-field": ["get", "name"], "text-font": ["Noto Sans Regular"] }, ["glyphs"]],
    ];
    for (const [layout, paths] of cases) {
      const res = await create({ slug: "no-glyphs", style: noGlyphs(layout) });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      expect(error.code).toBe("INVALID_STYLE");
      expect(error.details.map((d: { path: string }) => d.path)).toEqual(paths);
      expect(error.details[0].message).toBe(
        'layer "labels" draws text (text-field), which needs "glyphs": add "glyphs": "mapstead://fonts/{fontstack}/{range}.pbf" to draw it in the installed fonts (without it, static images and raster tiles show no labels)',
      );
    }
    const draft = await create({ slug: "no-glyphs", style: { ...noGlyphs({ "text-field": "x" }), layers: [] } });
    expect(draft.status).toBe(201);
    const put = await t.fetch("/api/v1/orgs/acme/styles/no-glyphs/draft", json(owner.headers, noGlyphs({ "text-field": "x", "text-font": ["Noto Sans Bold"] }), "PUT"));
    expect(put.status).toBe(422);
    expect((await put.json()).error.message).toStartWith('The style is invalid: glyphs: layer "labels" draws text');
    // Icons alone need no glyphs.
    expect((await t.fetch("/api/v1/orgs/acme/styles/no-glyphs/draft", json(owner.headers, noGlyphs({ "icon-image": "dot" }), "PUT"))).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/no-glyphs", { method: "DELETE", headers: owner.headers })).status).toBe(204);
  });

  test("a vector source's tileSize other than 512 is refused, as MapLibre and Mapbox GL refuse to add it; a raster one's other than 256 or 512", async () => {
    for (const tileSize of [256, "512"]) {
      const style = mapStyle("acme") as Record<string, unknown> & { sources: Record<string, Record<string, unknown>> };
      const [id] = Object.entries(style.sources).find(([, s]) => s.type === "vector")!;
      style.sources[id]!.tileSize = tileSize;
      const res = await create({ slug: "small-tiles", style });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      const hit = (error.details as { path: string; message: string }[]).find((d) => d.path === `sources.${id}.tileSize`);
      expect(hit?.message).toStartWith(`a vector source's tileSize must be 512 (got ${JSON.stringify(tileSize)})`);
    }
    // A raster or raster-dem source takes 256 or 512: a smaller tile size multiplies the tiles one view needs.
    for (const [type, tileSize] of [["raster", 64], ["raster-dem", 1]] as const) {
      const style = mapStyle("acme") as Record<string, unknown> & { sources: Record<string, Record<string, unknown>> };
      style.sources.imagery = { type, tiles: ["https://tiles.example.com/{z}/{x}/{y}.png"], tileSize };
      const res = await create({ slug: "small-raster", style });
      expect(res.status).toBe(422);
      const { error } = await res.json();
      const hit = (error.details as { path: string; message: string }[]).find((d) => d.path === "sources.imagery.tileSize");
      expect(hit?.message).toBe(`a ${type} source's tileSize must be 256 or 512 (got ${tileSize}), the sizes tiles come in`);
    }
    // 512, as MapLibre wants it, or no tileSize at all, is fine.
    const style = mapStyle("acme") as Record<string, unknown> & { sources: Record<string, Record<string, unknown>> };
    const [id] = Object.entries(style.sources).find(([, s]) => s.type === "vector")!;
    style.sources[id]!.tileSize = 512;
    expect((await create({ slug: "big-tiles", style })).status).toBe(201);
  });

  test("absolute URLs on this server are checked like the mapstead:// references they stand for", async () => {
    // another organization's private style, whose raster tiles a source could name
    expect((await t.fetch("/api/v1/orgs/other/styles", json(outsider.headers, { slug: "hidden-map", visibility: "private" }))).status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/other/styles/hidden-map/publish", { method: "POST", headers: outsider.headers })).status).toBe(200);
    const withSource = (source: Record<string, unknown>) => ({ version: 8, sources: { s: source }, layers: [] });
    const refused: [unknown, string, RegExp][] = [
      // The reviewers' case: another organization's private tileset, by its TileJSON URL.
      [withSource({ type: "vector", url: `${BASE}/tiles/v1/other/secret.json` }), "sources.s.url", /tileset 'other\/secret' does not exist or is not published/],
      [withSource({ type: "vector", url: `${BASE}/tiles/v1/other/secret@1.json` }), "sources.s.url", /'other\/secret@1' does not exist/],
      [withSource({ type: "vector", url: "HTTP://LOCALHOST:8080/tiles/v1/other/secret.json?x=1" }), "sources.s.url", /'other\/secret' does not exist/],
      [withSource({ type: "vector", url: `${BASE}/tiles/v1/other/%73ecret.json` }), "sources.s.url", /'other\/secret' does not exist/],
      [withSource({ type: "vector", url: "//localhost:8080/tiles/v1/other/secret.json" }), "sources.s.url", /'other\/secret' does not exist/],
      [withSource({ type: "vector", tiles: [`${BASE}/tiles/v1/other/secret@1/{z}/{x}/{y}.pbf`] }), "sources.s.tiles[0]", /'other\/secret@1' does not exist/],
      [withSource({ type: "raster", url: `${BASE}/styles/v1/other/hidden-map/tiles.json` }), "sources.s.url", /style 'other\/hidden-map' does not exist or is not published/],
      [withSource({ type: "raster", tiles: [`${BASE}/styles/v1/other/hidden-map@1/tiles/256/{z}/{x}/{y}.png`] }), "sources.s.tiles[0]", /style 'other\/hidden-map@1' does not exist/],
      // what the mapstead:// form refuses too: a tileset not published, vector tiles in a raster source
      [withSource({ type: "vector", url: `${BASE}/tiles/v1/acme/draft-only.json` }), "sources.s.url", /not published/],
      [withSource({ type: "raster", url: `${BASE}/tiles/v1/acme/countries.json` }), "sources.s.url", /holds vector tiles/],
      // anything else on this server where a reference goes
      [withSource({ type: "vector", url: `${BASE}/tiles/v1/other/secret/{z}/{x}/{y}.pbf` }), "sources.s.url", /points at this server but not at a tileset: use mapstead:\/\/tilesets/],
      [withSource({ type: "vector", url: `${BASE}/api/v1/orgs/other/tilesets/secret` }), "sources.s.url", /points at this server but not at a tileset/],
      [{ ...mapStyle("acme"), sprite: `${BASE}/styles/v1/other/hidden-map/sprite` }, "sprite", /only use its own sprite/],
      [{ ...mapStyle("acme"), sprite: `${BASE}/api/v1/orgs/acme/styles/x/draft/sprite` }, "sprite", /not at a style's sprite: use mapstead:\/\/sprites/],
      [{ ...mapStyle("acme", { font: "Comic Sans Bold" }), glyphs: `${BASE}/fonts/v1/{fontstack}/{range}.pbf` }, "layers[2].layout.text-font", /not installed: 'Comic Sans Bold'/],
      [{ ...mapStyle("acme"), glyphs: `${BASE}/fonts/v1/{fontstack}.pbf` }, "glyphs", /not at its glyph template/],
    ];
    for (const [style, path, message] of refused) {
      const res = await create({ slug: "absolute", style });
      expect(res.status, JSON.stringify(style)).toBe(422);
      const { error } = await res.json();
      expect(error.code).toBe("INVALID_STYLE");
      const hits = error.details.filter((d: { path: string; message: string }) => d.path === path && message.test(d.message));
      expect(hits.length, `${path} ${message} in ${JSON.stringify(error.details)}`).toBe(1);
    }
    // What the organization may use passes, and the URLs are served as written (not pinned).
    const fine = {
      ...mapStyle("acme"),
      glyphs: `${BASE}/fonts/v1/{fontstack}/{range}.pbf`,
      sources: { countries: { type: "vector", url: `${BASE}/tiles/v1/acme/countries.json` }, pinned: { type: "vector", tiles: [`${BASE}/tiles/v1/acme/countries@1/{z}/{x}/{y}.pbf`] } },
    };
    expect((await create({ slug: "absolute", style: fine })).status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/acme/styles/absolute/publish", { method: "POST", headers: owner.headers })).status).toBe(200);
    expect((await (await t.fetch("/styles/v1/acme/absolute@1")).json()).sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries.json`);
    // Made public, the other organization's style may be drawn as raster tiles.
    await t.fetch("/api/v1/orgs/other/styles/hidden-map", json(outsider.headers, { visibility: "public" }, "PATCH"));
    expect((await create({ slug: "absolute-raster", style: withSource({ type: "raster", url: `${BASE}/styles/v1/other/hidden-map/tiles.json` }) })).status).toBe(201);
    for (const slug of ["absolute", "absolute-raster"]) expect((await t.fetch(`/api/v1/orgs/acme/styles/${slug}`, { method: "DELETE", headers: owner.headers })).status).toBe(204);
  });

  test("publish creates immutable versions that pin tileset versions; stable follows the tileset", async () => {
    const pub = await t.fetch("/api/v1/orgs/acme/styles/streets/publish", { method: "POST", headers: owner.headers });
    expect(pub.status).toBe(200);
    expect(await pub.json()).toEqual({ version: 1, created: true, url: `${BASE}/styles/v1/acme/streets@1` });

    const stable = await t.fetch("/styles/v1/acme/streets");
    expect(stable.status).toBe(200);
    expect(stable.headers.get("cache-control")).toBe("public, max-age=60");
    expect(stable.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(stable.headers.get("access-control-allow-origin")).toBe("*");
    const s = await stable.json();
    expect(s.sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries.json`);
    expect(s.glyphs).toBe(`${BASE}/fonts/v1/{fontstack}/{range}.pbf`);

    const v1 = await t.fetch("/styles/v1/acme/streets@1");
    expect(v1.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await v1.json()).sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries@1.json`);

    // The tileset moves on: version 1 of the style keeps version 1 of the tileset.
    publishTilesetVersion(t.ctx, countriesId, 2);
    const v1again = await (await t.fetch("/styles/v1/acme/streets@1")).json();
    expect(v1again.sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries@1.json`);

    // A draft change is invisible until published; then version 2 pins tileset version 2.
    const draft = mapStyle("acme");
    draft.layers[0]!.paint = { "background-color": "#123456" };
    expect((await t.fetch("/api/v1/orgs/acme/styles/streets/draft", json(owner.headers, draft, "PUT"))).status).toBe(200);
    expect((await (await t.fetch("/styles/v1/acme/streets")).json()).layers[0].paint["background-color"]).toBe("#def");
    const pub2 = await (await t.fetch("/api/v1/orgs/acme/styles/streets/publish", { method: "POST", headers: owner.headers })).json();
    expect(pub2.version).toBe(2);
    expect((await (await t.fetch("/styles/v1/acme/streets")).json()).layers[0].paint["background-color"]).toBe("#123456");
    expect((await (await t.fetch("/styles/v1/acme/streets@2")).json()).sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries@2.json`);
    expect((await (await t.fetch("/styles/v1/acme/streets@1")).json()).layers[0].paint["background-color"]).toBe("#def");

    const versions = await (await t.fetch("/api/v1/orgs/acme/styles/streets/versions", { headers: owner.headers })).json();
    expect(versions.versions.map((v: { version: number; published: boolean; tileset_pins: object }) => [v.version, v.published, v.tileset_pins])).toEqual([
      [2, true, { "acme/countries": 2 }],
      [1, false, { "acme/countries": 1 }],
    ]);
    // Times are ISO 8601 strings, as on tilesets, keys and every other resource.
    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
    for (const v of versions.versions) expect(v.created_at).toMatch(ISO);
    const style = await (await t.fetch("/api/v1/orgs/acme/styles/streets", { headers: owner.headers })).json();
    expect(style.created_at).toMatch(ISO);
    expect(Date.parse(style.updated_at)).toBeGreaterThanOrEqual(Date.parse(style.created_at));
  });

  test("another organization may pin only versions the tileset's owner has published; the owner may pin any ready one", async () => {
    // acme/fresh@2 is ready but was never published: to org "other" it does not exist.
    seedTileset(t.ctx, orgId, "fresh", { versions: 2, published: 1 });
    const pinned = (version: number) => ({ slug: `pins-${version}`, style: { ...mapStyle("acme", { tileset: `fresh@${version}` }) } });
    const refused = await t.fetch("/api/v1/orgs/other/styles", json(outsider.headers, pinned(2)));
    expect(refused.status).toBe(422);
    const error = ((await refused.json()) as any).error;
    expect(error.details.map((d: { message: string }) => d.message)).toEqual(["tileset version 'acme/fresh@2' does not exist or has not finished processing"]);
    expect((await t.fetch("/api/v1/orgs/other/styles", json(outsider.headers, pinned(1)))).status).toBe(201);
    expect((await create(pinned(2))).status).toBe(201);
  });

  test("a reference pinned to a tileset version stays pinned in the stable style too", async () => {
    await create({ slug: "pinned", style: mapStyle("acme", { tileset: "countries@1" }) });
    await t.fetch("/api/v1/orgs/acme/styles/pinned/publish", { method: "POST", headers: owner.headers });
    expect((await (await t.fetch("/styles/v1/acme/pinned")).json()).sources.countries.url).toBe(`${BASE}/tiles/v1/acme/countries@1.json`);
    const versions = await (await t.fetch("/api/v1/orgs/acme/styles/pinned/versions", { headers: owner.headers })).json();
    expect(versions.versions[0].tileset_pins).toEqual({});
  });

  test("ETag and 304 on the stable URL; the ETag changes when a new version is published", async () => {
    const first = await t.fetch("/styles/v1/acme/streets");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await t.fetch("/styles/v1/acme/streets", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(await again.text()).toBe("");
    // Roll back to version 1: the stable URL serves it, with another ETag.
    const rb = await t.fetch("/api/v1/orgs/acme/styles/streets/publish", json(owner.headers, { version: 1 }));
    expect(await rb.json()).toMatchObject({ version: 1, created: false });
    const after = await t.fetch("/styles/v1/acme/streets", { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect((await after.json()).layers[0].paint["background-color"]).toBe("#def");
    await t.fetch("/api/v1/orgs/acme/styles/streets/publish", json(owner.headers, { version: 2 }));
  });

  test("unknown owner, slug, version, malformed versions and unpublished styles are the same 404", async () => {
    for (const path of ["/styles/v1/nobody/streets", "/styles/v1/acme/nope", "/styles/v1/acme/streets@9", "/styles/v1/acme/streets@0", "/styles/v1/acme/streets@1.5", "/styles/v1/acme/streets@x", "/styles/v1/acme/streets@", "/styles/v1/acme/external", "/styles/v1/ACME/streets"]) {
      const res = await t.fetch(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe("STYLE_NOT_FOUND");
    }
  });

  test("a URL in another service's form says where it is served here", async () => {
    // Not a file of a style: named, whether or not the style exists.
    for (const path of ["/styles/v1/acme/streets/wmts", "/styles/v1/nobody/none/sprite.svg"]) {
      const res = await t.fetch(path);
      expect(res.status).toBe(404);
      expect((await res.json()).error.message).toContain("is not a file of a style: a style has sprite.json, sprite.png");
    }
    // Mapbox's static images path.
    const res = await t.fetch("/styles/v1/acme/streets/static/10,48,3/300x200.png");
    expect(res.status).toBe(404);
    const error = (await res.json()).error;
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain("static images are at /static/v1/acme/streets[/{overlay}]/{lon},{lat},{zoom}");
  });

  test("unpublish removes the stable URL, versioned URLs keep working", async () => {
    await create({ slug: "temp", style: mapStyle("acme") });
    await t.fetch("/api/v1/orgs/acme/styles/temp/publish", { method: "POST", headers: owner.headers });
    expect((await t.fetch("/styles/v1/acme/temp")).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/temp/unpublish", { method: "POST", headers: owner.headers })).status).toBe(204);
    expect((await t.fetch("/styles/v1/acme/temp")).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/temp@1")).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/temp", { method: "DELETE", headers: owner.headers })).status).toBe(204);
    expect((await t.fetch("/styles/v1/acme/temp@1")).status).toBe(404);
    expect((await t.fetch("/api/v1/orgs/acme/styles/temp", { headers: owner.headers })).status).toBe(404);
    // The slug made again goes on counting: temp@1 was cached as immutable and must not name other content.
    await create({ slug: "temp", style: mapStyle("acme") });
    const again = await t.fetch("/api/v1/orgs/acme/styles/temp/publish", { method: "POST", headers: owner.headers });
    expect(await again.json()).toMatchObject({ version: 2, created: true });
    expect((await t.fetch("/styles/v1/acme/temp@1")).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/temp@2")).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/styles/temp", { method: "DELETE", headers: owner.headers })).status).toBe(204);
  });

  test("private styles: same 404 for strangers, readable by members and maps:read keys, Cache-Control private", async () => {
    await create({ slug: "hidden", visibility: "private", style: mapStyle("acme") });
    await t.fetch("/api/v1/orgs/acme/styles/hidden/publish", { method: "POST", headers: owner.headers });
    const anon = await t.fetch("/styles/v1/acme/hidden");
    expect(anon.status).toBe(404);
    expect(await anon.json()).toEqual(await (await t.fetch("/styles/v1/acme/does-not-exist")).json());
    expect((await t.fetch("/styles/v1/acme/hidden", { headers: { cookie: outsider.cookie } })).status).toBe(404);
    const member = await t.fetch("/styles/v1/acme/hidden@1", { headers: { cookie: owner.cookie } });
    expect(member.status).toBe(200);
    expect(member.headers.get("cache-control")).toBe("private");
    const key = seedKey(t.ctx, orgId, ["maps:read"]);
    expect((await t.fetch("/styles/v1/acme/hidden", { headers: { "x-api-key": key.secret } })).status).toBe(200);
    const noScope = seedKey(t.ctx, orgId, ["geocoding"]);
    expect((await t.fetch("/styles/v1/acme/hidden", { headers: { "x-api-key": noScope.secret } })).status).toBe(404);
    // A bad key reads like no key: the same 404 whether or not a private style exists at the URL.
    const bad = { "x-api-key": "msk_notavalidkeyatall" };
    const a = await t.fetch("/styles/v1/acme/hidden", { headers: bad });
    const b = await t.fetch("/styles/v1/acme/does-not-exist", { headers: bad });
    expect(a.status).toBe(404);
    expect(await a.json()).toEqual(await b.json());
    // Made public: everyone sees it.
    await t.fetch("/api/v1/orgs/acme/styles/hidden", json(owner.headers, { visibility: "public" }, "PATCH"));
    expect((await t.fetch("/styles/v1/acme/hidden")).status).toBe(200);
  });

  test("making a published style private hides its cached versioned URL at once, not only the stable one", async () => {
    await create({ slug: "shown", style: mapStyle("acme") });
    await t.fetch("/api/v1/orgs/acme/styles/shown/publish", { method: "POST", headers: owner.headers });
    for (const path of ["/styles/v1/acme/shown", "/styles/v1/acme/shown@1"]) expect((await t.fetch(path)).status).toBe(200);
    await t.fetch("/api/v1/orgs/acme/styles/shown", json(owner.headers, { visibility: "private" }, "PATCH"));
    for (const path of ["/styles/v1/acme/shown", "/styles/v1/acme/shown@1"]) expect((await t.fetch(path)).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/shown@1", { headers: { cookie: owner.cookie } })).headers.get("cache-control")).toBe("private");
  });

  test("management auth: 401 without credentials, 403 for outsiders and other orgs' keys, styles:write keys of the org work", async () => {
    expect((await t.fetch("/api/v1/orgs/acme/styles")).status).toBe(401);
    const res = await t.fetch("/api/v1/orgs/acme/styles", { headers: outsider.headers });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("FORBIDDEN");
    expect((await t.fetch("/api/v1/orgs/nobody/styles", { headers: owner.headers })).status).toBe(404);

    const key = seedKey(t.ctx, orgId, ["styles:write"]);
    const created = await t.fetch("/api/v1/orgs/acme/styles", json({ "x-api-key": key.secret }, { slug: "by-key", style: mapStyle("acme") }));
    expect(created.status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/acme/styles/by-key/publish", { method: "POST", headers: { "x-api-key": key.secret } })).status).toBe(200);

    const readOnly = seedKey(t.ctx, orgId, ["maps:read"]);
    const r = await t.fetch("/api/v1/orgs/acme/styles", { headers: { "x-api-key": readOnly.secret } });
    expect(r.status).toBe(403);
    expect((await r.json()).error.code).toBe("INSUFFICIENT_SCOPE");
    const otherKey = seedKey(t.ctx, seedOrg(t.ctx, "third").id, ["styles:write"]);
    expect((await t.fetch("/api/v1/orgs/acme/styles", { headers: { "x-api-key": otherKey.secret } })).status).toBe(403);
  });

  test("tilesets and tileset versions a published style uses cannot be deleted from under it", async () => {
    const roadsId = seedTileset(t.ctx, orgId, "roads", { versions: 2, published: 1 }).id;
    await create({ slug: "uses-roads", style: mapStyle("acme", { tileset: "roads" }) });
    expect((await t.fetch("/api/v1/orgs/acme/styles/uses-roads/publish", { method: "POST", headers: owner.headers })).status).toBe(200);

    const whole = await t.fetch("/api/v1/orgs/acme/tilesets/roads", { method: "DELETE", headers: owner.headers });
    expect(whole.status).toBe(409);
    expect((await whole.json()).error.message).toContain("acme/uses-roads@1");

    // The tileset moves on to version 2, but style version 1 (current) still pins roads@1.
    publishTilesetVersion(t.ctx, roadsId, 2);
    const pinned = await t.fetch("/api/v1/orgs/acme/tilesets/roads/versions/1", { method: "DELETE", headers: owner.headers });
    expect(pinned.status).toBe(409);
    expect((await pinned.json()).error.code).toBe("CONFLICT");
    expect((await t.fetch("/tiles/v1/acme/roads@1.json")).status).not.toBe(409);

    // Once the style is published again (pinning roads@2), version 1 may go; unpublished, the tileset may go.
    expect((await t.fetch("/api/v1/orgs/acme/styles/uses-roads/publish", { method: "POST", headers: owner.headers })).status).toBe(200);
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/roads/versions/1", { method: "DELETE", headers: owner.headers })).status).toBe(204);
    expect((await t.fetch("/api/v1/orgs/acme/styles/uses-roads/unpublish", { method: "POST", headers: owner.headers })).status).toBe(204);
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/roads", { method: "DELETE", headers: owner.headers })).status).toBe(204);
  });

  test("another organization's published style, private or not, neither blocks a tileset's deletion nor is named to its owner", async () => {
    seedTileset(t.ctx, orgId, "shared", { published: 1 });
    const otherOwner = await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "borrower").id });
    const borrowed = await t.fetch("/api/v1/orgs/borrower/styles", json(otherOwner.headers, { slug: "hidden-project", visibility: "private", style: mapStyle("acme", { tileset: "shared" }) }));
    expect(borrowed.status).toBe(201);
    expect((await t.fetch("/api/v1/orgs/borrower/styles/hidden-project/publish", { method: "POST", headers: otherOwner.headers })).status).toBe(200);
    const version = await t.fetch("/api/v1/orgs/acme/tilesets/shared/versions/1", { method: "DELETE", headers: owner.headers });
    // The published version cannot go (its own rule), and the refusal names no other organization's style.
    expect(version.status).toBe(409);
    expect(await version.text()).not.toContain("hidden-project");
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/shared", { method: "DELETE", headers: owner.headers })).status).toBe(204);
  });

  test("a publish that fails validation changes nothing", async () => {
    // The tileset the draft uses loses its published version: publishing must refuse.
    const ts = seedTileset(t.ctx, orgId, "fleeting");
    await create({ slug: "fragile", style: mapStyle("acme", { tileset: "fleeting" }) });
    t.ctx.sqlite.run("UPDATE tilesets SET published_version = NULL WHERE id = ?", [ts.id]);
    const res = await t.fetch("/api/v1/orgs/acme/styles/fragile/publish", { method: "POST", headers: owner.headers });
    expect(res.status).toBe(422);
    const detail = await (await t.fetch("/api/v1/orgs/acme/styles/fragile", { headers: owner.headers })).json();
    expect(detail.published_version).toBeNull();
    expect((await (await t.fetch("/api/v1/orgs/acme/styles/fragile/versions", { headers: owner.headers })).json()).versions).toEqual([]);
  });

  test("writes from another process (the CLI) are seen within a second or two, without a restart", async () => {
    const before = await (await t.fetch("/styles/v1/acme/streets")).json();
    expect(before.layers[0].paint["background-color"]).toBe("#123456");
    // A second connection to the same database file, as `mapstead styles publish` would use.
    const { Database } = await import("bun:sqlite");
    const other = new Database(t.ctx.sqlite.filename);
    const otherBus = createChangeBus(other, t.ctx.log);
    other.transaction(() => {
      other.run("UPDATE styles SET published_version = 1 WHERE slug = 'streets'");
      otherBus.publish({ kind: "style", owner: "acme", slug: "streets" });
    })();
    other.close();
    let color = before.layers[0].paint["background-color"];
    for (let i = 0; i < 40 && color === "#123456"; i++) {
      await Bun.sleep(50);
      color = (await (await t.fetch("/styles/v1/acme/streets")).json()).layers[0].paint["background-color"];
    }
    expect(color).toBe("#def");
  });
});

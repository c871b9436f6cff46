// GET /fonts/v1 and /fonts/v1/{fontstack}/{range}.pbf over real HTTP: range rules, fontstack
// resolution and per-glyph fallback, empty ranges, caching headers, and the on-disk range cache.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedSession } from "../../../support/seed";
import { encodeFontstack } from "../../../../src/glyphs";
import { decodeGlyphPbf, glyphById, testBlocksFont } from "../../management/fonts/fixtures";

const REGULAR = "Noto%20Sans%20Regular";

let t: TestApp;
beforeAll(async () => {
  t = await serveTestApp();
  const admin = await seedSession(t.ctx, { isAdmin: true });
  const res = await t.fetch("/api/v1/fonts", { method: "POST", headers: { ...admin.headers, "content-type": "font/otf" }, body: testBlocksFont() });
  expect(res.status).toBe(201);
});
afterAll(() => t.close());

async function glyphs(path: string) {
  const res = await t.fetch(path);
  expect(res.status).toBe(200);
  return decodeGlyphPbf(await res.arrayBuffer());
}

describe("GET /fonts/v1", () => {
  test("lists the built-in and uploaded fonts", async () => {
    const res = await t.fetch("/fonts/v1");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual(["Noto Sans Bold", "Noto Sans Italic", "Noto Sans Regular", "Test Blocks Regular"]);
  });
});

describe("glyph ranges", () => {
  test("a range of a built-in font is a glyph PBF with the caching and CORS headers", async () => {
    const res = await t.fetch(`/fonts/v1/${REGULAR}/0-255.pbf`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-protobuf");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    // Bun's fetch takes gzip, as browsers do.
    expect(res.headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{10,}\.gz"$/);
    expect(res.headers.get("vary")).toBe("Accept-Encoding");
    const [stack, ...more] = decodeGlyphPbf(await res.arrayBuffer());
    expect(more).toHaveLength(0);
    expect(stack!.name).toBe("Noto Sans Regular");
    expect(stack!.range).toBe("0-255");
    const ids = stack!.glyphs.map((g) => g.id);
    for (const ch of "Az09 éÅü") expect(ids).toContain(ch.codePointAt(0)!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  });

  test("gzipped for clients that take it, as it is for those that do not; each with its own ETag", async () => {
    const path = `/fonts/v1/${REGULAR}/0-255.pbf`;
    const plain = await t.fetch(path, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const body = new Uint8Array(await plain.arrayBuffer());
    const zipped = await t.fetch(path, { headers: { "accept-encoding": "gzip, deflate, br" }, decompress: false } as RequestInit);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("content-type")).toBe("application/x-protobuf");
    const gz = new Uint8Array(await zipped.arrayBuffer());
    expect(gz.length).toBeLessThan(body.length * 0.6);
    expect(Bun.gunzipSync(gz)).toEqual(body);
    expect(zipped.headers.get("etag")).not.toBe(plain.headers.get("etag"));
    // A 304 confirms only the encoding the client holds.
    const gzipEtag = zipped.headers.get("etag")!;
    expect((await t.fetch(path, { headers: { "accept-encoding": "gzip", "if-none-match": gzipEtag } })).status).toBe(304);
    expect((await t.fetch(path, { headers: { "accept-encoding": "identity", "if-none-match": gzipEtag } })).status).toBe(200);
  });

  test("If-None-Match with the ETag answers 304 without a body; another ETag gets the range", async () => {
    const first = await t.fetch(`/fonts/v1/${REGULAR}/256-511.pbf`);
    const etag = first.headers.get("etag")!;
    const body = new Uint8Array(await first.arrayBuffer());
    const again = await t.fetch(`/fonts/v1/${REGULAR}/256-511.pbf`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    const listed = await t.fetch(`/fonts/v1/${REGULAR}/256-511.pbf`, { headers: { "if-none-match": `"other", W/${etag}` } });
    expect(listed.status).toBe(304);
    const stale = await t.fetch(`/fonts/v1/${REGULAR}/256-511.pbf`, { headers: { "if-none-match": '"stale"' } });
    expect(stale.status).toBe(200);
    expect(new Uint8Array(await stale.arrayBuffer())).toEqual(body);
    const other = await t.fetch(`/fonts/v1/Noto%20Sans%20Bold/256-511.pbf`);
    expect(other.headers.get("etag")).not.toBe(etag);
  });

  test.each([
    ["1-256.pbf"],
    ["0-256.pbf"],
    ["0-254.pbf"],
    ["256-255.pbf"],
    ["99999-100254.pbf"],
    ["1114112-1114367.pbf"],
    ["11141120-11141375.pbf"],
    ["a-b.pbf"],
    ["0-255.png"],
    ["0-255"],
    ["-256--1.pbf"],
  ])("range %s is a 400 naming it", async (range) => {
    const res = await t.fetch(`/fonts/v1/${REGULAR}/${range}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe("BAD_REQUEST");
    expect(body.error.message).toContain(range);
  });

  test("ranges above U+FFFF, which MapLibre asks for emoji, are served up to U+10FFFF (empty where no font has glyphs)", async () => {
    for (const range of ["65280-65535", "128512-128767", "1113856-1114111"]) {
      const res = await t.fetch(`/fonts/v1/${REGULAR}/${range}.pbf`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    }
    const [emoji] = await glyphs(`/fonts/v1/${REGULAR}/128512-128767.pbf`);
    expect(emoji!.range).toBe("128512-128767");
    expect(emoji!.glyphs).toEqual([]);
  });

  test("a stack with no installed font is 404 FONT_NOT_FOUND", async () => {
    for (const stack of ["Comic%20Sans", "Nope,Also%20Nope", "noto%20sans%20regular"]) {
      const res = await t.fetch(`/fonts/v1/${stack}/0-255.pbf`);
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe("FONT_NOT_FOUND");
    }
  });

  test("an empty fontstack is a 400", async () => {
    const res = await t.fetch(`/fonts/v1/%2C%20%2C/0-255.pbf`);
    expect(res.status).toBe(400);
  });

  test("an installed font without glyphs in the range answers a valid, empty PBF", async () => {
    // U+E000..U+E0FF is private use: Noto Sans has nothing there.
    const [stack] = await glyphs(`/fonts/v1/${REGULAR}/57344-57599.pbf`);
    expect(stack!.name).toBe("Noto Sans Regular");
    expect(stack!.range).toBe("57344-57599");
    expect(stack!.glyphs).toEqual([]);
  });

  test("each glyph comes from the first font of the stack that has it", async () => {
    const [blocksFirst] = await glyphs(`/fonts/v1/Test%20Blocks%20Regular,${REGULAR}/0-255.pbf`);
    expect(blocksFirst!.name).toBe("Test Blocks Regular,Noto Sans Regular");
    // "A" from Test Blocks: a 500x700 unit block at 24 px/em, advance 800 units.
    expect(glyphById(blocksFirst!, 65)).toMatchObject({ width: 12, height: 17, left: 2, advance: 19 });
    // "B" is not in Test Blocks: Noto Sans provides it.
    const [noto] = await glyphs(`/fonts/v1/${REGULAR}/0-255.pbf`);
    expect(glyphById(blocksFirst!, 66)).toEqual(glyphById(noto!, 66)!);
    expect(blocksFirst!.glyphs.map((g) => g.id)).toEqual(noto!.glyphs.map((g) => g.id));

    const [notoFirst] = await glyphs(`/fonts/v1/${REGULAR},Test%20Blocks%20Regular/0-255.pbf`);
    expect(glyphById(notoFirst!, 65)).toEqual(glyphById(noto!, 65)!);

    // Only Test Blocks has U+E000: the fallback reaches it behind Noto Sans.
    const [pua] = await glyphs(`/fonts/v1/${REGULAR},Test%20Blocks%20Regular/57344-57599.pbf`);
    expect(pua!.glyphs.map((g) => g.id)).toEqual([0xe000]);
    expect(pua!.glyphs[0]).toMatchObject({ width: 7, height: 7, left: 1, advance: 10 });
  });

  test("fonts of the stack that are not installed are skipped; spaces around names are ignored", async () => {
    const [stack] = await glyphs(`/fonts/v1/Missing%20Font%2C%20Test%20Blocks%20Regular%20/57344-57599.pbf`);
    expect(stack!.glyphs.map((g) => g.id)).toEqual([0xe000]);
  });

  test("every range is written once to DATA_DIR/glyphs and later served from there", async () => {
    const res = await t.fetch(`/fonts/v1/${REGULAR}/512-767.pbf`);
    expect(res.status).toBe(200);
    const dirs = readdirSync(join(t.dataDir, "glyphs"));
    const withRange = dirs.filter((d) => existsSync(join(t.dataDir, "glyphs", d, "512-767.pbf")));
    expect(withRange).toHaveLength(1);
    expect(readdirSync(join(t.dataDir, "glyphs", withRange[0]!)).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    // A second appliance on the same data dir serves the range from the disk cache: replace the file
    // with a recognisable one and that is what it answers.
    const marker = encodeFontstack("Noto Sans Regular", "512-767", []);
    writeFileSync(join(t.dataDir, "glyphs", withRange[0]!, "512-767.pbf"), marker);
    const second = await serveTestApp({}, { dataDir: t.dataDir });
    try {
      const [stack] = decodeGlyphPbf(await (await second.fetch(`/fonts/v1/${REGULAR}/512-767.pbf`)).arrayBuffer());
      expect(stack!.glyphs).toEqual([]);
      // A damaged cache file is rebuilt, not served.
      writeFileSync(join(t.dataDir, "glyphs", withRange[0]!, "768-1023.pbf"), new Uint8Array([0x0a, 0xff, 0xff, 0xff]));
      const rebuilt = await second.fetch(`/fonts/v1/${REGULAR}/768-1023.pbf`);
      expect(rebuilt.status).toBe(200);
      expect(decodeGlyphPbf(await rebuilt.arrayBuffer())[0]!.glyphs.length).toBeGreaterThan(50);
    } finally {
      await second.close();
    }
  });

  test("a fresh data dir builds ranges on demand", async () => {
    const dir = tempDir();
    const fresh = await serveTestApp({}, { dataDir: dir });
    try {
      expect(existsSync(join(dir, "glyphs"))).toBe(false);
      const [stack] = decodeGlyphPbf(await (await fresh.fetch(`/fonts/v1/Noto%20Sans%20Italic/1024-1279.pbf`)).arrayBuffer());
      expect(glyphById(stack!, "М".codePointAt(0)!)!.width).toBeGreaterThan(10);
      expect(readdirSync(join(dir, "glyphs"))).toHaveLength(1);
    } finally {
      await fresh.close();
    }
  });
});

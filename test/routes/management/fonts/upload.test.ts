// POST/GET /api/v1/fonts: who may upload, what is accepted, and what an installed font becomes
// (a file under DATA_DIR/fonts, a row in the catalog, a name in /fonts/v1 and installedFontNames).
// Also `mapstead fonts add|list` on the same checks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { NOTO_REGULAR_TTF, decodeGlyphPbf, testBlocksFont } from "./fixtures";

let t: TestApp;
let admin: Record<string, string>;
let member: Record<string, string>;
beforeAll(async () => {
  t = await makeTestApp();
  admin = (await seedSession(t.ctx, { isAdmin: true })).headers;
  const org = seedOrg(t.ctx, "acme");
  member = (await seedSession(t.ctx, { orgId: org.id, role: "owner" })).headers;
});
afterAll(() => t.close());

const upload = (body: BodyInit | Uint8Array, headers: Record<string, string> = admin, query = "") =>
  t.fetch(`/api/v1/fonts${query}`, { method: "POST", headers: { "content-type": "application/octet-stream", ...headers }, body: body as BodyInit });

async function expectError(res: Response, status: number, code: string, messagePart?: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(body.error.code).toBe(code);
  if (messagePart) expect(body.error.message).toContain(messagePart);
}

describe("POST /api/v1/fonts: who", () => {
  test("anonymous callers get 401", async () => {
    await expectError(await upload(testBlocksFont(), {}), 401, "UNAUTHORIZED");
  });

  test("API keys cannot install fonts", async () => {
    const org = seedOrg(t.ctx, "keyorg");
    const key = seedKey(t.ctx, org.id, ["styles:write", "tilesets:write"]);
    await expectError(await upload(testBlocksFont(), { "x-api-key": key.secret }), 401, "UNAUTHORIZED");
  });

  test("a session of a non-admin user gets 403 FORBIDDEN", async () => {
    await expectError(await upload(testBlocksFont(), member), 403, "FORBIDDEN");
  });
});

describe("POST /api/v1/fonts: what", () => {
  test("files that are not TTF/OTF are 415 with a message saying what they are", async () => {
    await expectError(await upload("hello, I am text"), 415, "UNSUPPORTED_MEDIA_TYPE", ".ttf or .otf");
    await expectError(await upload(new Uint8Array([0x77, 0x4f, 0x46, 0x32, 0, 0, 0, 0])), 415, "UNSUPPORTED_MEDIA_TYPE", "WOFF");
    await expectError(await upload(new Uint8Array([0x74, 0x74, 0x63, 0x66, 0, 1, 0, 0])), 415, "UNSUPPORTED_MEDIA_TYPE", "collection");
  });

  test("a font header followed by garbage is 422 INVALID_SOURCE_DATA", async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 7919) & 0xff);
    garbage.set([0, 1, 0, 0], 0);
    await expectError(await upload(garbage), 422, "INVALID_SOURCE_DATA", "could not be read as a font");
    // A real font cut in half.
    const half = readFileSync(NOTO_REGULAR_TTF).subarray(0, 200_000);
    await expectError(await upload(half, admin, "?name=Half"), 422, "INVALID_SOURCE_DATA", "truncated");
    expect((await t.fetch("/fonts/v1")).ok).toBe(true);
    expect(t.services.fonts.names().has("Half")).toBe(false);
  });

  test("an empty body is a 400", async () => {
    await expectError(await upload(new Uint8Array(0)), 400, "BAD_REQUEST");
  });

  test("uploads over 50 MiB are 413, declared or streamed", async () => {
    const declared = await t.fetch("/api/v1/fonts", {
      method: "POST",
      headers: { ...admin, "content-type": "font/ttf", "content-length": String(50 * 1024 * 1024 + 1) },
      body: "x",
    });
    await expectError(declared, 413, "PAYLOAD_TOO_LARGE");
    const chunk = new Uint8Array(1024 * 1024);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ > 51) controller.close();
        else controller.enqueue(chunk);
      },
    });
    await expectError(await upload(stream), 413, "PAYLOAD_TOO_LARGE");
    expect(sent).toBeLessThan(55);
  });

  test("bad names are 400 naming the parameter", async () => {
    for (const name of ["A,B", "a/b", "   "]) {
      const res = await upload(testBlocksFont(), admin, `?name=${encodeURIComponent(name)}`);
      await expectError(res, 400, "BAD_REQUEST", "name");
    }
  });
});

describe("installing", () => {
  test("an OTF upload is stored, listed and served under its family + subfamily name", async () => {
    const res = await upload(testBlocksFont("Upload Blocks"), admin);
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ name: "Upload Blocks Regular", builtin: false, created_at: expect.any(String), codepoints: 2 });
    expect(readdirSync(join(t.dataDir, "fonts")).filter((f) => f.endsWith(".otf"))).toHaveLength(1);
    expect(readdirSync(join(t.dataDir, "fonts")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    expect(await (await t.fetch("/fonts/v1")).json()).toContain("Upload Blocks Regular");
    expect(t.services.fonts.names().has("Upload Blocks Regular")).toBe(true);
    const range = await t.fetch("/fonts/v1/Upload%20Blocks%20Regular/0-255.pbf");
    expect(decodeGlyphPbf(await range.arrayBuffer())[0]!.glyphs.map((g) => g.id)).toEqual([65]);
    // The same name again is a conflict, and nothing changes.
    await expectError(await upload(testBlocksFont("Upload Blocks"), admin), 409, "CONFLICT", "Upload Blocks Regular");
  });

  test("a TTF upload with ?name= keeps that name", async () => {
    const res = await upload(readFileSync(NOTO_REGULAR_TTF), admin, "?name=My%20Noto");
    expect(res.status).toBe(201);
    expect((await res.json()).name).toBe("My Noto");
    const range = await t.fetch("/fonts/v1/My%20Noto/1024-1279.pbf");
    expect(range.status).toBe(200);
    expect(decodeGlyphPbf(await range.arrayBuffer())[0]!.glyphs.length).toBeGreaterThan(200);
  });

  test("a multipart upload takes the file field and the name field", async () => {
    const form = new FormData();
    form.set("file", new Blob([testBlocksFont("Multipart Blocks") as BlobPart]), "blocks.otf");
    form.set("name", "Form Blocks");
    const res = await t.fetch("/api/v1/fonts", { method: "POST", headers: admin, body: form });
    expect(res.status).toBe(201);
    expect((await res.json()).name).toBe("Form Blocks");
    const missing = new FormData();
    missing.set("font", new Blob([testBlocksFont() as BlobPart]), "blocks.otf");
    await expectError(await t.fetch("/api/v1/fonts", { method: "POST", headers: admin, body: missing }), 400, "BAD_REQUEST", "file");
  });

  test("GET /api/v1/fonts lists built-in and uploaded fonts to any console user, not to anonymous callers", async () => {
    const res = await t.fetch("/api/v1/fonts", { headers: member });
    expect(res.status).toBe(200);
    const { fonts } = await res.json();
    expect(fonts).toContainEqual({ name: "Noto Sans Regular", builtin: true, created_at: expect.any(String) });
    expect(fonts).toContainEqual({ name: "My Noto", builtin: false, created_at: expect.any(String) });
    expect((await t.fetch("/api/v1/fonts")).status).toBe(401);
  });

  test("the catalog lists the built-ins in the fonts table once, however often it is opened", async () => {
    const dir = tempDir();
    for (let i = 0; i < 2; i++) {
      const app = await makeTestApp({}, { dataDir: dir });
      const rows = app.ctx.sqlite.query<{ name: string; builtin: number; file_path: string | null }, []>("SELECT name, builtin, file_path FROM fonts ORDER BY name").all();
      expect(rows).toEqual([
        { name: "Noto Sans Bold", builtin: 1, file_path: null },
        { name: "Noto Sans Italic", builtin: 1, file_path: null },
        { name: "Noto Sans Regular", builtin: 1, file_path: null },
      ]);
      await app.close();
    }
  });
});

describe("mapstead fonts", () => {
  const run = (args: string[], dataDir: string) => {
    const proc = Bun.spawnSync(["bun", join(import.meta.dir, "../../../../src/main.ts"), "fonts", ...args, "--data-dir", dataDir], { env: { ...process.env, NO_COLOR: "1" } });
    return { code: proc.exitCode, out: proc.stdout.toString(), err: proc.stderr.toString() };
  };

  test("add installs a font a running server then serves; list shows it; bad files fail with a message", async () => {
    const dir = tempDir();
    const app = await makeTestApp({}, { dataDir: dir });
    try {
      expect(await (await app.fetch("/fonts/v1")).json()).not.toContain("Cli Blocks");
      const file = join(dir, "blocks.otf");
      writeFileSync(file, testBlocksFont());
      const added = run(["add", file, "--name", "Cli Blocks"], dir);
      expect(added.err).toBe("");
      expect(added.code).toBe(0);
      expect(added.out).toContain("Cli Blocks");
      const listed = run(["list", "--json"], dir);
      expect(JSON.parse(listed.out).map((f: { name: string }) => f.name)).toEqual(["Cli Blocks", "Noto Sans Bold", "Noto Sans Italic", "Noto Sans Regular"]);
      // The running app notices another process changed the catalog within a few seconds.
      let names: string[] = [];
      for (let i = 0; i < 40 && !names.includes("Cli Blocks"); i++) {
        await Bun.sleep(100);
        names = await (await app.fetch("/fonts/v1")).json();
      }
      expect(names).toContain("Cli Blocks");
      expect((await app.fetch("/fonts/v1/Cli%20Blocks/57344-57599.pbf")).status).toBe(200);

      const again = run(["add", file, "--name", "Cli Blocks"], dir);
      expect(again.code).toBe(1);
      expect(again.err).toContain("already installed");
      const text = join(dir, "notes.txt");
      writeFileSync(text, "not a font");
      const bad = run(["add", text], dir);
      expect(bad.code).toBe(1);
      expect(bad.err).toContain(".ttf or .otf");
      expect(run(["add"], dir).code).toBe(2);
    } finally {
      await app.close();
    }
  });
});

// Published files damaged or deleted by hand under DATA_DIR, over real HTTP and the real CLI: a tile
// archive overwritten with other bytes, a published sprite directory removed, an installed font's file
// removed. Each answers 503 STORAGE_UNAVAILABLE (never 404 "no sprite", never 500), the log has an error
// naming the file and the fix, and /health/detailed and `mapstead preflight` say so with the same fix.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { serveTestApp, type TestApp } from "../../../support/app";
import { seedOrg, seedSession } from "../../../support/seed";
import { createLogger } from "../../../../src/log";
import { runCli } from "../../../support/cli";
import { publish, uploadReady } from "../../management/tilesets/fixtures";
import { json } from "../../management/styles/helpers";
import { pinSvg, zipOf } from "../../../sprites/fixtures";
import { testBlocksFont } from "../../management/fonts/fixtures";

let t: TestApp;
let headers: Record<string, string>;
const logLines: string[] = [];
const logged = (msg: string) => logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === msg);
beforeAll(async () => {
  t = await serveTestApp({}, { log: createLogger("info", (line) => logLines.push(line)) });
  headers = (await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "acme").id, isAdmin: true })).headers;
});
afterAll(() => t?.close());

type Health = { status: string; components: { storage: { status: string; detail: string; fix?: string } } };
const health = async () => (await (await t.fetch("/health/detailed")).json()) as Health;
type Check = { id: string; status: string; message: string; fix: string };
function preflight() {
  const r = runCli(t.dataDir, "preflight", "--json");
  return { code: r.code, checks: (JSON.parse(r.out) as { checks: Check[] }).checks };
}
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

const point = JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [7.45, 46.95] }, properties: { name: "Bern" } }] });

test("an archive overwritten with random bytes: 503, and health and preflight (fail: published) name it", async () => {
  expect(preflight().checks.filter((c) => ["archives", "sprites", "fonts"].includes(c.id)).map((c) => c.status)).toEqual(["pass", "pass", "pass"]);
  await uploadReady(t, headers, "junk", point, "?maxzoom=3");
  expect((await publish(t, "acme", "junk", 1, headers)).status).toBe(200);
  const row = t.ctx.sqlite.query<{ archive_path: string }, []>("SELECT archive_path FROM tileset_versions ORDER BY id DESC LIMIT 1").get()!;
  writeFileSync(join(t.dataDir, row.archive_path), randomBytes(64 * 1024));
  const res = await t.fetch("/tiles/v1/acme/junk.json");
  expect(res.status).toBe(503);
  expect((await errorOf(res)).message).toContain("its archive is damaged");

  const h = await health();
  expect(h.components.storage).toMatchObject({ status: "degraded", detail: expect.stringContaining("(acme/junk@1 published damaged)"), fix: expect.stringContaining("from a backup") });
  const p = preflight();
  expect(p.code).toBe(1);
  expect(p.checks.find((c) => c.id === "archives")).toMatchObject({ status: "fail", message: expect.stringContaining("acme/junk@1 published damaged") });
  rmSync(join(t.dataDir, row.archive_path)); // for the tests below, whose health lines come after this one
  runCli(t.dataDir, "tilesets", "unpublish", "--org", "acme", "--slug", "junk");
  expect(runCli(t.dataDir, "tilesets", "delete", "--org", "acme", "--slug", "junk", "--version", "1").code).toBe(0);
  expect(preflight().checks.find((c) => c.id === "archives")!.status).toBe("pass");
});

test("a published sprite directory deleted by hand: 503 naming the style, an error log line, health and preflight", async () => {
  expect((await t.fetch("/api/v1/orgs/acme/styles", json(headers, { slug: "city" }))).status).toBe(201);
  const put = await t.fetch("/api/v1/orgs/acme/styles/city/sprite", { method: "PUT", headers: { ...headers, "content-type": "application/zip" }, body: zipOf({ "pin.svg": pinSvg }) as BodyInit });
  expect(put.status).toBe(200);
  expect((await t.fetch("/api/v1/orgs/acme/styles/city/draft", json(headers, { version: 8, name: "City", sprite: "mapstead://sprites/acme/city", sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "#def" } }] }, "PUT"))).status).toBe(200);
  expect((await t.fetch("/api/v1/orgs/acme/styles/city/publish", { method: "POST", headers })).status).toBe(200);
  const { id, sprite_path } = t.ctx.sqlite.query<{ id: number; sprite_path: string }, []>("SELECT s.id, v.sprite_path FROM style_versions v JOIN styles s ON s.id = v.style_id WHERE s.slug = 'city'").get()!;
  rmSync(join(t.dataDir, "sprites", String(id)), { recursive: true });

  for (const url of ["/styles/v1/acme/city/sprite.json", "/styles/v1/acme/city@1/sprite@2x.png"]) {
    const res = await t.fetch(url);
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toEqual({ code: "STORAGE_UNAVAILABLE", message: "The sprite of style 'acme/city@1' cannot be read: its files are missing on this server (the server's log names the directory and the fix)" });
  }
  const draft = await t.fetch("/api/v1/orgs/acme/styles/city/draft/sprite.png", { headers });
  expect(draft.status).toBe(503);
  const line = logged("sprite file missing")[0];
  expect(line.fix).toContain(`Copy the directory ${sprite_path} back from a backup`);
  expect(line.fix).toContain("PUT /api/v1/orgs/ORG/styles/SLUG/sprite");
  expect(line).toMatchObject({ level: "error", style: "acme/city@1", dir: sprite_path });

  const h = await health();
  expect(h.status).toBe("degraded");
  expect(h.components.storage.detail).toContain(`acme/city@1 in ${sprite_path}`);
  expect(h.components.storage.detail).toContain("acme/city (draft)");
  expect(h.components.storage.fix).toContain("upload the sprite again");
  const p = preflight();
  expect(p.checks.find((c) => c.id === "sprites")).toMatchObject({ status: "warn", message: expect.stringContaining("2 sprite(s) of styles are missing"), fix: expect.stringContaining("mapstead styles publish") });

  // The fix as told: upload the sprite again and publish; the new version serves it.
  expect((await t.fetch("/api/v1/orgs/acme/styles/city/sprite", { method: "PUT", headers: { ...headers, "content-type": "application/zip" }, body: zipOf({ "pin.svg": pinSvg }) as BodyInit })).status).toBe(200);
  expect((await t.fetch("/api/v1/orgs/acme/styles/city/publish", { method: "POST", headers })).status).toBe(200);
  expect((await t.fetch("/styles/v1/acme/city/sprite.json")).status).toBe(200);
});

test("an installed font's file deleted by hand: 503 (not 500), the path and fix in the log, health and preflight; fonts add of the same file restores it", async () => {
  const font = testBlocksFont("Gone Font");
  const added = await t.fetch("/api/v1/fonts", { method: "POST", headers: { ...headers, "content-type": "font/otf" }, body: font });
  expect(added.status).toBe(201);
  const { file_path } = t.ctx.sqlite.query<{ file_path: string }, []>("SELECT file_path FROM fonts WHERE name = 'Gone Font Regular'").get()!;
  const path = join(t.dataDir, file_path);
  rmSync(path);

  const res = await t.fetch("/fonts/v1/Gone%20Font%20Regular/0-255.pbf");
  expect(res.status).toBe(503);
  expect(await errorOf(res)).toEqual({ code: "STORAGE_UNAVAILABLE", message: 'Font "Gone Font Regular" cannot be read: its file is missing on this server (the server\'s log names the file and the fix)' });
  expect(logged("request failed").length + logLines.filter((l) => l.includes('"level":"error"') && l.includes("ENOENT") && !l.includes("font file cannot be read")).length).toBe(0);
  const line = logged("font file cannot be read")[0];
  expect(line).toMatchObject({ level: "error", font: "Gone Font Regular", path });
  expect(line.fix).toContain(`copy the font file back to ${path} from a backup`);
  expect(line.fix).toContain('mapstead fonts add --name "Gone Font Regular" FILE');

  expect((await health()).components.storage.detail).toContain(`"Gone Font Regular" at ${file_path}`);
  expect(preflight().checks.find((c) => c.id === "fonts")).toMatchObject({ status: "warn", message: expect.stringContaining(`"Gone Font Regular" at ${file_path}`), fix: expect.stringContaining("add the same font file again") });

  // The fix as told: the same file added again under its name puts it back.
  const file = join(t.dataDir, "..", `gone-${process.pid}.otf`);
  writeFileSync(file, font);
  try {
    const again = runCli(t.dataDir, "fonts", "add", "--name", "Gone Font Regular", file);
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toContain("Restored the missing file of Gone Font Regular");
  } finally {
    rmSync(file, { force: true });
  }
  expect((await t.fetch("/fonts/v1/Gone%20Font%20Regular/0-255.pbf")).status).toBe(200);
  expect(preflight().checks.find((c) => c.id === "fonts")!.status).toBe("pass");
});

// `mapstead backup` as an operator runs it: a process on the server's DATA_DIR while the server serves
// it and takes writes; then the backup restored as the README says (copied in place of DATA_DIR) and
// served again, its tiles, styles, fonts, keys and gazetteer answering as before.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveTestApp, tempDir, type TestApp } from "../support/app";
import { runCli } from "../support/cli";
import { seedKey } from "../support/seed";
import { dataDirWithGazetteer, VILLAGES_TSV } from "../backends/geocoder/embedded/fixtures";
import { testBlocksFont } from "../routes/management/fonts/fixtures";
import { pinSvg, squareSvg } from "../sprites/fixtures";
import { waitForVersion } from "../routes/management/tilesets/fixtures";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { loadConfig } from "../../src/config";
import { createContext } from "../../src/context";
import { createServices } from "../../src/services";
import { silentLogger } from "../../src/log";
import { orgBySlug } from "../../src/domain/orgs/service";
import { buildSprite, type SpriteSet } from "../../src/sprites/build";
import { backupDataDir, BackupUnsettled, MANIFEST_FILE } from "../../src/domain/backup/backup";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const isRoot = process.getuid?.() === 0;
const enc = (s: string) => new TextEncoder().encode(s);

/** A 1 MiB file system, to fill: a tmpfs mounted here when this process may mount (root in most test machines); null where not. */
function smallDisk(): string | null {
  if (!isRoot) return null;
  const dir = tempDir("mapstead-backup-disk-");
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir], { stderr: "pipe" }).exitCode !== 0) return null;
  return dir;
}
const disk = smallDisk();

let work: string;
let dataDir: string;
let server: TestApp;
let key: string;
let revokedKey: string;
let org: { id: number; slug: string };
const sprites: SpriteSet[] = [];
const cli = (...args: string[]) => runCli(dataDir, ...args);

function ok(r: { code: number; out: string; err: string }) {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}`);
  return r.out;
}

/** Every path (relative to `dir`) of a tree, with its mode. */
function modes(dir: string, rel = ""): [string, number][] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel ? `${rel}/${e.name}` : e.name;
    const own: [string, number] = [path, statSync(join(dir, path)).mode & 0o777];
    return e.isDirectory() ? [own, ...modes(dir, path)] : [own];
  });
}

/** The files the rows of a (backed up) database refer to. */
function referenced(db: string): string[] {
  const sqlite = new Database(db, { readonly: true });
  const rows = sqlite
    .query<{ p: string }, []>(
      `SELECT archive_path AS p FROM tileset_versions WHERE archive_path IS NOT NULL UNION SELECT draft_sprite_path FROM styles WHERE draft_sprite_path IS NOT NULL
       UNION SELECT sprite_path FROM style_versions WHERE sprite_path IS NOT NULL UNION SELECT file_path FROM fonts WHERE file_path IS NOT NULL`,
    )
    .all();
  sqlite.close();
  return rows.map((r) => r.p).sort();
}

const get = (t: TestApp, path: string, headers: Record<string, string> = {}) => t.fetch(path, { headers });
const bytes = async (res: Response) => {
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
};

beforeAll(async () => {
  work = tempDir("mapstead-backup-");
  dataDir = await dataDirWithGazetteer();
  ok(cli("orgs", "create", "--slug", "acme"));
  const places = { type: "FeatureCollection", features: [{ type: "Feature", properties: { name: "Lisbon" }, geometry: { type: "Point", coordinates: [-9.14, 38.72] } }] };
  writeFileSync(join(work, "places.geojson"), JSON.stringify(places));
  ok(cli("tilesets", "import", "--org", "acme", "--slug", "places", join(work, "places.geojson"), "--create", "--private", "--publish", "--maxzoom", "4"));
  writeFileSync(join(work, "blocks.otf"), testBlocksFont("Backup Blocks"));
  ok(cli("fonts", "add", join(work, "blocks.otf")));
  mkdirSync(join(work, "icons"));
  writeFileSync(join(work, "icons", "pin.svg"), pinSvg);
  const style = {
    version: 8,
    glyphs: "mapstead://fonts/{fontstack}/{range}.pbf",
    sprite: "mapstead://sprites/acme/city",
    sources: { places: { type: "vector", url: "mapstead://tilesets/acme/places" } },
    layers: [{ id: "p", type: "symbol", source: "places", "source-layer": "places", layout: { "icon-image": "pin", "text-field": ["get", "name"], "text-font": ["Backup Blocks Regular"] } }],
  };
  writeFileSync(join(work, "style.json"), JSON.stringify(style));
  ok(cli("styles", "create", "--org", "acme", "--slug", "city", "--private", "--sprite", join(work, "icons"), join(work, "style.json")));
  ok(cli("styles", "publish", "--org", "acme", "--slug", "city"));
  key = JSON.parse(ok(cli("keys", "create", "--org", "acme", "--name", "web", "--scopes", "maps:read,geocoding", "--json"))).secret;
  const revoked = JSON.parse(ok(cli("keys", "create", "--org", "acme", "--name", "old", "--scopes", "geocoding", "--json")));
  ok(cli("keys", "revoke", "--org", "acme", String(revoked.id)));
  revokedKey = revoked.secret;
  writeFileSync(join(work, "villages.txt"), VILLAGES_TSV);
  ok(cli("gazetteer", "import", join(work, "villages.txt"), "--dataset", "villages"));
  // What a running server keeps beside that and a backup leaves out: the setup token, caches, an upload
  // still being received (no row points at it yet).
  writeFileSync(join(dataDir, "setup-token"), "token\n", { mode: 0o600 });
  for (const dir of ["glyphs", "render-cache", "uploads"]) mkdirSync(join(dataDir, dir), { recursive: true });
  writeFileSync(join(dataDir, "glyphs", "cached.pbf"), "x");
  writeFileSync(join(dataDir, "render-cache", "cached.png"), "x");
  writeFileSync(join(dataDir, "uploads", "receiving.upload"), "x");
  // An archive an older version left readable by everyone: private in the backup.
  chmodSync(join(dataDir, "tilesets", "1", "v1.mbtiles"), 0o644);

  server = await serveTestApp({}, { dataDir });
  org = server.ctx.sqlite.query<{ id: number; slug: string }, []>("SELECT id, slug FROM orgs WHERE slug = 'acme'").get()!;
  sprites.push(await buildSprite([{ name: "pin", bytes: enc(pinSvg) }]), await buildSprite([{ name: "pin", bytes: enc(squareSvg("#333", 8)) }]));
});
afterAll(async () => {
  await server?.close();
  if (disk) Bun.spawnSync(["umount", disk]);
});

describe("mapstead backup", () => {
  test("taken while the server takes writes, restored in place of DATA_DIR, it serves the same tiles, styles, fonts, keys and places", async () => {
    const to = join(work, "backup-1");
    const proc = Bun.spawn(["bun", MAIN, "backup", "--to", to, "--json", "--data-dir", dataDir], { stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
    let exited = false;
    const done = proc.exited.then(() => (exited = true));
    // The server goes on writing until the backup ends: rows (keys), and style versions whose rows point
    // at sprite directories written just before them. (Deleting what the backup copies: the next test.)
    while (!exited) {
      seedKey(server.ctx, org.id, ["geocoding"]);
      server.services.styles.publish(org, "city");
      await Bun.sleep(5); // a pace, not a wait for something: the writes go on until the backup exits
    }
    await done;
    const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect(err).toBe("");
    expect(proc.exitCode).toBe(0);
    const report = JSON.parse(out);
    expect(report).toMatchObject({ to, data_dir: dataDir, missing: [], database: { file: "mapstead.db" }, gazetteer: { file: "gazetteer.sqlite" } });
    expect(report.files.tilesets).toMatchObject({ count: 1, files: 1 });
    expect(report.files.fonts).toMatchObject({ count: 1, files: 1 });
    expect(report.files.uploads).toMatchObject({ count: 0 });

    // Whatever the interleaving: each row's file is in the backup, and no sprite directory beside them.
    const refs = referenced(join(to, "mapstead.db"));
    for (const rel of refs) expect(existsSync(join(to, rel))).toBe(true);
    const spriteDirs = readdirSync(join(to, "sprites"), { recursive: true, withFileTypes: true }).filter((e) => e.isDirectory() && /^(draft|v\d)/.test(e.name));
    expect(spriteDirs.map((e) => join(e.parentPath.slice(to.length + 1), e.name)).sort()).toEqual(refs.filter((r) => r.startsWith("sprites/")));
    for (const file of ["mapstead.db", "gazetteer.sqlite"]) {
      const db = new Database(join(to, file), { readonly: true });
      expect(db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()!.integrity_check).toBe("ok");
      db.close();
    }
    // Nothing rebuilt or transient, no -wal beside the copies, and nothing readable by other users.
    const tree = modes(to);
    expect(tree.map(([p]) => p).filter((p) => /setup-token|glyphs|render-cache|receiving|-wal|-shm/.test(p))).toEqual([]);
    expect(tree.filter(([, mode]) => mode !== 0o640 && mode !== 0o750)).toEqual([]);
    expect(statSync(join(to, "tilesets", "1", "v1.mbtiles")).mode & 0o777).toBe(0o640);
    expect(existsSync(join(to, MANIFEST_FILE))).toBe(true);

    // Restored as the README says: the backup copied in place of DATA_DIR (here: a new one), then served.
    const restoredDir = join(work, "restored");
    expect(Bun.spawnSync(["cp", "-a", to, restoredDir]).exitCode).toBe(0);
    const restored = await serveTestApp({}, { dataDir: restoredDir });
    try {
      const withKey = { "x-api-key": key };
      // Private: without a key the tileset is not there, with it (maps:read) it is.
      expect((await get(restored, "/tiles/v1/acme/places.json")).status).toBe(404);
      expect((await get(restored, "/tiles/v1/acme/places.json", withKey)).status).toBe(200);
      for (const path of ["/tiles/v1/acme/places@1/0/0/0.mvt", "/styles/v1/acme/city@1/sprite.json", "/styles/v1/acme/city@1/sprite@2x.png"])
        expect(await bytes(await get(restored, path, withKey))).toEqual(await bytes(await get(server, path, withKey)));
      const style = async (t: TestApp) => (await (await get(t, "/styles/v1/acme/city@1", withKey)).text()).replaceAll(t.baseUrl, "BASE");
      expect(await style(restored)).toBe(await style(server));
      expect(JSON.parse(await style(restored)).sources.places.url).toBe("BASE/tiles/v1/acme/places@1.json");
      const glyphs = "/fonts/v1/Backup%20Blocks%20Regular/0-255.pbf";
      expect(await bytes(await get(restored, glyphs))).toEqual(await bytes(await get(server, glyphs)));
      const found = (await (await get(restored, "/geocoding/v1/forward?q=Hintertupfingen", withKey)).json()) as { features: { properties: { name: string } }[] };
      expect(found.features[0]!.properties.name).toBe("Hintertupfingen");
      expect((await get(restored, "/geocoding/v1/forward?q=Hintertupfingen", { "x-api-key": revokedKey })).status).toBe(401);
    } finally {
      await restored.close();
    }
  });

  test("a file deleted after the snapshot is not missed: the database is copied again, and the backup holds what that copy names", async () => {
    const to = join(work, "backup-2");
    mkdirSync(to);
    const before = server.ctx.sqlite.query<{ p: string }, []>("SELECT draft_sprite_path AS p FROM styles WHERE slug = 'city'").get()!.p;
    let replaced = false;
    // The step announced between the snapshot and the copy of its files: the server replaces the draft
    // sprite right then, deleting the directory the first snapshot names.
    const result = await backupDataDir(dataDir, server.ctx.sqlite, to, (step) => {
      if (replaced || !/^copying \d+ file/.test(step)) return;
      server.services.styles.setSprite(org, "city", sprites[0]!);
      replaced = true;
    });
    expect(replaced).toBe(true);
    expect(existsSync(join(dataDir, before))).toBe(false);
    expect(result.snapshots).toBe(2);
    expect(result.missing).toEqual([]);
    const copy = new Database(join(to, "mapstead.db"), { readonly: true });
    const now = copy.query<{ p: string }, []>("SELECT draft_sprite_path AS p FROM styles WHERE slug = 'city'").get()!.p;
    copy.close();
    expect(now).not.toBe(before);
    expect(existsSync(join(to, now, "sprite.json"))).toBe(true);
    expect(existsSync(join(to, before))).toBe(false);
  });

  test("a server that deletes what the backup copies every time makes it give up, saying so", async () => {
    const to = join(work, "backup-unsettled");
    mkdirSync(to);
    let replaced = 0;
    const backup = backupDataDir(dataDir, server.ctx.sqlite, to, (step) => {
      if (!/^copying \d+ file/.test(step)) return;
      server.services.styles.setSprite(org, "city", sprites[replaced++ % 2]!);
    });
    await expect(backup).rejects.toThrow(new BackupUnsettled("the server deleted files the backup was copying, 5 times in a row (tilesets, sprites or uploads changing fast); run the backup again when it is quieter"));
    expect(replaced).toBe(5);
  });

  test("an upload queued for processing is backed up with its row, and processed after the restore", async () => {
    const queuedDir = join(work, "queued");
    ok(runCli(queuedDir, "orgs", "create", "--slug", "acme"));
    ok(runCli(queuedDir, "tilesets", "create", "--org", "acme", "--slug", "places"));
    // Queued as the upload route queues it, by a process that runs no jobs (as when the server stops
    // before it gets to it).
    const handle = openDatabase(queuedDir);
    const ctx = createContext(loadConfig({ DATA_DIR: queuedDir }), handle, silentLogger);
    mkdirSync(join(queuedDir, "uploads"));
    writeFileSync(join(queuedDir, "uploads", "queued.upload"), readFileSync(join(work, "places.geojson")));
    const received = { path: join(queuedDir, "uploads", "queued.upload"), relativePath: "uploads/queued.upload", bytes: statSync(join(queuedDir, "uploads", "queued.upload")).size, filename: "places.geojson", contentType: null, fields: {} };
    await createServices(ctx).tilesets.createVersion(orgBySlug(ctx.db, "acme")!, "places", received, {});
    await ctx.shutdown();

    const to = join(work, "backup-queued");
    const r = runCli(queuedDir, "backup", "--to", to);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Backed up DATA_DIR ${queuedDir} to ${to} in `);
    expect(r.out).toMatch(/uploads +1 awaiting processing or import/);
    expect(readdirSync(join(to, "uploads"))).toEqual(["queued.upload"]);
    const restoredDir = join(work, "queued-restored");
    expect(Bun.spawnSync(["cp", "-a", to, restoredDir]).exitCode).toBe(0);
    const restored = await serveTestApp({}, { dataDir: restoredDir });
    try {
      const headers = { "x-api-key": seedKey(restored.ctx, orgBySlug(restored.ctx.db, "acme")!.id, ["tilesets:write"]).secret };
      expect(await waitForVersion(restored, "acme", "places", 1, headers)).toMatchObject({ state: "ready" });
    } finally {
      await restored.close();
    }
  });

  test("a file missing from DATA_DIR itself is named with the fix, exit 1; the rest is backed up", () => {
    const small = join(work, "small");
    expect(runCli(small, "fonts", "add", join(work, "blocks.otf")).code).toBe(0);
    const font = readdirSync(join(small, "fonts"))[0]!;
    rmSync(join(small, "fonts", font));
    const to = join(work, "backup-3");
    const r = runCli(small, "backup", "--to", to);
    expect(r.code).toBe(1);
    // Named with the font it belongs to and a fix that exists (there is no font removal: the file goes back).
    expect(r.err).toMatch(new RegExp(`mapstead backup: 1 file\\(s\\) the database refers to are missing from DATA_DIR itself, so the backup lacks them too: fonts/${font} \\(.+\\)\\. fonts: Copy each font file back from a backup`));
    expect(r.err).toContain("mapstead fonts add --name NAME FILE puts it back");
    expect(r.err).not.toContain("delete the");
    expect(r.out).toContain(`Backed up all but 1 missing file(s) of DATA_DIR ${small} to ${to}`);
    expect(r.out).toMatch(/fonts +0 font file\(s\) +0 B/);
    expect(r.out).toContain(`  mv ${small} ${small}.before-restore\n  cp -a ${to} ${small} && chown -R root: ${small}\n`);
    expect(JSON.parse(readFileSync(join(to, MANIFEST_FILE), "utf8")).missing).toEqual([`fonts/${font}`]);
    // The fix as told: adding the same file again puts it back, and the next backup is whole.
    const again = runCli(small, "fonts", "add", join(work, "blocks.otf"));
    expect(again).toMatchObject({ code: 0 });
    expect(again.out).toContain("Restored the missing file of");
    expect(readdirSync(join(small, "fonts"))).toEqual([font]);
    expect(runCli(small, "backup", "--to", join(work, "backup-3b")).code).toBe(0);
    // Another font under a taken name is still refused.
    expect(runCli(small, "fonts", "add", join(work, "blocks.otf")).err).toContain("already installed");
  });

  test("operator mistakes: one line naming it and the fix, nothing written", () => {
    const full = join(work, "full");
    mkdirSync(full);
    writeFileSync(join(full, "keep"), "x");
    const notEmpty = cli("backup", "--to", full);
    expect([notEmpty.code, notEmpty.err.trim()]).toEqual([1, expect.stringMatching(new RegExp(`^mapstead backup: ${full} is not empty; give a new or empty directory, e.g. ${full}\.2$`))]);
    expect(readdirSync(full)).toEqual(["keep"]);

    const file = cli("backup", "--to", join(full, "keep"));
    expect([file.code, file.err.trim()]).toEqual([1, `mapstead backup: ${join(full, "keep")} is a file; give a new or empty directory`]);
    const inside = cli("backup", "--to", join(dataDir, "backups"));
    expect([inside.code, inside.err.trim()]).toEqual([1, `mapstead backup: ${join(dataDir, "backups")} is inside DATA_DIR ${dataDir}; back up to a directory outside it, preferably on another disk`]);
    expect(existsSync(join(dataDir, "backups"))).toBe(false);

    expect(cli("backup").code).toBe(2);
    expect(cli("backup").err).toContain("--to DIR is required");
    expect(cli("backup", "--to", join(work, "x"), "extra").code).toBe(2);
    expect(cli("backup", "--to", join(work, "x"), "--frobnicate").code).toBe(2);

    const nowhere = join(work, "no-data-dir");
    const none = runCli(nowhere, "backup", "--to", join(work, "x"));
    expect([none.code, none.err.trim()]).toEqual([1, `mapstead backup: no database in DATA_DIR ${nowhere}, so nothing to back up; pass the server's DATA_DIR (--data-dir or the DATA_DIR setting)`]);
    expect(existsSync(nowhere) || existsSync(join(work, "x"))).toBe(false);

    const newer = join(work, "newer");
    const handle = openDatabase(newer);
    migrate(handle.sqlite);
    handle.sqlite.query("INSERT INTO __mapstead_migrations (tag, applied_at) VALUES ('0099_from_the_future', ?)").run(Date.now());
    handle.sqlite.close();
    const refused = runCli(newer, "backup", "--to", join(work, "x"));
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("this database was upgraded by a newer Mapstead (it has migration(s) 0099_from_the_future this binary does not know)");
    expect(existsSync(join(work, "x"))).toBe(false);
  });

  test.skipIf(disk === null)("a disk that fills: one line naming it, and no partial backup left to pass for one", () => {
    const to = join(disk!, "backup");
    const r = cli("backup", "--to", to);
    expect([r.code, r.err.trim().split("\n").at(-1)]).toEqual([1, `mapstead backup: the disk holding ${to} is full; nothing was kept there. Free space on it, or back up to a bigger disk`]);
    expect(readdirSync(disk!)).toEqual([]);
  });

  test.skipIf(!isRoot)("root is refused in a DATA_DIR another user owns; that user may not write the backup where it cannot", () => {
    const root = tempDir("mapstead-backup-owner-");
    chmodSync(root, 0o755);
    const owned = join(root, "data");
    expect(runCli(owned, "migrate").code).toBe(0);
    const nobody = Number(Bun.spawnSync(["id", "-u", "nobody"]).stdout.toString().trim());
    for (const entry of ["", ...readdirSync(owned)]) chownSync(join(owned, entry), nobody, nobody);
    const to = join(root, "backup");
    const asRoot = runCli(owned, "backup", "--to", to);
    expect([asRoot.code, asRoot.err.trim()]).toEqual([1, `mapstead: DATA_DIR ${owned} belongs to user nobody; run the command as that user (sudo -u nobody mapstead ...), since files root made there would be unwritable for the server`]);
    expect(existsSync(to)).toBe(false);

    const asNobody = Bun.spawnSync(["runuser", "-u", "nobody", "--", "env", `PATH=${process.env.PATH}`, "MAPSTEAD_ENV_FILE=none", "NO_COLOR=1", "bun", MAIN, "backup", "--to", to, "--data-dir", owned], { stdout: "pipe", stderr: "pipe" });
    expect([asNobody.exitCode, asNobody.stderr.toString().trim()]).toEqual([
      1,
      `mapstead backup: user nobody may not write in ${root}; back up into a directory this user owns, e.g. one made with sudo install -d -o nobody -m 0750 /var/backups/mapstead`,
    ]);
    expect(existsSync(to)).toBe(false);
  });
});

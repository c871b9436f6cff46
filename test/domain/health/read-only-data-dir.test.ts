// A DATA_DIR on a read-only mount (a disk the kernel remounted read-only after errors, a ro bind mount):
// no chown helps, so neither the preflight's data_dir check nor /health/detailed's storage may advise one;
// both say to mount it read-write, as the sqlite check already does.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { runCli } from "../../support/cli";
import { makeTestApp, tempDir } from "../../support/app";
import { createHealthService } from "../../../src/domain/health/service";
import { createUnreadableArchives } from "../../../src/domain/health/unreadable-archives";

/** A tmpfs holding a migrated DATA_DIR, then remounted read-only; null where this user may not mount. */
function readOnlyDataDir(): string | null {
  if (process.getuid?.() !== 0) return null;
  const mount = tempDir("mapstead-ro-");
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount]).exitCode !== 0) return null;
  const dataDir = join(mount, "data");
  expect(runCli(dataDir, "migrate").code).toBe(0);
  expect(Bun.spawnSync(["mount", "-o", "remount,ro", mount]).exitCode).toBe(0);
  return dataDir;
}
const unmount = (dataDir: string) => Bun.spawnSync(["umount", join(dataDir, "..")]);

test("preflight: data_dir says read-only and to mount it read-write, like the sqlite check", () => {
  const dataDir = readOnlyDataDir();
  if (dataDir === null) return void console.warn("skipped: cannot mount a tmpfs here");
  try {
    const r = runCli(dataDir, "preflight", "--json");
    expect(r.code).toBe(1);
    const byId = Object.fromEntries((JSON.parse(r.out).checks as { id: string; status: string; message: string; fix: string }[]).map((c) => [c.id, c]));
    expect(byId.data_dir!.status).toBe("fail");
    expect(byId.data_dir!.message).toContain("EROFS");
    expect(byId.data_dir!.fix).toContain("read-only file system: mount it read-write");
    expect(byId.data_dir!.fix).not.toContain("chown");
    expect(byId.sqlite!.fix).toContain("Mount it read-write");
  } finally {
    unmount(dataDir);
  }
});

test("/health/detailed: storage down, saying read-only and to mount it read-write, not to chown", async () => {
  const dataDir = readOnlyDataDir();
  if (dataDir === null) return void console.warn("skipped: cannot mount a tmpfs here");
  const app = await makeTestApp();
  try {
    // The running server's database elsewhere; its storage check looks at the read-only DATA_DIR.
    const health = createHealthService({ ...app.ctx, config: { ...app.ctx.config, dataDir } }, () => undefined, createUnreadableArchives(app.ctx.sqlite, dataDir));
    const storage = health.storage();
    expect(storage.status).toBe("down");
    expect(storage.detail).toBe("DATA_DIR is on a read-only file system (EROFS)");
    expect(storage.fix).toContain("mount it read-write");
    expect(storage.fix).not.toContain("chown");
  } finally {
    await app.close();
    unmount(dataDir);
  }
});

// A DATA_DIR volume with (almost) no room: the core cannot write, so /health/detailed says storage down
// and answers 503, the floor the preflight fails its disk_space check at, and a monitor keyed on the
// status code sees it.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../../support/app";

test("under 100 MiB free, storage is down and /health/detailed answers 503", async () => {
  if (process.getuid?.() !== 0) return void console.warn("skipped: cannot mount a tmpfs here");
  const mount = tempDir("mapstead-small-");
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount]).exitCode !== 0) return void console.warn("skipped: cannot mount a tmpfs here");
  try {
    const app = await makeTestApp({}, { dataDir: mount });
    try {
      const res = await app.fetch("/health/detailed");
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body.status).toBe("down");
      expect(body.components.storage.status).toBe("down");
      expect(body.components.storage.detail).toMatch(/^only \d+ MiB free in DATA_DIR \(under 100 MiB\)/);
      expect(body.components.storage.fix).toContain("Free disk space");
      const preflight = await (await app.fetch("/setup/preflight", { headers: { accept: "application/json" } })).json();
      expect(preflight.checks.find((c: { id: string }) => c.id === "disk_space").status).toBe("fail");
    } finally {
      await app.close();
    }
  } finally {
    Bun.spawnSync(["umount", mount]);
  }
});

test("a CLI write on a full DATA_DIR says the disk may be full and how to see it, not SQLite's bare words", () => {
  if (process.getuid?.() !== 0) return void console.warn("skipped: cannot mount a tmpfs here");
  const mount = tempDir("mapstead-small-");
  if (Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mount]).exitCode !== 0) return void console.warn("skipped: cannot mount a tmpfs here");
  const main = join(import.meta.dir, "../../../src/main.ts");
  const env = { ...process.env, DATA_DIR: mount, LOG_LEVEL: "error", MAPSTEAD_ENV_FILE: "none", NO_COLOR: "1" };
  try {
    expect(Bun.spawnSync(["bun", main, "migrate"], { env }).exitCode).toBe(0);
    // Every byte taken: dd stops with ENOSPC at the end of the volume.
    Bun.spawnSync(["dd", "if=/dev/zero", `of=${join(mount, "fill")}`, "bs=1M"]);
    const r = Bun.spawnSync(["bun", main, "orgs", "create", "--slug", "acme", "--name", "Acme"], { env, stderr: "pipe" });
    expect(r.exitCode).toBe(1);
    const said = r.stderr.toString();
    expect(said).toMatch(/^mapstead: (no space left to write|the database could not be written)/);
    expect(said).toContain("`mapstead preflight` shows how much space is left");
  } finally {
    Bun.spawnSync(["umount", mount]);
  }
});

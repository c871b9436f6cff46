// The built-in gazetteer built on a disk too small for it: the failure says the disk is full (not the
// "no transaction is active" of a second ROLLBACK after SQLite's own), searches are told so, and the
// build is not started again by every request, only after a pause.
import { expect, test } from "bun:test";
import { createGazetteer } from "../../../../src/backends/geocoder/embedded/gazetteer";
import { probeEmbeddedGeocoder } from "../../../../src/backends/geocoder/embedded/probe";
import { createLogger, silentLogger } from "../../../../src/log";
import { tempDir } from "../../../support/app";

/** A 3 MiB tmpfs, when this user may mount one (root, outside the tightest containers). */
function smallDisk(): string | null {
  if (process.getuid?.() !== 0) return null;
  const dir = tempDir("mapstead-full-");
  return Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", dir]).exitCode === 0 ? dir : null;
}

test("a full disk fails the build naming it, and requests do not start it again at once", async () => {
  const dir = smallDisk();
  if (dir === null) return void console.warn("skipped: cannot mount a small tmpfs here");
  const lines: Record<string, unknown>[] = [];
  const gazetteer = createGazetteer({ dataDir: dir, log: createLogger("info", (l) => lines.push(JSON.parse(l))) });
  try {
    await gazetteer.start();
    expect(gazetteer.status().state).toBe("failed");
    const failed = lines.find((l) => l.msg === "embedded gazetteer could not be built")!;
    expect(String(failed.error)).toMatch(/full|space/i);
    expect(String(failed.error)).not.toContain("no transaction");
    for (let i = 0; i < 3; i++) {
      const err = (await gazetteer.geocoder.forward({ text: "Bern", size: 1 } as never).catch((e) => e)) as { status: number; message: string; headers: Record<string, string> };
      expect(err.status).toBe(503);
      expect(err.message).toContain("could not be built");
      expect(err.headers["retry-after"]).toBe("60");
    }
    await gazetteer.start();
    expect(lines.filter((l) => l.msg === "building the embedded gazetteer from the built-in data")).toHaveLength(1);
    // Another process sharing DATA_DIR (an HTTP worker that has not geocoded yet, or the CLI preflight,
    // which never builds) says the build failed, instead of "not built yet; it is built when the server starts".
    const worker = createGazetteer({ dataDir: dir, log: silentLogger });
    try {
      for (const probe of [await probeEmbeddedGeocoder(dir), await probeEmbeddedGeocoder(dir, worker)]) {
        expect(probe.status).toBe("down");
        expect(probe.detail).toMatch(/^embedded gazetteer could not be built/);
        expect(probe.fix).toContain("free space");
      }
    } finally {
      worker.close();
    }
  } finally {
    gazetteer.close();
    Bun.spawnSync(["umount", "-l", dir]);
  }
}, 60_000);

// Zip entries are streamed to scratch files: a bomb whose sizes are only known after inflating (a zip
// written as a stream, sizes in data descriptors) is stopped while inflating, a zip cut short is named
// as truncated, and what was extracted is listed for the caller to remove.
import { afterAll, expect, test } from "bun:test";
import { Zip, ZipDeflate, zipSync } from "fflate";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/app";
import { InvalidSource } from "../../src/tiles/errors";
import { extractZip } from "../../src/tiles/zip-extract";

const dir = tempDir("mapstead-zip-extract-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A zip written as a stream: local headers carry no sizes, only the data descriptors after each entry do. */
function streamedZip(entries: Record<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    parts.push(chunk);
  });
  for (const [name, data] of Object.entries(entries)) {
    const entry = new ZipDeflate(name, { level: 9 });
    zip.add(entry);
    entry.push(data, true);
  }
  zip.end();
  return Buffer.concat(parts);
}

async function extract(bytes: Uint8Array, name: string) {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  const scratch: string[] = [];
  try {
    return { files: await extractZip(path, name, join(dir, `${name}.entry`), (n) => /\.(shp|dbf)$/.test(n), scratch), scratch, error: null };
  } catch (err) {
    return { files: null, scratch, error: err as Error };
  }
}

test("wanted entries land in scratch files, byte for byte; others are skipped", async () => {
  const shp = crypto.getRandomValues(new Uint8Array(300_000));
  const { files, scratch, error } = await extract(zipSync({ "a/roads.shp": shp, "a/roads.dbf": new Uint8Array(10), "readme.txt": new Uint8Array(5) }), "ok.zip");
  expect(error).toBeNull();
  expect([...files!.keys()].sort()).toEqual(["a/roads.dbf", "a/roads.shp"]);
  expect(new Uint8Array(readFileSync(files!.get("a/roads.shp")!))).toEqual(shp);
  expect(scratch.length).toBe(2);
});

test("a bomb without declared sizes is stopped while inflating", async () => {
  const { error, scratch } = await extract(streamedZip({ "layer.shp": new Uint8Array(16 * 1024 * 1024) }), "bomb.zip");
  expect(error).toBeInstanceOf(InvalidSource);
  expect(error!.message).toContain("zip bomb");
  // Stopped early: far less than the 16 MiB was written.
  expect(readFileSync(scratch[0]!).length).toBeLessThan(4 * 1024 * 1024);
});

test("a zip cut short, even between entries, is named as truncated; traversal is refused", async () => {
  const whole = zipSync({ "a.shp": crypto.getRandomValues(new Uint8Array(50_000)), "a.dbf": crypto.getRandomValues(new Uint8Array(50_000)) }, { level: 0 });
  const cut = await extract(whole.slice(0, 50_100), "cut.zip");
  expect(cut.error!.message).toMatch(/damaged or truncated/);
  const mid = await extract(whole.slice(0, 75_000), "mid.zip");
  expect(mid.error!.message).toMatch(/damaged or truncated/);
  const evil = await extract(zipSync({ "../../evil.shp": new Uint8Array(10) }), "evil.zip");
  expect(evil.error!.message).toContain("points outside the archive");
  expect(existsSync(join(dir, "..", "evil.shp"))).toBe(false);
});

// The compiled binary carries the built-in fonts: started from an empty temp cwd (no node_modules in
// sight), it serves Noto Sans glyph ranges of all three faces, and `mapstead fonts add|list` work.
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { runBinary, startBinary, type RunningBinary } from "../../../support/binary";
import { decodeGlyphPbf, glyphById, testBlocksFont } from "./fixtures";

const root = tempDir("mapstead-fonts-bin-");
const dataDir = join(root, "data");
let running: RunningBinary | null = null;

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("the binary serves the embedded Noto Sans faces and installs fonts from the command line", async () => {
  const font = join(root, "blocks.otf");
  writeFileSync(font, testBlocksFont());
  const added = await runBinary(["fonts", "add", font, "--name", "Binary Blocks"], { env: { DATA_DIR: dataDir } });
  // The data dir is new: the only thing on stderr is the note that a database was created there.
  expect(added.stderr.trim()).toBe(`mapstead: created a new database in DATA_DIR ${dataDir} (none was there; if the server uses another DATA_DIR, pass that one)`);
  expect(added.exitCode).toBe(0);
  const listed = await runBinary(["fonts", "list", "--json"], { env: { DATA_DIR: dataDir } });
  expect(JSON.parse(listed.stdout).map((f: { name: string }) => f.name)).toEqual(["Binary Blocks", "Noto Sans Bold", "Noto Sans Italic", "Noto Sans Regular"]);

  running = await startBinary({ dataDir });
  for (const face of ["Regular", "Bold", "Italic"]) {
    const res = await running.fetch(`/fonts/v1/Noto%20Sans%20${face}/1024-1279.pbf`);
    expect(res.status).toBe(200);
    const [stack] = decodeGlyphPbf(await res.arrayBuffer());
    expect(glyphById(stack!, "Ж".codePointAt(0)!)!.width).toBeGreaterThan(15);
  }
  const composite = await running.fetch("/fonts/v1/Binary%20Blocks,Noto%20Sans%20Regular/0-255.pbf");
  const [stack] = decodeGlyphPbf(await composite.arrayBuffer());
  expect(glyphById(stack!, 65)).toMatchObject({ width: 12, height: 17, advance: 19 });
  expect(glyphById(stack!, 66)!.width).toBeGreaterThan(8);
}, 240_000);

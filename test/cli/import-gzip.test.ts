// `mapstead tilesets import` takes gzip-compressed files (found by their magic bytes, not their name) as
// the HTTP upload takes Content-Encoding: gzip, and MAX_UPLOAD_MB applies to the decompressed size, so a
// gzip bomb is refused early with a clear message; the gzip files of one import share the limit.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { tempDir } from "../support/app";
import { runCli } from "../support/cli";
import { countries } from "../routes/management/tilesets/fixtures";

let dir: string;
const cli = (...args: string[]) => runCli(join(dir, "data"), ...args);
const uploads = () => (existsSync(join(dir, "data/uploads")) ? readdirSync(join(dir, "data/uploads")) : []);

beforeAll(() => {
  dir = tempDir("mapstead-import-gzip-");
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a .geojson.gz imports like the .geojson", () => {
  const path = join(dir, "world.geojson.gz");
  writeFileSync(path, gzipSync(JSON.stringify(countries())));
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "world", path, "--create", "--maxzoom", "2");
  expect(r.err).not.toContain("gzip-compressed data");
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/Importing world\.geojson\.gz \(geojson, [\d,]+ bytes\)/);
  expect(r.out).toContain("Ready: acme/world v1");
  const [row] = JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[];
  expect(row.latest.layers.map((l: { id: string }) => l.id)).toEqual(["world"]);
  // Named anything: the bytes say it is gzip.
  const odd = join(dir, "data.bin");
  writeFileSync(odd, gzipSync(`{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}]}`));
  const two = cli("tilesets", "import", "--org", "acme", "--slug", "odd", odd, join(dir, "world.geojson.gz"), "--create", "--maxzoom", "2");
  expect(two.code).toBe(0);
  expect(two.out).toContain("Importing data.bin, world.geojson.gz (geojson");
  expect(uploads()).toEqual([]);
});

test("a gzip bomb stops at MAX_UPLOAD_MB of decompressed data, saying so, and leaves nothing behind", () => {
  const bomb = join(dir, "bomb.geojson.gz");
  writeFileSync(bomb, gzipSync(Buffer.alloc(64 * 1024 * 1024, 32)));
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "bomb", bomb, "--create", "--max-upload-mb", "4");
  expect(r.code).toBe(1);
  expect(r.err).toContain(`${bomb} decompresses to over MAX_UPLOAD_MB (4 MiB)`);
  expect(uploads()).toEqual([]);
  expect((JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).map((t) => t.slug)).not.toContain("bomb");
});

test("the gzip files of one import share MAX_UPLOAD_MB, as one upload of them would", () => {
  // Each decompresses to 3 MiB, under the 4 MiB limit alone, 6 MiB together.
  const parts = ["east", "west"].map((side) => {
    const path = join(dir, `${side}.geojson.gz`);
    writeFileSync(path, gzipSync(Buffer.alloc(3 * 1024 * 1024, 32)));
    return path;
  });
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "halves", ...parts, "--create", "--max-upload-mb", "4");
  expect(r.code).toBe(1);
  expect(r.err).toContain(`${parts[1]} and the gzip files before it decompress to over MAX_UPLOAD_MB (4 MiB) together`);
  expect(uploads()).toEqual([]);
  expect((JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).map((t) => t.slug)).not.toContain("halves");
});

test("a gzip file cut short is refused as such", () => {
  const cut = join(dir, "cut.geojson.gz");
  const whole = gzipSync(JSON.stringify(countries()));
  writeFileSync(cut, whole.subarray(0, whole.length >> 1));
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "cut", cut, "--create");
  expect(r.code).toBe(1);
  expect(r.err).toContain("starts as gzip-compressed data but does not decompress");
  expect(uploads()).toEqual([]);
});

// `mapstead tilesets import` with elevation files: an .hgt is built into a raster DEM in the CLI
// process (progress, then the encoding in the summary); a bad --encoding is refused with the reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { zipSync } from "fflate";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { hgtBytes, ramp } from "../../../support/dem";
import { runCli } from "../../../support/cli";

let dir: string;
const cli = (...args: string[]) => runCli(join(dir, "data"), ...args);

beforeAll(() => {
  dir = tempDir("mapstead-dem-cli-");
  writeFileSync(join(dir, "N46E007.hgt"), hgtBytes(61, { lon: 7, lat: 46 }, ramp));
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("an .hgt imports as a Terrain-RGB DEM and is published", () => {
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "srtm", "--create", "--publish", "--encoding", "mapbox", "--maxzoom", "8", join(dir, "N46E007.hgt"));
  expect(r.code).toBe(0);
  expect(r.err).toContain("100.0%  ready");
  expect(r.err).not.toContain("warning");
  expect(r.out).toContain("(hgt,");
  expect(r.out).toMatch(/Ready: acme\/srtm v1, \d+ tiles, zoom 0-8, raster DEM \(mapbox\)/);
  expect(r.out).toContain("Published: https://maps.example.com/tiles/v1/acme/srtm.json");
});

test("a zip of .hgt files that leave a gap between them warns that the gap has no data", () => {
  writeFileSync(join(dir, "gap.hgt.zip"), zipSync({ "N46E007.hgt": hgtBytes(31, { lon: 7, lat: 46 }, ramp), "N46E009.hgt": hgtBytes(31, { lon: 9, lat: 46 }, ramp) }));
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "gap", "--create", "--publish", "--maxzoom", "7", join(dir, "gap.hgt.zip"));
  expect(r.code).toBe(0);
  expect(r.err).toMatch(/warning: gap\.hgt\.zip: the files leave gaps in their bounding box 7,46,10,47 \(\d+% of it has no file\); maps show 0 m there and the elevation API answers 404 NO_ELEVATION_DATA/);
});

test("an unknown --encoding is refused before anything is written", () => {
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "srtm", "--encoding", "rgb", join(dir, "N46E007.hgt"));
  // checked with the rest of the recipe before the command starts: a usage error
  expect(r.code).toBe(2);
  expect(r.err).toContain("encoding must be terrarium or mapbox");
  expect(JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out)[0].latest.version).toBe(1);
});

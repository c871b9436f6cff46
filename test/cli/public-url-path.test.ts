// The URLs CLI commands print start with PUBLIC_URL, its path prefix included, as the server's do.
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/app";

const MAIN = join(import.meta.dir, "../../src/main.ts");
const dir = tempDir("mapstead-cli-public-url-path-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (publicUrl: string, ...args: string[]) => {
  const r = Bun.spawnSync(["bun", MAIN, ...args], { env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error", DATA_DIR: join(dir, "data"), PUBLIC_URL: publicUrl }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
};

test("tileset and style commands print URLs under the prefix; a clashing prefix stops them naming it", () => {
  const base = "https://gis.city.example/maps";
  expect(cli(`${base}/`, "orgs", "create", "--slug", "acme").code).toBe(0);
  const places = { type: "FeatureCollection", features: [{ type: "Feature", properties: { name: "A" }, geometry: { type: "Point", coordinates: [7.5, 46.5] } }] };
  writeFileSync(join(dir, "places.geojson"), JSON.stringify(places));
  const imported = cli(base, "tilesets", "import", "--org", "acme", "--slug", "places", "--create", "--publish", "--maxzoom", "4", join(dir, "places.geojson"));
  expect(imported.code).toBe(0);
  expect(imported.out).toContain(`${base}/tiles/v1/acme/places@1.json`);
  expect(imported.out).toContain(`Published: ${base}/tiles/v1/acme/places.json`);
  expect(cli(base, "styles", "create", "--org", "acme", "--slug", "basic").code).toBe(0);
  const published = cli(base, "styles", "publish", "--org", "acme", "--slug", "basic");
  expect(published.code).toBe(0);
  expect(published.out).toContain(`${base}/styles/v1/acme/basic`);
  const clash = cli("https://gis.city.example/tiles", "orgs", "list");
  expect(clash.code).toBe(2);
  expect(clash.out).toContain("starts like Mapstead's own /tiles routes");
});

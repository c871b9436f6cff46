// `mapstead tilesets update` and `mapstead styles update`: an operator who only has the CLI changes the
// visibility, name and credits of what they created, through the same service as the API's PATCH, and a
// server running on the same data dir answers accordingly without a restart; each mistake is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../support/app";
import { runCli } from "../support/cli";

let dir: string;
let server: TestApp;
const data = () => join(dir, "data");
const cli = (...args: string[]) => runCli(data(), ...args);
/** What an anonymous client gets once the server has heard of the CLI's change (the change bus, polled now rather than within a second). */
const anonymous = (path: string) => {
  server.services.changes.poll();
  return server.fetch(path).then((r) => r.status);
};

beforeAll(async () => {
  dir = tempDir("mapstead-cli-update-");
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
  const places = { type: "FeatureCollection", features: [{ type: "Feature", properties: { name: "A" }, geometry: { type: "Point", coordinates: [7.5, 46.5] } }] };
  writeFileSync(join(dir, "places.geojson"), JSON.stringify(places));
  expect(cli("tilesets", "import", "--org", "acme", "--slug", "mb", "--create", "--publish", "--maxzoom", "4", join(dir, "places.geojson")).code).toBe(0);
  expect(cli("styles", "create", "--org", "acme", "--slug", "city").code).toBe(0);
  expect(cli("styles", "publish", "--org", "acme", "--slug", "city").code).toBe(0);
  server = await makeTestApp({}, { dataDir: data() });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a tileset made private answers 404 to anonymous clients of the running server, and 200 again once public", async () => {
  expect(await anonymous("/tiles/v1/acme/mb.json")).toBe(200);

  const priv = cli("tilesets", "update", "--org", "acme", "--slug", "mb", "--private");
  expect(priv.code).toBe(0);
  expect(priv.out).toContain('Updated tileset acme/mb: visibility "public" -> "private"');
  // Left to the server's own change-bus watcher (no poll here): it hears it within a second.
  const started = Date.now();
  while ((await server.fetch("/tiles/v1/acme/mb.json")).status !== 404 && Date.now() - started < 3000) await Bun.sleep(100);
  expect(Date.now() - started).toBeLessThan(2500);
  expect(await anonymous("/tiles/v1/acme/mb.json")).toBe(404);

  const again = cli("tilesets", "update", "--org", "acme", "--slug", "mb", "--private");
  expect(again.code).toBe(0);
  expect(again.out).toContain("nothing changed");

  const pub = cli("tilesets", "update", "--org", "acme", "--slug", "mb", "--public", "--name", "Main base", "--attribution", "© Acme");
  expect(pub.code).toBe(0);
  expect(pub.out).toContain('name "mb" -> "Main base", attribution "" -> "© Acme", visibility "private" -> "public"');
  expect(await anonymous("/tiles/v1/acme/mb.json")).toBe(200);
  const tilejson = (await (await server.fetch("/tiles/v1/acme/mb.json")).json()) as { name: string; attribution: string };
  expect(tilejson).toMatchObject({ name: "Main base", attribution: "© Acme" });

  const json = cli("tilesets", "update", "--org", "acme", "--slug", "mb", "--description", "Points", "--json");
  expect(json.code).toBe(0);
  expect(JSON.parse(json.out)).toMatchObject({ owner: "acme", slug: "mb", name: "Main base", description: "Points", visibility: "public" });
});

test("a style is renamed and made private and public again", async () => {
  const renamed = cli("styles", "update", "--org", "acme", "--slug", "city", "--name", "City map");
  expect(renamed.code).toBe(0);
  expect(renamed.out).toContain('Updated style acme/city: name "city" -> "City map"');
  expect(JSON.parse(cli("styles", "list", "--org", "acme", "--json").out)[0]).toMatchObject({ slug: "city", name: "City map", visibility: "public" });

  expect(await anonymous("/styles/v1/acme/city")).toBe(200);
  const priv = cli("styles", "update", "--org", "acme", "--slug", "city", "--private", "--json");
  expect(priv.code).toBe(0);
  expect(JSON.parse(priv.out)).toMatchObject({ name: "City map", visibility: "private" });
  expect(await anonymous("/styles/v1/acme/city")).toBe(404);
  expect(cli("styles", "update", "--org", "acme", "--slug", "city", "--public").code).toBe(0);
  expect(await anonymous("/styles/v1/acme/city")).toBe(200);
});

test("refused: nothing to change, --private with --public, blank names, flags of other subcommands (exit 2); unknown org, tileset, style (exit 1)", () => {
  const refused = (code: number, pattern: RegExp, ...args: string[]) => {
    const r = cli(...args);
    expect(r.err).toMatch(pattern);
    expect(r.code).toBe(code);
  };
  for (const group of ["tilesets", "styles"]) {
    refused(2, new RegExp(`mapstead ${group}: update needs something to change: --private or --public`), group, "update", "--org", "acme", "--slug", "x");
    refused(2, /--private and --public contradict each other; give one/, group, "update", "--org", "acme", "--slug", "x", "--private", "--public");
    refused(2, /--name must .*blank/, group, "update", "--org", "acme", "--slug", "x", "--name", " ");
    refused(2, /--slug is required/, group, "update", "--org", "acme", "--private");
    refused(1, /no organization 'acmee'; did you mean 'acme'\?/, group, "update", "--org", "acmee", "--slug", "mb", "--private");
  }
  refused(2, /--version is not for update/, "tilesets", "update", "--org", "acme", "--slug", "mb", "--private", "--version", "1");
  refused(2, /--public is for update, not create/, "tilesets", "create", "--org", "acme", "--slug", "y", "--public");
  refused(2, /--public is for update, not draft/, "styles", "draft", "--org", "acme", "--slug", "city", "--public", "x.json");
  refused(1, /mapstead tilesets: Tileset 'acme\/nope' not found/, "tilesets", "update", "--org", "acme", "--slug", "nope", "--private");
  refused(1, /mapstead styles: Style 'acme\/nope' does not exist/, "styles", "update", "--org", "acme", "--slug", "nope", "--private");
  // nothing was changed by any of them
  expect(JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out).map((t: { slug: string; visibility: string }) => `${t.slug} ${t.visibility}`)).toEqual(["mb public"]);
});

// `mapstead import-tileserver-gl` on a real TileServer GL layout (config.json, an MBTiles, a style with a
// local sprite and fonts Mapstead lacks), then a server on the same data dir serving what it made.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../support/app";
import { runCli } from "../support/cli";
import { PNG_1x1, countries, pmtiles, vectorTiles, writeMbtiles } from "../routes/management/tilesets/fixtures";

let dir: string;
const data = () => join(dir, "data");
const cli = (...args: string[]) => runCli(data(), ...args);

/** A TileServer GL layout as its docs describe it: root "tsgl", styles and data under it. */
function layout(root: string, style: Record<string, unknown>, extra: { data?: Record<string, unknown>; styles?: Record<string, unknown> } = {}) {
  mkdirSync(join(root, "tsgl/styles/basic"), { recursive: true });
  mkdirSync(join(root, "tsgl/tiles"), { recursive: true });
  writeMbtiles(join(root, "tsgl/tiles/world.mbtiles"), vectorTiles(countries(), "countries", 2), {
    name: "World",
    format: "pbf",
    minzoom: "0",
    maxzoom: "2",
    json: JSON.stringify({ vector_layers: [{ id: "countries", fields: { name: "String" } }] }),
  });
  writeFileSync(join(root, "tsgl/styles/basic/style.json"), JSON.stringify(style));
  writeFileSync(join(root, "tsgl/styles/basic/sprite.json"), JSON.stringify({ dot: { x: 0, y: 0, width: 1, height: 1, pixelRatio: 1 } }));
  writeFileSync(join(root, "tsgl/styles/basic/sprite.png"), PNG_1x1);
  const config = {
    options: { paths: { root: "tsgl", styles: "styles", mbtiles: "tiles", fonts: "fonts", sprites: "sprites" } },
    data: { World_Data: { mbtiles: "world.mbtiles" }, ...extra.data },
    styles: { basic: { style: "basic/style.json" }, ...extra.styles },
  };
  writeFileSync(join(root, "config.json"), JSON.stringify(config));
  return join(root, "config.json");
}

const basicStyle = (sourceUrl = "mbtiles://{World_Data}") => ({
  version: 8,
  name: "Basic",
  sources: { world: { type: "vector", url: sourceUrl } },
  glyphs: "{fontstack}/{range}.pbf",
  sprite: "{styleJsonFolder}/sprite",
  layers: [
    { id: "land", type: "fill", source: "world", "source-layer": "countries", paint: { "fill-color": "#cda" } },
    { id: "labels", type: "symbol", source: "world", "source-layer": "countries", layout: { "text-field": ["get", "name"], "text-font": ["Open Sans Bold"], "icon-image": "dot" } },
  ],
});

beforeAll(() => {
  dir = tempDir("mapstead-tsgl-cli-");
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
  expect(cli("orgs", "create", "--slug", "beta").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a dry run prints the plan and writes nothing; the import serves style, TileJSON, tiles, sprite and glyphs", async () => {
  const config = layout(join(dir, "ok"), basicStyle());

  const dry = cli("import-tileserver-gl", config, "--org", "acme", "--dry-run");
  expect(dry.code).toBe(0);
  expect(dry.out).toContain("tileset acme/world-data from data 'World_Data'");
  expect(dry.out).toContain("sources.world.url: mbtiles://{World_Data} -> mapstead://tilesets/acme/world-data");
  expect(dry.out).toContain("[Open Sans Bold] is not installed; drawn in Noto Sans Bold");
  expect(JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out)).toEqual([]);
  expect(cli("styles", "list", "--org", "acme", "--json").out.trim()).toBe("[]");

  const run = cli("import-tileserver-gl", config, "--org", "acme", "--publish");
  expect(run.err).not.toContain("✗");
  expect(run.code).toBe(0);
  expect(run.out).toContain("glyphs: {fontstack}/{range}.pbf -> mapstead://fonts/{fontstack}/{range}.pbf");
  expect(run.out).toContain('sprite: "{styleJsonFolder}/sprite" -> mapstead://sprites/acme/basic');
  expect(run.out).toContain('mapstead fonts add FILE.ttf|.otf --name "Open Sans Bold"');
  expect(run.out).toMatch(/\/styles\/basic\/style.json\s+-> https:\/\/maps.example.com\/styles\/v1\/acme\/basic\n/);
  expect(run.out).toMatch(/\/data\/World_Data.json\s+-> https:\/\/maps.example.com\/tiles\/v1\/acme\/world-data.json\n/);
  expect(run.out).toContain("/styles/basic/wmts.xml");
  expect(run.out).toContain("https://maps.example.com/styles/v1/acme/basic/tiles/256/{z}/{x}/{y}[@2x].png");
  expect(run.out).toContain("Imported 2 of 2 item(s)");

  const server = await makeTestApp({}, { dataDir: data() });
  try {
    const style = (await (await server.fetch("/styles/v1/acme/basic")).json()) as any;
    expect(style.sources.world.url).toBe(`${server.baseUrl}/tiles/v1/acme/world-data.json`);
    expect(style.glyphs).toBe(`${server.baseUrl}/fonts/v1/{fontstack}/{range}.pbf`);
    expect(style.layers[1].layout["text-font"]).toEqual(["Open Sans Bold", "Noto Sans Bold"]);
    const tj = (await (await server.fetch("/tiles/v1/acme/world-data.json")).json()) as any;
    expect(tj.vector_layers[0].id).toBe("countries");
    expect((await server.fetch("/tiles/v1/acme/world-data@1/0/0/0.mvt")).status).toBe(200);
    const sprite = await server.fetch(new URL(style.sprite + ".json").pathname);
    expect(sprite.status).toBe(200);
    expect(((await sprite.json()) as any).dot.width).toBe(1);
    expect((await server.fetch(new URL(style.sprite + "@2x.png").pathname)).status).toBe(200);
    expect((await server.fetch("/fonts/v1/Open%20Sans%20Bold,Noto%20Sans%20Bold/0-255.pbf")).status).toBe(200);
  } finally {
    await server.close();
  }

  // Run again: both slugs are taken, so nothing is changed and each is said with its fix.
  const again = cli("import-tileserver-gl", config, "--org", "acme");
  expect(again.code).toBe(1);
  expect(again.err).toContain("the tileset acme/world-data exists already; delete it (mapstead tilesets delete --org acme --slug world-data)");
  expect(again.err).toContain("the style acme/basic exists already");
});

test("without --publish the style pins the imported versions and stays a draft; PMTiles data; --font-fallback", () => {
  const root = join(dir, "draft");
  mkdirSync(join(root, "tsgl/pm"), { recursive: true });
  const shade = pmtiles([[0, 0, 0, PNG_1x1]], { tileType: 2, tileCompression: 1, metadata: {}, bounds: [-180, -85, 180, 85], minzoom: 0, maxzoom: 0 });
  writeFileSync(join(root, "tsgl/pm/shade.pmtiles"), shade);
  const style = basicStyle("mbtiles://World_Data");
  (style.sources as Record<string, unknown>).shade = { type: "raster", url: "pmtiles://{shade}", tileSize: 256 };
  style.layers.splice(1, 0, { id: "shade", type: "raster", source: "shade" } as never);
  const config = layout(root, style, { data: { shade: { pmtiles: "shade.pmtiles" } } });
  const paths = JSON.parse(readFileSync(config, "utf8"));
  paths.options.paths.pmtiles = "pm";
  writeFileSync(config, JSON.stringify(paths));

  expect(cli("import-tileserver-gl", config, "--org", "beta", "--font-fallback", "Comic Sans").err).toContain('--font-fallback "Comic Sans" is not installed');
  const run = cli("import-tileserver-gl", config, "--org", "beta", "--font-fallback", "Noto Sans Italic");
  expect(run.code).toBe(0);
  expect(run.out).toContain("-> mapstead://tilesets/beta/world-data@1");
  expect(run.out).toContain("sources.shade.url: pmtiles://{shade} -> mapstead://tilesets/beta/shade@1");
  expect(run.out).toContain("drawn in Noto Sans Italic");
  expect(run.out).toContain("mapstead styles publish --org beta --slug basic");
  expect(run.out).toContain("tilesets and styles are public; these URLs answer once published");
  expect(cli("styles", "publish", "--org", "beta", "--slug", "basic").code).toBe(0);
  const exported = JSON.parse(cli("styles", "export", "--org", "beta", "--slug", "basic").out);
  expect(exported.sources.shade.url).toBe("https://maps.example.com/tiles/v1/beta/shade@1.json");
});

test("user mistakes: each named with its file or id and fix, exit 1, the other items still imported", () => {
  expect(cli("orgs", "create", "--slug", "gamma").code).toBe(0);
  const missingConfig = cli("import-tileserver-gl", join(dir, "nope.json"), "--org", "gamma");
  expect(missingConfig.code).toBe(1);
  expect(missingConfig.err).toContain("nope.json does not exist");

  const root = join(dir, "bad");
  const config = layout(root, basicStyle(), {
    data: { gone: { mbtiles: "gone.mbtiles" } },
    styles: { broken: { style: "broken.json" }, stray: { style: "stray.json" }, refused: { style: "refused.json" } },
  });
  writeFileSync(join(root, "tsgl/styles/broken.json"), "{ not json");
  writeFileSync(join(root, "tsgl/styles/stray.json"), JSON.stringify({ ...basicStyle("mbtiles://{osm}"), sprite: undefined }));
  // a source-layer the tileset lacks: Mapstead's validation refuses it
  const refused = basicStyle();
  refused.layers[0]!["source-layer"] = "roads";
  writeFileSync(join(root, "tsgl/styles/refused.json"), JSON.stringify({ ...refused, sprite: undefined }));

  // a style on the missing archive is held back with it
  writeFileSync(join(root, "tsgl/styles/on-gone.json"), JSON.stringify({ ...basicStyle("mbtiles://{gone}"), sprite: undefined }));
  const withOnGone = JSON.parse(readFileSync(config, "utf8"));
  withOnGone.styles["on-gone"] = { style: "on-gone.json" };
  writeFileSync(config, JSON.stringify(withOnGone));
  const dry = cli("import-tileserver-gl", config, "--org", "gamma", "--dry-run");
  expect(dry.code).toBe(1);
  expect(dry.out).toContain("its data 'gone' cannot be imported (see that entry)");
  expect(dry.out).toContain("4 item(s) would not be imported");

  const run = cli("import-tileserver-gl", config, "--org", "gamma", "--publish");
  expect(run.code).toBe(1);
  expect(run.err).toContain("data 'gone':");
  expect(run.err).toContain("gone.mbtiles does not exist");
  expect(run.err).toMatch(/style 'broken': .*broken.json is not valid JSON/);
  expect(run.err).toContain("the config's \"data\" has no id 'osm' (it has: World_Data, gone)");
  expect(run.err).toMatch(/style 'refused' .* is refused by Mapstead's validation/);
  expect(run.err).toContain("roads");
  expect(run.out).not.toContain("/styles/refused/style.json");
  expect(run.out).toContain("Imported 2 of 7 item(s): tileset gamma/world-data, style gamma/basic");
  const styles = JSON.parse(cli("styles", "list", "--org", "gamma", "--json").out) as { slug: string }[];
  expect(styles.map((s) => s.slug)).toEqual(["basic"]);
  expect((JSON.parse(cli("tilesets", "list", "--org", "gamma", "--json").out) as { slug: string }[]).map((t) => t.slug)).toEqual(["world-data"]);
});

test("a style naming an archive file two data entries share is refused as unknown, not taken to mean either", () => {
  const root = join(dir, "twins");
  const config = layout(root, basicStyle("mbtiles://world.mbtiles"), { data: { Copy: { mbtiles: "copy/world.mbtiles" } } });
  mkdirSync(join(root, "tsgl/tiles/copy"), { recursive: true });
  writeFileSync(join(root, "tsgl/tiles/copy/world.mbtiles"), readFileSync(join(root, "tsgl/tiles/world.mbtiles")));
  expect(cli("orgs", "create", "--slug", "delta").code).toBe(0);
  const dry = cli("import-tileserver-gl", config, "--org", "delta", "--dry-run");
  expect(dry.code).toBe(1);
  expect(dry.out + dry.err).toContain("has no id 'world.mbtiles'");
});

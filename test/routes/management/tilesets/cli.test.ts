// `mapstead tilesets ...` as an operator runs it: a real process on a real data dir.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { makeTestApp } from "../../../support/app";
import { countries, toNdjson, cities } from "./fixtures";
import { EPSG_2056, gpkgBlob, writeGeopackage } from "./geopackage-fixtures";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { PMTiles, SharedPromiseCache } from "pmtiles";
import { inspectMbtiles } from "../../../../src/tiles/mbtiles";
import { LocalFileSource } from "../../../../src/tiles/pmtiles";
import { runCli } from "../../../support/cli";

let dir: string;
const cli = (...args: string[]) => runCli(join(dir, "data"), ...args);
/** a file of a kind no importer reads (TypeScript source) */
const NOT_DATA = join(import.meta.dir, "../../../../src/main.ts");

beforeAll(async () => {
  dir = tempDir("mapstead-tilesets-cli-");
  writeFileSync(join(dir, "world.geojson"), JSON.stringify(countries()));
  writeFileSync(join(dir, "cities.ndjson"), toNdjson(await cities(1000)));
  writeFileSync(join(dir, "broken.geojson"), JSON.stringify(countries()).slice(0, 5000));
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("create, import with progress, publish, list, delete", async () => {
  const created = cli("tilesets", "create", "--org", "acme", "--slug", "world", "--name", "World", "--attribution", "Natural Earth");
  expect(created.code).toBe(0);
  expect(created.out).toContain("acme/world");

  const imported = cli("tilesets", "import", "--org", "acme", "--slug", "world", join(dir, "world.geojson"), "--maxzoom", "4", "--layer", "countries");
  // world-atlas draws for a globe: the rings stepping from 180 to -180 are repaired, and said so; nothing else.
  expect(imported.err.split("\n").filter((l) => l.startsWith("warning") && !l.endsWith("crossing of the antimeridian unwrapped"))).toEqual([]);
  expect(imported.code).toBe(0);
  expect(imported.out).toContain("Ready: acme/world v1");
  expect(imported.out).toContain("https://maps.example.com/tiles/v1/acme/world@1.json");
  expect(imported.err).toMatch(/\[#+-*\]\s+\d+\.\d%/);
  expect(imported.err).toContain("ETA");
  expect(imported.err).toContain("100.0%");

  const auto = cli("tilesets", "import", "--org", "acme", "--slug", "cities", join(dir, "cities.ndjson"), "--create", "--publish", "--include", "name");
  expect(auto.code).toBe(0);
  expect(auto.out).toContain("Created tileset acme/cities");
  expect(auto.out).toContain("Published: https://maps.example.com/tiles/v1/acme/cities.json");

  expect(cli("tilesets", "publish", "--org", "acme", "--slug", "world", "--version", "1").code).toBe(0);
  const listed = cli("tilesets", "list", "--org", "acme", "--json");
  const rows = JSON.parse(listed.out) as any[];
  expect(rows.map((r) => [r.slug, r.published_version, r.latest.state])).toEqual([
    ["cities", 1, "ready"],
    ["world", 1, "ready"],
  ]);
  expect(rows[0].latest.layers).toEqual([{ id: "cities", fields: { name: "String" }, minzoom: 0, maxzoom: 6 }]);

  // A server on the same data dir serves what the CLI loaded.
  const server = await makeTestApp({}, { dataDir: join(dir, "data") });
  try {
    const tj = (await (await server.fetch("/tiles/v1/acme/world.json")).json()) as any;
    expect(tj.vector_layers[0].id).toBe("countries");
    expect(tj.attribution).toBe("Natural Earth");
    expect((await server.fetch("/tiles/v1/acme/world@1/0/0/0.mvt")).status).toBe(200);
  } finally {
    await server.close();
  }

  const broken = cli("tilesets", "import", "--org", "acme", "--slug", "world", join(dir, "broken.geojson"));
  expect(broken.code).toBe(1);
  expect(broken.err).toContain("failed");
  expect(broken.err).toContain("truncated");

  const unsupported = cli("tilesets", "import", "--org", "acme", "--slug", "world", NOT_DATA);
  expect(unsupported.code).toBe(1);
  expect(unsupported.err).toContain("Unsupported upload");

  const published = cli("tilesets", "delete", "--org", "acme", "--slug", "world", "--version", "1");
  expect(published.code).toBe(1);
  expect(published.err).toContain("publish another version or unpublish first");
  // The hint can be followed from the command line: unpublish, then the version can go.
  expect(cli("tilesets", "unpublish", "--org", "acme", "--slug", "world", "--version", "1").code).toBe(2);
  const unpublished = cli("tilesets", "unpublish", "--org", "acme", "--slug", "world");
  expect(unpublished.code).toBe(0);
  expect(unpublished.out).toContain("Unpublished acme/world");
  expect((JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).find((r) => r.slug === "world").published_version).toBeNull();
  // Again: nothing to unpublish, and it says so rather than claiming it did.
  const again = cli("tilesets", "unpublish", "--org", "acme", "--slug", "world");
  expect([again.code, again.out.trim()]).toEqual([0, "acme/world is not published; nothing changed"]);
  expect(cli("tilesets", "publish", "--org", "acme", "--slug", "world", "--version", "1").code).toBe(0);
  expect(cli("tilesets", "delete", "--org", "acme", "--slug", "world", "--version", "2").code).toBe(0); // the failed one
  const gone = cli("tilesets", "delete", "--org", "acme", "--slug", "world");
  expect(gone.code).toBe(0);
  expect(cli("tilesets", "list", "--org", "acme").out).not.toContain("world");
  expect(readdirSync(join(dir, "data", "uploads"))).toEqual([]);
});

test("usage errors exit 2 and say what is wrong", () => {
  expect(cli("tilesets").code).toBe(2);
  const noOrg = cli("tilesets", "list");
  expect(noOrg.code).toBe(2);
  expect(noOrg.err).toContain("--org");
  const noFile = cli("tilesets", "import", "--org", "acme", "--slug", "x", join(dir, "missing.geojson"));
  expect(noFile.code).toBe(2);
  expect(noFile.err).toContain("missing.geojson does not exist");
  expect(cli("tilesets", "publish", "--org", "acme", "--slug", "x").code).toBe(2);
  const unknownOrg = cli("tilesets", "list", "--org", "nobody");
  expect(unknownOrg.code).toBe(1);
  expect(unknownOrg.err).toContain("nobody");
});

test("import with several files makes one layer per file; a recipe file and flags shape them", () => {
  writeFileSync(join(dir, "recipe.json"), JSON.stringify({ layers: { "cities.ndjson": { layer: "towns", include: ["name"] } } }));
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "atlas", "--create", join(dir, "world.geojson"), join(dir, "cities.ndjson"), "--recipe", join(dir, "recipe.json"), "--maxzoom", "3");
  expect(r.err).toContain("100.0%");
  expect(r.code).toBe(0);
  expect(r.out).toContain("world.geojson, cities.ndjson");
  const rows = JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[];
  const atlas = rows.find((row) => row.slug === "atlas");
  expect(atlas.latest.layers).toEqual([
    { id: "world", fields: { name: "String" }, minzoom: 0, maxzoom: 3 },
    { id: "towns", fields: { name: "String" }, minzoom: 0, maxzoom: 3 },
  ]);
  const bad = cli("tilesets", "import", "--org", "acme", "--slug", "atlas", join(dir, "world.geojson"), "--tile-bytes", "5");
  expect(bad.code).toBe(2);
  expect(bad.err).toContain("tile_bytes");
  // A misspelt setting in a recipe file is refused, naming it (it would build with the default).
  writeFileSync(join(dir, "typo.json"), JSON.stringify({ max_zoom: 5 }));
  const typo = cli("tilesets", "import", "--org", "acme", "--slug", "atlas", join(dir, "world.geojson"), "--recipe", join(dir, "typo.json"));
  expect(typo.code).toBe(2);
  expect(typo.err).toContain("invalid recipe: setting 'max_zoom' is unknown (did you mean 'maxzoom'?)");
  writeFileSync(join(dir, "typo.json"), JSON.stringify({ layers: { "world.geojson": { maxZoom: 5 } } }));
  const layerTypo = cli("tilesets", "import", "--org", "acme", "--slug", "atlas", join(dir, "world.geojson"), "--recipe", join(dir, "typo.json"));
  expect(layerTypo.err).toContain("layers.world.geojson: unknown setting 'maxZoom' (did you mean 'maxzoom'?)");
});

test("export writes any ready version as PMTiles or MBTiles, readable by the pmtiles package and the importer", async () => {
  // atlas v1 is an MBTiles version (the test above); export it as PMTiles.
  const pm = join(dir, "atlas.pmtiles");
  const r = cli("tilesets", "export", "--org", "acme", "--slug", "atlas", pm);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(r.out).toContain("atlas v1");
  const archive = new PMTiles(new LocalFileSource(pm), new SharedPromiseCache());
  const header = await archive.getHeader();
  expect([header.minZoom, header.maxZoom, header.clustered]).toEqual([0, 3, true]);
  expect(((await archive.getMetadata()) as any).vector_layers.map((l: any) => l.id)).toEqual(["world", "towns"]);
  const world = new VectorTile(new PbfReader(new Uint8Array((await archive.getZxy(0, 0, 0))!.data)));
  expect(Object.keys(world.layers).sort()).toEqual(["towns", "world"]);

  // A PMTiles version (recipe output) exported back to MBTiles passes the importer's own validation.
  expect(cli("tilesets", "import", "--org", "acme", "--slug", "atlas", join(dir, "world.geojson"), "--output", "pmtiles", "--maxzoom", "2").code).toBe(0);
  const mb = join(dir, "atlas-v2.mbtiles");
  expect(cli("tilesets", "export", "--org", "acme", "--slug", "atlas", "--version", "2", mb).code).toBe(0);
  const inspected = inspectMbtiles(mb, "atlas-v2.mbtiles");
  expect(inspected.facts.maxzoom).toBe(2);
  expect(inspected.facts.vector_layers.map((l) => l.id)).toEqual(["atlas"]);
  expect(inspected.tiles).toBeGreaterThan(5);

  // Refusals: an existing file, a bad format, a version that does not exist.
  expect(cli("tilesets", "export", "--org", "acme", "--slug", "atlas", mb).code).toBe(2);
  expect(cli("tilesets", "export", "--org", "acme", "--slug", "atlas", "--format", "zip", join(dir, "x.zip")).code).toBe(2);
  // A name that says another kind of file, or disagrees with --format: nothing is written.
  const named = cli("tilesets", "export", "--org", "acme", "--slug", "atlas", join(dir, "out.geojson"));
  expect(named.code).toBe(2);
  expect(named.err).toContain("out.geojson ends in .geojson, but an export is a tile archive: name it .mbtiles or .pmtiles");
  expect(existsSync(join(dir, "out.geojson"))).toBe(false);
  expect(cli("tilesets", "export", "--org", "acme", "--slug", "atlas", "--format", "pmtiles", join(dir, "y.mbtiles")).err).toContain("--format is pmtiles");
  const missing = cli("tilesets", "export", "--org", "acme", "--slug", "atlas", "--version", "9", join(dir, "v9.pmtiles"));
  expect(missing.code).toBe(1);
  expect(missing.err).toContain("Version 9");
});

test("import into a tileset that does not exist says how to make it", () => {
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "nowhere", join(dir, "world.geojson"));
  expect(r.code).toBe(1);
  expect(r.err).toContain("add --create to make it with this import, or run mapstead tilesets create --org acme --slug nowhere first");
});

test("a failed import --create takes the tileset it made with it; a tileset that was there stays", () => {
  for (const [slug, file, said] of [["refused", NOT_DATA, "not"], ["broken", join(dir, "broken.geojson"), "failed"]] as const) {
    const r = cli("tilesets", "import", "--org", "acme", "--slug", slug, file, "--create");
    expect(r.code).toBe(1);
    expect(r.err).toContain(said);
    expect(r.err).toContain(`Removed tileset acme/${slug} again, which this import had created`);
    expect(cli("tilesets", "list", "--org", "acme", "--json").out).not.toContain(`"slug": "${slug}"`);
  }
  expect(cli("tilesets", "create", "--org", "acme", "--slug", "kept").code).toBe(0);
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "kept", NOT_DATA, "--create");
  expect(r.code).toBe(1);
  expect(r.err).not.toContain("Removed");
  expect(cli("tilesets", "list", "--org", "acme", "--json").out).toContain(`"slug": "kept"`);
});

test("an --org that names no organization suggests the one meant, and creating it only where the name could be one", () => {
  for (const group of ["tilesets", "styles", "keys"]) {
    const typo = cli(group, "list", "--org", "acmee");
    expect([typo.code, typo.err.trim()]).toEqual([1, `mapstead ${group}: no organization 'acmee'; did you mean 'acme'? (mapstead orgs list shows them all)`]);
    expect(cli(group, "list", "--org", "ACME").err).toContain("did you mean 'acme'?");
  }
  expect(cli("tilesets", "list", "--org", "zebra").err.trim()).toBe("mapstead tilesets: no organization 'zebra'; see them with: mapstead orgs list, or create it: mapstead orgs create --slug zebra");
  const invalid = cli("styles", "list", "--org", "Big_Corp").err.trim();
  expect(invalid).toBe("mapstead styles: no organization 'Big_Corp'; see them with: mapstead orgs list (organization names are lowercase letters, digits and inner hyphens)");
});

test("import --help names the data-credit option, so imported maps can show their attribution", async () => {
  const r = await cli("tilesets", "import", "--help");
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/mapstead tilesets import [^\n]*--attribution TEXT/);
});

test("import of a GeoPackage makes one layer per feature table; another coordinate system is refused naming it", () => {
  const point = (lon: number, lat: number) => gpkgBlob({ type: "Point", coordinates: [lon, lat] });
  const line = gpkgBlob({ type: "LineString", coordinates: [[0, 0], [10, 10]] });
  writeGeopackage(join(dir, "mixed.gpkg"), {
    features: [
      { name: "stops", columns: [["name", "TEXT"]], rows: [[point(7.4, 46.9), "Bern"], [point(8.5, 47.4), "Zürich"]] },
      { name: "lines", columns: [["ref", "TEXT"]], rows: [[line, "S1"]] },
    ],
  });
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "transit", "--create", join(dir, "mixed.gpkg"), "--maxzoom", "3");
  expect(r.err).toContain("100.0%");
  expect(r.code).toBe(0);
  expect(r.out).toContain("(geopackage,");
  const rows = JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[];
  expect(rows.find((row) => row.slug === "transit").latest.layers.map((l: any) => l.id)).toEqual(["stops", "lines"]);

  writeGeopackage(join(dir, "swiss.gpkg"), { features: [{ name: "stops", srsId: 2056, rows: [[point(2600000, 1200000)]] }], srs: [EPSG_2056] });
  const refused = cli("tilesets", "import", "--org", "acme", "--slug", "transit", join(dir, "swiss.gpkg"));
  expect(refused.code).toBe(1);
  expect(refused.err).toContain("swiss.gpkg (table stops): coordinates use EPSG:2056 (CH1903+ / LV95)");
});

test("--layers takes the recipe's JSON, as the upload's parameter of the same name", () => {
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "two-layers", join(dir, "world.geojson"), join(dir, "cities.ndjson"), "--create", "--maxzoom", "2", "--layers", '{"cities.ndjson": {"layer": "towns", "include": ["name"]}}');
  expect(r.code).toBe(0);
  const [row] = (JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).filter((t) => t.slug === "two-layers");
  expect(row.latest.layers.map((l: any) => [l.id, Object.keys(l.fields)])).toEqual([
    ["world", ["name"]],
    ["towns", ["name"]],
  ]);
  const bad = cli("tilesets", "import", "--org", "acme", "--slug", "two-layers", join(dir, "world.geojson"), "--layers", "{nope");
  expect(bad.code).toBe(2);
  expect(bad.err).toContain(`--layers must be JSON, e.g. '{"places.csv": {"layer": "towns"}}'`);
});

test("--filter, --types and --cluster take the recipe's JSON, as the upload's parameters of the same names", async () => {
  const all = (await cities(1000)).features;
  const japanese = all.filter((f) => f.properties?.country === "JP").length;
  expect(japanese).toBeGreaterThan(0);
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "japan", join(dir, "cities.ndjson"), "--create", "--maxzoom", "5", "--filter", '["==", "country", "JP"]', "--types", '{"population": "string"}', "--cluster", '{"radius": 30}');
  expect(r.code).toBe(0);
  expect(r.err).toContain(`warning: ${all.length - japanese} of ${all.length} features were left out by the recipe filter`);
  expect(r.out).toContain(`${japanese} features`);
  const [row] = (JSON.parse(cli("tilesets", "list", "--org", "acme", "--json").out) as any[]).filter((t) => t.slug === "japan");
  expect(row.latest.layers[0].fields.population).toBe("String");
  const bad = cli("tilesets", "import", "--org", "acme", "--slug", "japan", join(dir, "cities.ndjson"), "--filter", "[==, country]");
  expect(bad.code).toBe(2);
  expect(bad.err).toContain(`--filter must be JSON, e.g. '[">=", "population", 100000]'`);
  const refused = cli("tilesets", "import", "--org", "acme", "--slug", "japan", join(dir, "cities.ndjson"), "--cluster", '{"radius": 999}');
  expect(refused.code).toBe(2);
  expect(refused.err).toContain("cluster.radius must be a number of pixels from 1 to 256");
});

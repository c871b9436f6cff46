// `mapstead tilesets ...` as an operator runs it: a real process on a real data dir.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../../support/app";
import { makeTestApp } from "../../../support/app";
import { countries, toNdjson, cities } from "./fixtures";

let dir: string;
const MAIN = join(import.meta.dir, "../../../../src/main.ts");

function cli(...args: string[]) {
  const r = Bun.spawnSync(["bun", MAIN, ...args, "--data-dir", join(dir, "data"), "--public-url", "https://maps.example.com"], {
    env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

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
  expect(imported.err).not.toContain("warning");
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

  const unsupported = cli("tilesets", "import", "--org", "acme", "--slug", "world", MAIN);
  expect(unsupported.code).toBe(1);
  expect(unsupported.err).toContain("Unsupported upload");

  expect(cli("tilesets", "delete", "--org", "acme", "--slug", "world", "--version", "1").code).toBe(1); // published
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
  expect(noFile.err).toContain("not a readable file");
  expect(cli("tilesets", "publish", "--org", "acme", "--slug", "x").code).toBe(2);
  const unknownOrg = cli("tilesets", "list", "--org", "nobody");
  expect(unknownOrg.code).toBe(1);
  expect(unknownOrg.err).toContain("nobody");
});

test("import --help names the data-credit option, so imported maps can show their attribution", async () => {
  const r = await cli("tilesets", "import", "--help");
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/mapstead tilesets import [^\n]*--attribution TEXT/);
});

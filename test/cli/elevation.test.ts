// `mapstead elevation show|use|clear`: an operator with only the CLI chooses the DEM the elevation API
// samples, as the console's Elevation page does (the same service and setting), and a server running on
// the same data dir answers from it without a restart; ELEVATION_TILESET wins; bad choices are refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir, type TestApp } from "../support/app";
import { runCli } from "../support/cli";
import { seedKey } from "../support/seed";
import { hgtBytes, ramp } from "../support/dem";
import { orgBySlug } from "../../src/domain/orgs/service";

let dir: string;
let server: TestApp;
let key: Record<string, string>;
const data = () => join(dir, "data");
const cli = (...args: string[]) => runCli(data(), ...args);
const importDem = (slug: string, file: string) => cli("tilesets", "import", "--org", "acme", "--slug", slug, "--create", "--publish", "--maxzoom", "8", join(dir, file));
/** The running server's answer for one point, once it has heard of the CLI's change (the change bus, polled now rather than within a second). */
async function height(app: TestApp, lon = 7.5, lat = 46.5): Promise<{ status: number; elevation?: number }> {
  app.services.changes.poll();
  const res = await app.fetch(`/elevation/v1/${lon},${lat}`, { headers: key });
  return res.status === 200 ? { status: 200, elevation: ((await res.json()) as { elevations: { elevation: number }[] }).elevations[0]!.elevation } : { status: res.status };
}

beforeAll(async () => {
  dir = tempDir("mapstead-cli-elevation-");
  writeFileSync(join(dir, "N46E007.hgt"), hgtBytes(61, { lon: 7, lat: 46 }, ramp));
  mkdirHigh();
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
  server = await makeTestApp({}, { dataDir: data() });
  key = { "x-api-key": seedKey(server.ctx, orgBySlug(server.ctx.db, "acme")!.id, ["elevation"]).secret };
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function mkdirHigh() {
  mkdirSync(join(dir, "high"));
  writeFileSync(join(dir, "high", "N46E007.hgt"), hgtBytes(61, { lon: 7, lat: 46 }, (lon, lat) => ramp(lon, lat) + 500));
}

test("a DEM imported with --publish is chosen with elevation use, and the running server answers heights from it without a restart", async () => {
  expect(await height(server)).toEqual({ status: 503 });
  const before = cli("elevation", "show");
  expect(before.code).toBe(0);
  expect(before.out).toContain("Elevation API: none: elevation answers 503 ELEVATION_NOT_CONFIGURED; choose a DEM with: mapstead elevation use");

  const imported = importDem("srtm", "N46E007.hgt");
  expect(imported.code).toBe(0);
  expect(imported.out).toContain("No elevation DEM is chosen yet; to answer the elevation API from this one: mapstead elevation use --org acme --tileset srtm");

  const use = cli("elevation", "use", "--org", "acme", "--tileset", "srtm");
  expect(use.code).toBe(0);
  expect(use.out).toContain("Chosen: elevation samples acme/srtm v1 (terrarium png, zoom 0-8, covers 7,46,8,47)");
  expect(use.out).toContain("Elevation API: the embedded DEM");
  const answer = await height(server);
  expect(answer.status).toBe(200);
  expect(Math.abs(answer.elevation! - ramp(7.5, 46.5))).toBeLessThan(2);

  // Stored where the console keeps it: its settings answer the same.
  expect(server.services.elevationSettings.view()).toMatchObject({ backend: "embedded", tileset: "acme/srtm", source: "console", console_tileset: "acme/srtm" });
  const shown = JSON.parse(cli("elevation", "show", "--json").out);
  expect(shown).toMatchObject({ backend: "embedded", tileset: "acme/srtm", source: "console", dem: { version: 1, encoding: "terrarium" } });

  // Once a DEM is chosen, the next DEM import says nothing of it.
  const second = importDem("high", "high/N46E007.hgt");
  expect(second.code).toBe(0);
  expect(second.out).not.toContain("mapstead elevation use");
  expect(cli("elevation", "use", "--org", "acme", "--tileset", "high").code).toBe(0);
  // Left to the server's own change-bus watcher this time (no poll here): it hears the switch within a second.
  const started = Date.now();
  let seen: number | undefined;
  while (Date.now() - started < 3000) {
    const res = await server.fetch("/elevation/v1/7.5,46.5", { headers: key });
    seen = ((await res.json()) as { elevations: { elevation: number }[] }).elevations[0]!.elevation;
    if (Math.abs(seen - ramp(7.5, 46.5) - 500) < 2) break;
    await Bun.sleep(100);
  }
  expect(Math.abs(seen! - ramp(7.5, 46.5) - 500)).toBeLessThan(2);
  expect(Date.now() - started).toBeLessThan(2500);

  const cleared = cli("elevation", "clear");
  expect(cleared.code).toBe(0);
  expect(cleared.out).toContain("Cleared the elevation DEM (was acme/high)");
  expect(await height(server)).toEqual({ status: 503 });
  expect(cli("elevation", "clear").out).toContain("No elevation DEM is chosen; nothing changed");
  expect(cli("elevation", "use", "--org", "acme", "--tileset", "srtm").code).toBe(0);
});

test("refused: unknown org or tileset, a vector or unpublished tileset (exit 1), bad flags (exit 2); the choice stays", async () => {
  expect(cli("tilesets", "create", "--org", "acme", "--slug", "empty").code).toBe(0);
  writeFileSync(join(dir, "p.geojson"), JSON.stringify({ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [7.5, 46.5] } }));
  expect(cli("tilesets", "import", "--org", "acme", "--slug", "points", "--create", "--publish", "--maxzoom", "2", join(dir, "p.geojson")).code).toBe(0);
  const refused = (code: number, pattern: RegExp, ...args: string[]) => {
    const r = cli("elevation", ...args);
    expect(r.err).toMatch(pattern);
    expect(r.code).toBe(code);
  };
  refused(1, /mapstead elevation: no organization 'acmee'; did you mean 'acme'\?/, "use", "--org", "acmee", "--tileset", "srtm");
  refused(1, /mapstead elevation: Tileset 'acme\/nope' not found/, "use", "--org", "acme", "--tileset", "nope");
  refused(1, /mapstead elevation: acme\/points is not a raster DEM \(its tiles are pbf/, "use", "--org", "acme", "--tileset", "points");
  refused(1, /mapstead elevation: the DEM tileset acme\/empty has no published version; publish a ready version/, "use", "--org", "acme", "--tileset", "empty");
  refused(2, /expected `elevation show\|use\|clear`/);
  refused(2, /expected `elevation show\|use\|clear`/, "set");
  refused(2, /--tileset is required/, "use", "--org", "acme");
  refused(2, /--org is required/, "use", "--tileset", "srtm");
  refused(2, /--tileset is the tileset's slug; its organization goes in --org \(e\.g\. --org acme --tileset srtm\)/, "use", "--org", "acme", "--tileset", "acme/srtm");
  refused(2, /--org and --tileset are for use, not clear/, "clear", "--tileset", "srtm");
  refused(2, /--json is for show, not use/, "use", "--org", "acme", "--tileset", "srtm", "--json");
  expect(server.services.elevationSettings.view()).toMatchObject({ tileset: "acme/srtm", source: "console" });
  expect((await height(server)).status).toBe(200);
});

test("ELEVATION_TILESET wins: show says so, use and clear are refused naming it, a server with it answers from its DEM", async () => {
  const shown = cli("elevation", "show", "--elevation-tileset", "acme/high");
  expect(shown.code).toBe(0);
  expect(shown.out).toContain("DEM:           acme/high v1");
  expect(shown.out).toContain("Chosen by:     ELEVATION_TILESET, which wins over the choice made with mapstead elevation use or in the console (acme/srtm, not in force while it is set)");
  for (const args of [["use", "--org", "acme", "--tileset", "high"], ["clear"]]) {
    const r = cli("elevation", ...args, "--elevation-tileset", "acme/high");
    expect(r.code).toBe(1);
    expect(r.err).toContain("mapstead elevation: ELEVATION_TILESET=acme/high is set (in the environment or the settings file) and wins over the DEM chosen here");
  }
  expect(server.services.elevationSettings.view()).toMatchObject({ tileset: "acme/srtm", source: "console" });
  const pinned = await makeTestApp({ ELEVATION_TILESET: "acme/high" }, { dataDir: data() });
  try {
    expect(Math.abs((await height(pinned)).elevation! - ramp(7.5, 46.5) - 500)).toBeLessThan(2);
    expect(Math.abs((await height(server)).elevation! - ramp(7.5, 46.5))).toBeLessThan(2);
  } finally {
    await pinned.close();
  }
});

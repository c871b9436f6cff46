// The compiled binary builds DEMs in its Worker thread (geotiff and the .hgt reader compiled in) and
// answers the elevation API from the result: `mapstead tilesets import` of a GeoTIFF and of zipped
// .hgt files, then `mapstead serve` with ELEVATION_TILESET. An MBTiles of lossless WebP tiles proves
// the embedded libwebp decoder (.wasm compiled in) in the import's worker and in the server.
import { afterAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { tempDir } from "../../../support/app";
import { runBinary, startBinary, type RunningBinary } from "../../../support/binary";
import { demWebpMbtiles, geotiffBytes, hgtBytes, ramp } from "../../../support/dem";

const root = tempDir("mapstead-dem-bin-");
const dataDir = join(root, "data");
let running: RunningBinary | null = null;

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("the binary builds DEMs from GeoTIFF and zipped .hgt and serves elevation from them", async () => {
  writeFileSync(join(root, "alps.tif"), geotiffBytes(50, 50, [7, 46, 8, 47], ramp));
  writeFileSync(join(root, "srtm.zip"), zipSync({ "N46E007.hgt": hgtBytes(61, { lon: 7, lat: 46 }, ramp) }));
  const env = { DATA_DIR: dataDir };
  expect((await runBinary(["orgs", "create", "--slug", "acme"], { env })).exitCode).toBe(0);
  const tif = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "alps", join(root, "alps.tif"), "--create", "--publish", "--maxzoom", "8"], { env, timeoutMs: 60_000 });
  expect(tif.stderr).not.toContain("failed");
  expect(tif.stdout).toMatch(/Ready: acme\/alps v1, \d+ tiles, zoom 0-8, raster DEM \(terrarium\)/);
  const hgt = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "srtm", join(root, "srtm.zip"), "--create", "--publish", "--encoding", "mapbox", "--maxzoom", "9"], { env, timeoutMs: 60_000 });
  expect(hgt.stderr).not.toContain("failed");
  expect(hgt.stdout).toContain("raster DEM (mapbox)");

  running = await startBinary({ dataDir, env: { ELEVATION_TILESET: "acme/srtm" } });
  const key = await runBinary(["keys", "create", "--org", "acme", "--name", "elev", "--scopes", "elevation", "--json"], { env });
  const secret = (JSON.parse(key.stdout) as { secret: string }).secret;
  const res = await running.fetch("/elevation/v1/7.25,46.75;7.8,46.1", { headers: { "x-api-key": secret } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { elevations: { elevation: number }[] };
  expect(Math.abs(body.elevations[0]!.elevation - ramp(7.25, 46.75))).toBeLessThan(0.5);
  expect(Math.abs(body.elevations[1]!.elevation - ramp(7.8, 46.1))).toBeLessThan(0.5);
  expect(((await (await running.fetch("/tiles/v1/acme/alps.json")).json()) as { encoding: string }).encoding).toBe("terrarium");

  await demWebpMbtiles(join(root, "relief.mbtiles"), "terrarium", 9, [7, 46, 8, 47], ramp, { declareEncoding: true });
  const webp = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "relief", join(root, "relief.mbtiles"), "--create", "--publish"], { env, timeoutMs: 60_000 });
  expect(webp.stderr).not.toContain("failed");
  expect(webp.stdout).toContain("raster DEM (terrarium)");
  await running.stop();
  running = await startBinary({ dataDir, env: { ELEVATION_TILESET: "acme/relief" } });
  const fromWebp = await running.fetch("/elevation/v1/7.25,46.75;7.8,46.1", { headers: { "x-api-key": secret } });
  expect(fromWebp.status).toBe(200);
  const webpBody = (await fromWebp.json()) as { elevations: { elevation: number }[] };
  expect(Math.abs(webpBody.elevations[0]!.elevation - ramp(7.25, 46.75))).toBeLessThan(0.5);
  expect(Math.abs(webpBody.elevations[1]!.elevation - ramp(7.8, 46.1))).toBeLessThan(0.5);
}, 300_000);

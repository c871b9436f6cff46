// The compiled executable renders: its render workers start from inside the binary, resvg's and
// libwebp's WebAssembly (encoder, and decoder for WebP DEM tiles) and the built-in fonts are embedded,
// and nothing is fetched at run time.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../../support/app";
import { binaryEnv, ensureBinary, startBinary, type RunningBinary } from "../../support/binary";
import { demWebpMbtiles } from "../../support/dem";
import { createTileset, publish, upload, waitForVersion } from "../../routes/management/tilesets/fixtures";
import { buildWorld, countColor, createStyle, LAND, OCEAN, pixelsOf } from "./world";

const root = tempDir("mapstead-render-bin-");
const dataDir = join(root, "data");
let running: RunningBinary | null = null;
let staticKey = "";

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

test("the compiled binary draws static images (png, jpg, webp) and raster tiles", async () => {
  const seeded = await makeTestApp({}, { dataDir });
  const w = await buildWorld(seeded);
  staticKey = w.staticKey;
  // A relief style over lossless WebP DEM tiles: the render workers decode them with libwebp's
  // WebAssembly, embedded in the binary, and shade and colour them.
  const archive = join(root, "ridge.mbtiles");
  await demWebpMbtiles(archive, "terrarium", 8, [7, 46, 8, 47], (_lon, lat) => 15000 - 30000 * Math.abs(lat - 46.5), { declareEncoding: true });
  await createTileset(seeded, "acme", w.session.headers, { slug: "ridge" });
  expect((await upload(seeded, "acme", "ridge", w.session.headers, new Uint8Array(readFileSync(archive)))).status).toBe(202);
  expect(((await waitForVersion(seeded, "acme", "ridge", 1, w.session.headers)) as { state: string }).state).toBe("ready");
  expect((await publish(seeded, "acme", "ridge", 1, w.session.headers)).status).toBe(200);
  await createStyle(seeded, w.session.headers, "relief", {
    version: 8,
    sources: { dem: { type: "raster-dem", url: "mapstead://tilesets/acme/ridge", tileSize: 256 } },
    layers: [
      { id: "bg", type: "background", paint: { "background-color": "#808080" } },
      { id: "colours", type: "color-relief", source: "dem", paint: { "color-relief-color": ["interpolate", ["linear"], ["elevation"], 12000, "#0000ff", 15000, "#ff0000"], "color-relief-opacity": 0.5 } },
      { id: "shade", type: "hillshade", source: "dem" },
    ],
  });
  await seeded.close();

  running = await startBinary({ dataDir });
  const headers = { "x-api-key": w.staticKey };
  const png = await running.fetch(`/static/v1/acme/world/10,30,1/300x200.png?overlay=${encodeURIComponent("pin-l-a+f0f(10,30)")}`, { headers });
  expect(png.status).toBe(200);
  const px = pixelsOf(new Uint8Array(await png.arrayBuffer()));
  expect([px.width, px.height]).toEqual([300, 200]);
  expect(countColor(px, OCEAN)).toBeGreaterThan(300 * 200 * 0.2);
  expect(countColor(px, LAND)).toBeGreaterThan(300 * 200 * 0.2);
  expect(countColor(px, [255, 0, 255])).toBeGreaterThan(50);

  const jpg = await running.fetch("/static/v1/acme/world/10,30,1/300x200.jpg", { headers });
  expect(jpg.status).toBe(200);
  expect([...new Uint8Array(await jpg.arrayBuffer()).subarray(0, 2)]).toEqual([0xff, 0xd8]);
  const webp = await running.fetch("/static/v1/acme/world/10,30,1/300x200.webp", { headers });
  expect(webp.status).toBe(200);
  expect(new TextDecoder().decode(new Uint8Array(await webp.arrayBuffer()).subarray(8, 12))).toBe("WEBP");

  const relief = await running.fetch("/static/v1/acme/relief/7.5,46.5,8/300x300.png?attribution=false&logo=false", { headers });
  expect(relief.status).toBe(200);
  const rpx = pixelsOf(new Uint8Array(await relief.arrayBuffer()));
  const at = (x: number, y: number) => [...rpx.data.subarray((y * 300 + x) * 4, (y * 300 + x) * 4 + 3)];
  // the crest red through the colours, the north slope lit and the south one shaded
  expect(at(150, 150)[0]!).toBeGreaterThan(at(150, 150)[2]! + 40);
  expect(at(150, 75)[1]!).toBeGreaterThan(at(150, 225)[1]! + 10);

  const tile = await running.fetch("/styles/v1/acme/world/tiles/256/1/1/0.png");
  expect(tile.status).toBe(200);
  expect(countColor(pixelsOf(new Uint8Array(await tile.arrayBuffer())), LAND)).toBeGreaterThan(256 * 256 * 0.25);
  expect(running.stderr()).not.toContain("error");
  expect(await running.stop()).toBe(0);
  running = null;
}, 300_000);

// A network namespace with nothing but loopback: proof that nothing is fetched from the internet.
const canIsolate = process.getuid?.() === 0 && !!Bun.which("unshare") && !!Bun.which("ip") && !!Bun.which("curl");

test.skipIf(!canIsolate)("with no network at all, the binary still draws a static image and a raster tile", async () => {
  expect(staticKey).not.toBe("");
  const bin = await ensureBinary();
  const out = join(root, "offline");
  const script = [
    "ip link set lo up",
    `"${bin}" serve >/dev/null 2>&1 & pid=$!`,
    "for i in $(seq 1 100); do curl -sf -o /dev/null http://127.0.0.1:18123/health && break; sleep 0.1; done",
    `curl -s -o "${out}-static.png" -w "%{http_code}\\n" -H "X-API-Key: ${staticKey}" "http://127.0.0.1:18123/static/v1/acme/world/10,30,1/300x200.png"`,
    `curl -s -o "${out}-tile.png" -w "%{http_code}\\n" "http://127.0.0.1:18123/styles/v1/acme/world/tiles/256/1/1/0.png"`,
    "kill $pid; wait $pid",
  ].join("\n");
  const proc = Bun.spawn(["unshare", "-n", "bash", "-c", script], {
    cwd: root,
    env: binaryEnv({ HOST: "127.0.0.1", PORT: "18123", PUBLIC_URL: "http://127.0.0.1:18123", DATA_DIR: dataDir, LOG_LEVEL: "error" }),
    stdout: "pipe",
    stderr: "pipe",
  });
  const stdout = await new Response(proc.stdout).text();
  await proc.exited;
  expect(stdout.trim().split("\n")).toEqual(["200", "200"]);
  const image = pixelsOf(await Bun.file(`${out}-static.png`).bytes());
  expect(countColor(image, LAND)).toBeGreaterThan(300 * 200 * 0.2);
  expect(countColor(pixelsOf(await Bun.file(`${out}-tile.png`).bytes()), LAND)).toBeGreaterThan(256 * 256 * 0.25);
}, 120_000);

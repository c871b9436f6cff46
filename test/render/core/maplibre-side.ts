// The MapLibre GL JS side of renderer comparisons (test and bench): a local server for a scene's tiles,
// glyph PBFs built from the bundled Noto Sans and the test sprite, and the scene's style pointed at it
// (its vector source "v", raster-dem source "d" and raster source "r").
import notoSansRegular from "../../../node_modules/@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf" with { type: "file" };
import type { Page } from "playwright-core";
import { buildRangePbf, parseFont, RANGE_SIZE } from "../../../src/glyphs";
import { resources, testSprite } from "./fixtures";
import type { Scene } from "./scenes";

export interface SceneServer {
  origin: string;
  /** the scene whose tiles are served (switch before opening its map) */
  use(scene: Scene): Promise<Awaited<ReturnType<typeof resources>>>;
  /** the scene's style with sources, glyphs and sprite on this server */
  style(scene: Scene): object;
  stop(): void;
}

export async function serveScenes(): Promise<SceneServer> {
  const font = parseFont(await Bun.file(notoSansRegular).arrayBuffer());
  const sprite = (await testSprite())[1];
  let current: Awaited<ReturnType<typeof resources>> | null = null;
  const cors = { "access-control-allow-origin": "*" };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = decodeURIComponent(new URL(req.url).pathname);
      const tile = /^\/tiles\/(\d+)\/(\d+)\/(\d+)\.pbf$/.exec(path);
      if (tile && current) {
        const bytes = await current.tile("v", Number(tile[1]), Number(tile[2]), Number(tile[3]));
        return bytes
          ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { ...cors, "content-type": "application/x-protobuf" } })
          : new Response(null, { status: 204, headers: cors });
      }
      const dem = /^\/dem\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(path);
      if (dem && current) {
        const bytes = await current.tile("d", Number(dem[1]), Number(dem[2]), Number(dem[3]));
        return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { ...cors, "content-type": "image/png" } }) : new Response(null, { status: 404, headers: cors });
      }
      const raster = /^\/raster\/(\d+)\/(\d+)\/(\d+)\.png$/.exec(path);
      if (raster && current) {
        const bytes = await current.tile("r", Number(raster[1]), Number(raster[2]), Number(raster[3]));
        return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { ...cors, "content-type": "image/png" } }) : new Response(null, { status: 404, headers: cors });
      }
      const glyphs = /^\/fonts\/([^/]+)\/(\d+)-\d+\.pbf$/.exec(path);
      if (glyphs) {
        const start = Number(glyphs[2]);
        return new Response(buildRangePbf(font, glyphs[1]!.split(",")[0]!, start - (start % RANGE_SIZE)).pbf as Uint8Array<ArrayBuffer>, { headers: cors });
      }
      if (path === "/sprite.json") return Response.json(sprite.json, { headers: cors });
      if (path === "/sprite.png") return new Response(sprite.png as Uint8Array<ArrayBuffer>, { headers: { ...cors, "content-type": "image/png" } });
      return new Response("not found", { status: 404, headers: cors });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    async use(scene) {
      current = await resources(scene.sources, { sprite: true });
      return current;
    },
    style: (scene) => ({
      ...scene.style,
      glyphs: `${origin}/fonts/{fontstack}/{range}.pbf`,
      sprite: `${origin}/sprite`,
      sources: {
        ...(scene.sources.vector?.v ? { v: { type: "vector", tiles: [`${origin}/tiles/{z}/{x}/{y}.pbf`], maxzoom: scene.sources.vector.v.maxzoom ?? 14 } } : {}),
        ...(scene.sources.raster?.r ? { r: { type: "raster", tiles: [`${origin}/raster/{z}/{x}/{y}.png`], tileSize: scene.sources.raster.r.tileSize ?? 256, maxzoom: scene.sources.raster.r.maxzoom ?? 14 } } : {}),
        ...(scene.sources.dem?.d
          ? { d: { type: "raster-dem", tiles: [`${origin}/dem/{z}/{x}/{y}.png`], encoding: scene.sources.dem.d.encoding, tileSize: scene.sources.dem.d.tileSize ?? 512, maxzoom: scene.sources.dem.d.maxzoom ?? 14 } }
          : {}),
      },
    }),
    stop: () => server.stop(true),
  };
}

/** Turns an open map to the scene's bearing and waits until it has redrawn. */
export async function applyBearing(page: Page, bearing: number): Promise<void> {
  if (!bearing) return;
  await page.evaluate(
    (b) =>
      new Promise<void>((resolve) => {
        const m = (window as unknown as { map: { once(e: string, f: () => void): void; jumpTo(o: object): void } }).map;
        m.once("idle", () => resolve());
        m.jumpTo({ bearing: b });
      }),
    bearing,
  );
}

// The hot public reads served from Bun's `routes` table (src/http/fast-routes.ts), each the same read/
// call as its Elysia twin's handler, with the viewer resolved the way the twin resolves it. The twin
// test (test/http/fast-routes.test.ts) holds the pairs to byte-identical answers.
import type { Services } from "../../services";
import type { FastRead } from "../../http/fast-routes";
import type { ReadAnswer } from "../../read/answer";
import { glyphAnswer } from "../../read/glyph-answers";
import { styleViewer } from "../../read/styles";
import type { TileRequest } from "../../read/tile-answers";
import type { GlyphRequest } from "../../read/glyph-answers";
import type { SpriteRequest, StyleRequest } from "../../read/styles";

/** What the twin's `() => ({ status: "ok" })` sends: Elysia's JSON of the object. */
const HEALTH_OK: ReadAnswer = Object.freeze({ status: 200, headers: Object.freeze({ "content-type": "application/json;charset=utf-8" }), body: '{"status":"ok"}' });

export function fastReads(services: Services): FastRead[] {
  const { auth, tiles, styleReads, glyphs } = services;
  return [
    { path: "/health", answer: () => HEALTH_OK },
    { path: "/tiles/v1/:owner/:name", answer: (p, request) => tiles.tileJson(p.owner!, p.name!, request, auth.viewerFromRequest(request)) },
    { path: "/tiles/v1/:owner/:name/:z/:x/:y", answer: (p, request) => tiles.tile(p as unknown as TileRequest, request, auth.viewerFromRequest(request)) },
    { path: "/styles/v1/:owner/:style", answer: (p, request) => styleReads.style(p as unknown as StyleRequest, request, styleViewer(auth, request)) },
    { path: "/styles/v1/:owner/:style/:file", answer: (p, request) => styleReads.sprite(p as unknown as SpriteRequest, request, styleViewer(auth, request)) },
    { path: "/fonts/v1/:fontstack/:range", answer: (p, request) => glyphAnswer(glyphs, p as unknown as GlyphRequest, request) },
  ];
}

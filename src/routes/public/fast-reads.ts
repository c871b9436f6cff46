// The hot public reads served from Bun's `routes` table (src/http/fast-routes.ts), each the same read/
// call as its Elysia twin's handler, with the viewer resolved the way the twin resolves it. The twin
// test (test/http/fast-routes.test.ts) holds the pairs to byte-identical answers.
import type { Services } from "../../services";
import type { FastRead } from "../../http/fast-routes";
import type { RequestHeaders } from "../../http/request-context";
import { ANONYMOUS_VIEWER } from "../../domain/accounts/auth";
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
  // A request without an X-API-Key or a Cookie (most map traffic) is anonymous: no lookup at all.
  const viewer = (request: Request, seen: RequestHeaders) => (seen.credentials ? auth.viewerFromRequest(request) : ANONYMOUS_VIEWER);
  const styleViewerOf = (request: Request, seen: RequestHeaders) => (seen.credentials ? styleViewer(auth, request) : null);
  return [
    { path: "/health", answer: () => HEALTH_OK },
    { path: "/tiles/v1/:owner/:name", answer: (p, request, seen) => tiles.tileJson(p.owner!, p.name!, request, viewer(request, seen)) },
    { path: "/tiles/v1/:owner/:name/:z/:x/:y", answer: (p, request, seen) => tiles.tile(p as unknown as TileRequest, request, viewer(request, seen)) },
    { path: "/styles/v1/:owner/:style", answer: (p, request, seen) => styleReads.style(p as unknown as StyleRequest, request, styleViewerOf(request, seen)) },
    { path: "/styles/v1/:owner/:style/:file", answer: (p, request, seen) => styleReads.sprite(p as unknown as SpriteRequest, request, styleViewerOf(request, seen)) },
    { path: "/fonts/v1/:fontstack/:range", answer: (p, request) => glyphAnswer(glyphs, p as unknown as GlyphRequest, request) },
  ];
}

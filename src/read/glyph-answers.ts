// GET /fonts/v1/{fontstack}/{range}.pbf as (parsed request) -> ReadAnswer: glyph ranges are public and
// change only when a font is installed (the store's memory is keyed by the catalog's generation).
import { fixedAnswer, type ReadAnswer } from "./answer";
import { ifNoneMatchHits } from "./etag";
import type { GlyphAnswer, GlyphStore } from "./glyphs";

export interface GlyphRequest {
  /** comma-separated font names, URL-decoded */
  fontstack: string;
  /** "0-255.pbf" */
  range: string;
}

const FONT_CACHE = "public, max-age=86400";

/** The HTTP answers of a glyph range the store keeps in memory, built once for it. */
const answersOf = new WeakMap<GlyphAnswer, { ok: ReadAnswer; notModified: ReadAnswer }>();

function answer(glyphs: GlyphAnswer, request: Request): ReadAnswer {
  let answers = answersOf.get(glyphs);
  if (answers === undefined) {
    const { body, etag } = glyphs;
    answers = { ok: fixedAnswer(200, { "cache-control": FONT_CACHE, etag, "content-type": "application/x-protobuf" }, body), notModified: fixedAnswer(304, { "cache-control": FONT_CACHE, etag }, null) };
    answersOf.set(glyphs, answers);
  }
  return ifNoneMatchHits(request, glyphs.etag) ? answers.notModified : answers.ok;
}

/** Answers at once (no Promise) when the range is in memory, as warm ranges are. */
export function glyphAnswer(glyphs: GlyphStore, params: GlyphRequest, request: Request): ReadAnswer | Promise<ReadAnswer> {
  const hit = glyphs.inMemory(params.fontstack, params.range);
  if (hit !== undefined) return answer(hit, request);
  return glyphs.range(params.fontstack, params.range).then((built) => answer(built, request));
}

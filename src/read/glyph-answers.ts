// GET /fonts/v1/{fontstack}/{range}.pbf as (parsed request) -> ReadAnswer: glyph ranges are public and
// change only when a font is installed (the store's memory is keyed by the catalog's generation).
import { fixedAnswer, type ReadAnswer } from "./answer";
import { ifNoneMatchHits } from "./etag";
import type { GlyphAnswer, GlyphStore } from "./glyphs";
import { acceptsGzip } from "./accepts-gzip";

export interface GlyphRequest {
  /** comma-separated font names, URL-decoded */
  fontstack: string;
  /** "0-255.pbf" */
  range: string;
}

const FONT_CACHE = "public, max-age=86400";

interface RangeAnswers {
  ok: ReadAnswer;
  notModified: ReadAnswer;
  gzip: ReadAnswer;
  gzipNotModified: ReadAnswer;
}

/** The HTTP answers of a glyph range the store keeps in memory, built once for it. */
const answersOf = new WeakMap<GlyphAnswer, RangeAnswers>();

function answer(glyphs: GlyphAnswer, request: Request): ReadAnswer {
  let answers = answersOf.get(glyphs);
  if (answers === undefined) {
    const plain = { "cache-control": FONT_CACHE, etag: glyphs.etag, vary: "Accept-Encoding" };
    const gzip = { "cache-control": FONT_CACHE, etag: glyphs.gzipEtag, vary: "Accept-Encoding" };
    answers = {
      ok: fixedAnswer(200, { ...plain, "content-type": "application/x-protobuf" }, glyphs.body),
      notModified: fixedAnswer(304, plain, null),
      gzip: fixedAnswer(200, { ...gzip, "content-type": "application/x-protobuf", "content-encoding": "gzip" }, glyphs.gzipped),
      gzipNotModified: fixedAnswer(304, gzip, null),
    };
    answersOf.set(glyphs, answers);
  }
  // Browsers take gzip: a Latin range goes as about 30 KB instead of 76 KB.
  if (acceptsGzip(request.headers.get("accept-encoding")))
    return ifNoneMatchHits(request, glyphs.gzipEtag) ? answers.gzipNotModified : answers.gzip;
  return ifNoneMatchHits(request, glyphs.etag) ? answers.notModified : answers.ok;
}

/** Answers at once (no Promise) when the range is in memory, as warm ranges are. */
export function glyphAnswer(glyphs: GlyphStore, params: GlyphRequest, request: Request): ReadAnswer | Promise<ReadAnswer> {
  const hit = glyphs.inMemory(params.fontstack, params.range);
  if (hit !== undefined) return answer(hit, request);
  return glyphs.range(params.fontstack, params.range).then((built) => answer(built, request));
}

// GET /fonts/v1/{fontstack}/{range}.pbf as (parsed request) -> ReadAnswer: glyph ranges are public and
// change only when a font is installed (the store's memory is keyed by the catalog's generation).
import type { ReadAnswer } from "./answer";
import { ifNoneMatchHits } from "./etag";
import type { GlyphStore } from "./glyphs";

export interface GlyphRequest {
  /** comma-separated font names, URL-decoded */
  fontstack: string;
  /** "0-255.pbf" */
  range: string;
}

const FONT_CACHE = "public, max-age=86400";

export async function glyphAnswer(glyphs: GlyphStore, params: GlyphRequest, request: Request): Promise<ReadAnswer> {
  const { body, etag } = await glyphs.range(params.fontstack, params.range);
  if (ifNoneMatchHits(request, etag)) return { status: 304, headers: { "cache-control": FONT_CACHE, etag }, body: null };
  return { status: 200, headers: { "cache-control": FONT_CACHE, etag, "content-type": "application/x-protobuf" }, body };
}

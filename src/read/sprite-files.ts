// Sprite files as HTTP answers (published versions and drafts alike): content type, Cache-Control,
// ETag and 304. Sprite directories never change once written (every upload and every version gets a
// new one), so a file's bytes and ETag are read once per directory and file and kept in the
// published-content cache, where they age out.
import { existsSync, readFileSync } from "node:fs";
import { NotFound } from "../errors";
import type { SpriteFile, SpriteStore } from "../domain/sprites/store";
import type { ReadAnswer } from "./answer";
import { ifNoneMatchHits, strongEtag } from "./etag";
import type { PublishedCache } from "./published-cache";

export function createSpriteFiles(store: SpriteStore, published: PublishedCache) {
  const files = published.slot<{ bytes: Uint8Array; etag: string }>("sprite");

  function answer(request: Request, dir: string, file: SpriteFile, cacheControl: string): ReadAnswer {
    let hit = files.get(dir, file);
    if (!hit) {
      const path = store.path(dir, file);
      if (!existsSync(path)) throw new NotFound("This style has no sprite", "STYLE_NOT_FOUND");
      const bytes = new Uint8Array(readFileSync(path));
      hit = { bytes, etag: strongEtag(bytes) };
      files.set(dir, file, "", hit, bytes.length + 128);
    }
    const headers = { "content-type": file.endsWith(".json") ? "application/json; charset=utf-8" : "image/png", "cache-control": cacheControl, etag: hit.etag };
    if (ifNoneMatchHits(request, hit.etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: hit.bytes };
  }

  /** The same answer as a Response; `headers` are the response headers gathered so far (request id, CORS). */
  function serveSpriteFile(request: Request, headers: Record<string, string>, dir: string, file: SpriteFile, cacheControl: string): Response {
    const a = answer(request, dir, file, cacheControl);
    return new Response(a.body as BodyInit | null, { status: a.status, headers: { ...headers, ...a.headers } });
  }

  return Object.assign(serveSpriteFile, { answer });
}

export type SpriteFiles = ReturnType<typeof createSpriteFiles>;

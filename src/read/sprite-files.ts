// Sprite files as HTTP answers (published versions and drafts alike): content type, Cache-Control,
// ETag and 304. Sprite directories never change once written (every upload and every version gets a
// new one), so a file's ETag is computed once per path.
import { existsSync, readFileSync } from "node:fs";
import { NotFound } from "../errors";
import { etagOf } from "../domain/styles/service";
import type { SpriteFile, SpriteStore } from "../domain/sprites/store";
import { ifNoneMatchHits } from "../http/conditional";

export function createSpriteFiles(store: SpriteStore) {
  const etags = new Map<string, string>();
  const etagFor = (path: string) => {
    let tag = etags.get(path);
    if (!tag) etags.set(path, (tag = etagOf(readFileSync(path))));
    return tag;
  };

  /** `headers` are the response headers gathered so far (request id, CORS); they are kept. */
  return function serveSpriteFile(request: Request, headers: Record<string, string>, dir: string, file: SpriteFile, cacheControl: string): Response {
    const path = store.path(dir, file);
    if (!existsSync(path)) throw new NotFound("This style has no sprite", "STYLE_NOT_FOUND");
    const etag = etagFor(path);
    const out: Record<string, string> = {
      ...headers,
      "content-type": file.endsWith(".json") ? "application/json; charset=utf-8" : "image/png",
      "cache-control": cacheControl,
      etag,
    };
    if (ifNoneMatchHits(request, etag)) return new Response(null, { status: 304, headers: out });
    return new Response(Bun.file(path), { headers: out });
  };
}

export type SpriteFiles = ReturnType<typeof createSpriteFiles>;

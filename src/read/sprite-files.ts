// Sprite files as HTTP answers (published versions and drafts alike): content type, Cache-Control,
// ETag and 304. Sprite directories never change once written (every upload and every version gets a
// new one), so a file's bytes and ETag are read once per directory and file and kept in the
// published-content cache, where they age out.
import { existsSync, readFileSync } from "node:fs";
import { AppError } from "../errors";
import type { Logger } from "../log";
import { MISSING_SPRITES_FIX } from "../domain/health/published-files";
import type { SpriteFile, SpriteStore } from "../domain/sprites/store";
import type { ReadAnswer } from "./answer";
import { ifNoneMatchHits, strongEtag } from "./etag";
import type { PublishedCache } from "./published-cache";

export function createSpriteFiles(store: SpriteStore, published: PublishedCache, log: Logger) {
  const files = published.slot<{ bytes: Uint8Array; etag: string }>("sprite");

  /**
   * The style has a sprite (its row names the directory) but the file is gone from DATA_DIR (deleted by
   * hand, a restore that left it out): the operator's to fix, so the log names the directory and how;
   * the client is told the sprite cannot be read now (503), not that the style has none.
   */
  function spriteMissing(style: string, dir: string, file: SpriteFile): AppError {
    log.error("sprite file missing", { style, dir, file, path: store.path(dir, file), fix: `${MISSING_SPRITES_FIX.replace("the directories", `the directory ${dir}`)}` });
    return new AppError(503, "STORAGE_UNAVAILABLE", `The sprite of style '${style}' cannot be read: its files are missing on this server (the server's log names the directory and the fix)`);
  }

  /** `style` names the style (owner/slug@version, or owner/slug (draft)) in the log and the answer. */
  function answer(request: Request, dir: string, file: SpriteFile, cacheControl: string, style: string): ReadAnswer {
    let hit = files.get(dir, file);
    if (!hit) {
      const path = store.path(dir, file);
      if (!existsSync(path)) throw spriteMissing(style, dir, file);
      const bytes = new Uint8Array(readFileSync(path));
      hit = { bytes, etag: strongEtag(bytes) };
      files.set(dir, file, "", hit, bytes.length + 128);
    }
    const headers = { "content-type": file.endsWith(".json") ? "application/json; charset=utf-8" : "image/png", "cache-control": cacheControl, etag: hit.etag };
    if (ifNoneMatchHits(request, hit.etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: hit.bytes };
  }

  /** The same answer as a Response; `headers` are the response headers gathered so far (request id, CORS). */
  function serveSpriteFile(request: Request, headers: Record<string, string>, dir: string, file: SpriteFile, cacheControl: string, style: string): Response {
    const a = answer(request, dir, file, cacheControl, style);
    return new Response(a.body as BodyInit | null, { status: a.status, headers: { ...headers, ...a.headers } });
  }

  return Object.assign(serveSpriteFile, { answer });
}

export type SpriteFiles = ReturnType<typeof createSpriteFiles>;

// Published style JSON and its sprite as (parsed request, viewer) -> ReadAnswer: the resolved document
// and its ETag are kept in the published-content cache (by owner, style and version; dropped when the
// change bus says the style changed); private styles answer `private` and, to viewers who may not read
// them, the same 404 as missing ones.
import type { AuthService, Viewer } from "../domain/accounts/auth";
import { isSpriteFile } from "../domain/sprites/store";
import { styleNotFound, type PublishedStyle } from "../domain/styles/service";
import { NotFound } from "../errors";
import { fixedAnswer, IMMUTABLE, STABLE, type ReadAnswer } from "./answer";
import { ifNoneMatchHits, strongEtag } from "./etag";
import type { PublishedCache } from "./published-cache";
import type { SpriteFiles } from "./sprite-files";

/** GET /styles/v1/{owner}/{style}[@{version}] */
export interface StyleRequest {
  owner: string;
  /** "slug" or "slug@version" */
  style: string;
}

/** GET /styles/v1/{owner}/{style}[@{version}]/{file} */
export interface SpriteRequest extends StyleRequest {
  /** sprite.json, sprite.png, sprite@2x.json or sprite@2x.png */
  file: string;
}

interface StyleSource {
  resolvePublic(owner: string, param: string): PublishedStyle | null;
}

/** A published style as served: its bytes, their ETag, and its answers (built once, with the entry). */
export interface ResolvedStyle extends PublishedStyle {
  etag: string;
  ok: ReadAnswer;
  notModified: ReadAnswer;
}

/**
 * Anonymous requests (no key, no cookie) never touch the auth service, which keeps the hot path of
 * public styles short; an invalid key sees no private style (the same 404 as a missing one).
 */
export function styleViewer(auth: AuthService, request: Request): Viewer | null {
  return request.headers.has("x-api-key") || request.headers.has("cookie") ? auth.viewerFromRequest(request) : null;
}

const mayRead = (resolved: ResolvedStyle | null, viewer: Viewer | null): resolved is ResolvedStyle =>
  !!resolved && (resolved.visibility === "public" || !!viewer?.privateOrgIds.has(resolved.orgId));

const cacheControlOf = (resolved: PublishedStyle) => (resolved.visibility === "private" ? "private" : resolved.stable ? STABLE : IMMUTABLE);

export function createStyleReads(styles: StyleSource, spriteFiles: SpriteFiles, published: PublishedCache) {
  const cache = published.slot<ResolvedStyle>("style");

  /** The style at /styles/v1/{owner}/{param} ("slug" or "slug@version"), or null; cached until it changes. */
  function resolve(owner: string, param: string): ResolvedStyle | null {
    const hit = cache.get(owner, param);
    if (hit) return hit;
    const found = styles.resolvePublic(owner, param);
    if (!found) return null;
    const etag = strongEtag(found.body);
    const headers = { "content-type": "application/json; charset=utf-8", "cache-control": cacheControlOf(found), etag };
    const resolved = { ...found, etag, ok: fixedAnswer(200, headers, found.body), notModified: fixedAnswer(304, headers, null) };
    cache.set(owner, param, "", resolved, resolved.body.length + 256);
    return resolved;
  }

  return {
    resolve,

    style(params: StyleRequest, request: Request, viewer: Viewer | null): ReadAnswer {
      const resolved = resolve(params.owner, params.style);
      if (!mayRead(resolved, viewer)) throw styleNotFound();
      return ifNoneMatchHits(request, resolved.etag) ? resolved.notModified : resolved.ok;
    },

    sprite(params: SpriteRequest, request: Request, viewer: Viewer | null): ReadAnswer {
      // Told before the style is looked up, so the answer says nothing of whether it exists.
      if (!isSpriteFile(params.file))
        throw new NotFound(
          `'${params.file.slice(0, 60)}' is not a file of a style: a style has sprite.json, sprite.png, sprite@2x.json and sprite@2x.png, its raster TileJSON at tiles.json, WMTS capabilities at wmts.xml and raster tiles under tiles/{256|512}/{z}/{x}/{y}.png; static images are at /static/v1/{owner}/{style}/...`,
        );
      const resolved = resolve(params.owner, params.style);
      if (!mayRead(resolved, viewer)) throw styleNotFound();
      if (!resolved.spritePath) throw new NotFound("This style version has no sprite", "STYLE_NOT_FOUND");
      return spriteFiles.answer(request, resolved.spritePath, params.file, cacheControlOf(resolved), `${params.owner}/${params.style.split("@")[0]}@${resolved.version}`);
    },
  };
}

export type StyleReads = ReturnType<typeof createStyleReads>;

// The public tile read path without a framework: TileJSON and tiles as (parsed request, viewer) ->
// { status, headers, body }. The tile rules live here in one place (martin's habit): gzip passed through
// or decoded per Accept-Encoding, strong ETag and 304, 204 for an empty tile inside the zoom range (inside
// the bounds or not: see tileInRange), 404 outside it, immutable caching for versioned URLs, `private` for private tilesets (the same 404 as a
// missing one when the viewer may not read them). Errors are thrown as AppErrors.
import { AppError, BadRequest, NotFound } from "../errors";
import type { Viewer } from "../domain/accounts/auth";
import { isSlug } from "../domain/orgs/slug";
import { parseVersionedSlug } from "../domain/orgs/versioned-slug";
import { fixedAnswer, IMMUTABLE, STABLE, type ReadAnswer } from "./answer";
import { etagListHits, ifNoneMatchHits, strongEtag } from "./etag";
import { acceptsGzip } from "./accepts-gzip";
import { CONTENT_TYPES, EXTENSIONS, gunzippedTileOrNull, MAX_UNZIPPED_TILE, tileBytes, tileInRange, type Tile } from "../tiles/source";
import type { PublishedCache } from "./published-cache";
import type { Served, TileCatalog } from "./tiles";
import { publishedVersion, tilesetMissing, visible } from "./tileset-access";

export interface TileRequest {
  owner: string;
  /** "slug@version" */
  name: string;
  z: string;
  x: string;
  /** "y.ext" */
  y: string;
}

const INT_RE = /^\d{1,10}$/;


/** A TileJSON's answers at its stable URL and at its versioned one, built once when its version opens. */
export interface TileJsonAnswers {
  stable: { ok: ReadAnswer; notModified: ReadAnswer; etag: string };
  versioned: { ok: ReadAnswer; notModified: ReadAnswer; etag: string };
}

/**
 * The stable URL's body names the tileset as it is now; the versioned URL's as it was when the version
 * became ready, since that answer is cached as immutable.
 */
export function tileJsonAnswers(stableBody: string, versionedBody: string, isPrivate: boolean): TileJsonAnswers {
  const at = (body: string, cache: string) => {
    const etag = strongEtag(body);
    // No Vary: the body is the same whatever the client accepts (only tiles are stored gzipped).
    const headers = { "content-type": "application/json; charset=utf-8", "cache-control": isPrivate ? "private" : cache, etag };
    return { ok: fixedAnswer(200, headers, body), notModified: fixedAnswer(304, headers, null), etag };
  };
  return { stable: at(stableBody, STABLE), versioned: at(versionedBody, IMMUTABLE) };
}

/** A TileJSON answered before, by the URL's name as asked: one lookup answers it again. */
interface KnownTileJson {
  answers: TileJsonAnswers["stable"];
  private: boolean;
  orgId: number;
}


/** A tile's place, parsed from its URL. */
interface TileAddress {
  owner: string;
  z: number;
  x: number;
  y: number;
  /** the URL's extension, lowercased */
  ext: string;
  /** "slug@version", as the URL spells it (for messages) */
  name: string;
}

/**
 * A tile as kept in memory: its bytes, and its answer to a client that takes gzip (every browser, and
 * any client of a raster tileset), built once with it; null when the tile is empty outside the
 * tileset's range (a 404).
 */
interface CachedTile {
  tile: Tile | null;
  gzipAnswer: ReadAnswer | null;
}

/** What a CachedTile costs beyond the tile bytes (its answer and headers). */
const ANSWER_BYTES = 256;

/** The answer's ETag: per tileset version and address, and whether the bytes are sent gzipped. */
const tileEtag = (served: Served, a: TileAddress, gzipOk: boolean) => `"${served.tilesetId}.${served.version}.${a.z}.${a.x}.${a.y}${gzipOk && served.facts.format === "pbf" ? ".gz" : ""}"`;

export function createTileReads(catalog: TileCatalog, published: PublishedCache) {
  // Recently served tiles of every archive, by tileset, version and address (archives never change;
  // a change of the tileset drops its entries, answers and all).
  const tileCache = published.slot<CachedTile>("tile");
  // TileJSON answers by owner and the name as the URL spells it ("slug" or "slug@version", without
  // ".json"): a hit skips parsing the name and the two catalog lookups (stable row, then version), which
  // were most of what a TileJSON request cost beyond Bun's own work. A change of the tileset drops them
  // with the catalog's entries.
  const knownTileJsons = published.slot<KnownTileJson>("tilejson");

  /** The answer to a client: with gzip as stored, or (rarely) decoded per request for one without. */
  function answerOf(served: Served, a: TileAddress, tile: Tile | null, gzipOk: boolean, inRange: boolean): ReadAnswer | null {
    const cache = served.private ? "private" : IMMUTABLE;
    const etag = tileEtag(served, a, gzipOk);
    if (!tile || tile.data.length === 0) return inRange ? fixedAnswer(204, { "cache-control": cache, etag, vary: "Accept-Encoding" }, null) : null;
    const headers: Record<string, string> = { "content-type": CONTENT_TYPES[served.facts.format], "cache-control": cache, etag, vary: "Accept-Encoding" };
    if (tile.encoding !== "gzip") return fixedAnswer(200, headers, tile.data);
    if (gzipOk) return fixedAnswer(200, { ...headers, "content-encoding": "gzip" }, tile.data);
    // A damaged tile the import's sampling missed, or one unzipping past the cap (an archive is its
    // uploader's: a gzip bomb), cannot be sent decoded; clients taking gzip get the stored bytes as they are.
    const decoded = gunzippedTileOrNull(tile.data);
    if (decoded === null)
      throw new AppError(503, "STORAGE_UNAVAILABLE", `Tile ${a.z}/${a.x}/${a.y} of '${served.owner}/${served.name}' cannot be decoded on this server (damaged, or over ${MAX_UNZIPPED_TILE / 1024 / 1024} MiB unzipped); clients that send Accept-Encoding: gzip get it as stored`);
    return { status: 200, headers, body: decoded };
  }

  function remember(served: Served, a: TileAddress, tile: Tile | null): CachedTile {
    const cached = { tile, gzipAnswer: answerOf(served, a, tile, true, tileInRange(served.facts, a.z)) };
    tileCache.set(served.owner, served.name, `${a.z}/${a.x}/${a.y}`, cached, tileBytes(tile) + ANSWER_BYTES);
    return cached;
  }

  function tileOf(served: Served | null, a: TileAddress, request: Request, viewer: Viewer): ReadAnswer | Promise<ReadAnswer> {
    if (!visible(served, viewer)) throw tilesetMissing(a.owner, a.name);
    const format = EXTENSIONS[a.ext];
    if (format !== served.facts.format) throw new NotFound(`This tileset serves .${served.ext} tiles`, "TILE_NOT_FOUND");
    const { z, x, y } = a;
    if (z > 30 || x >= 2 ** z || y >= 2 ** z) throw new NotFound(`Tile ${z}/${x}/${y} does not exist`, "TILE_NOT_FOUND");
    const gzipOk = format !== "pbf" || acceptsGzip(request.headers.get("accept-encoding"));
    const ifNoneMatch = request.headers.get("if-none-match");
    if (ifNoneMatch !== null && etagListHits(ifNoneMatch, tileEtag(served, a, gzipOk)) && tileInRange(served.facts, z))
      return { status: 304, headers: { etag: tileEtag(served, a, gzipOk), "cache-control": served.private ? "private" : IMMUTABLE, vary: "Accept-Encoding" }, body: null };
    const cached = tileCache.get(served.owner, served.name, `${z}/${x}/${y}`);
    if (cached !== undefined) return answered(served, a, cached, gzipOk);
    const read = served.source.getTile(z, x, y);
    if (read instanceof Promise) return read.then((tile) => answered(served, a, remember(served, a, tile), gzipOk));
    return answered(served, a, remember(served, a, read), gzipOk);
  }

  function answered(served: Served, a: TileAddress, cached: CachedTile, gzipOk: boolean): ReadAnswer {
    const answer = gzipOk ? cached.gzipAnswer : answerOf(served, a, cached.tile, false, tileInRange(served.facts, a.z));
    if (answer === null)
      throw new NotFound(`Tile ${a.z}/${a.x}/${a.y} is outside the tileset's zoom range ${served.facts.minzoom}-${served.facts.maxzoom}`, "TILE_NOT_FOUND");
    return answer;
  }

  return {
    /** GET /tiles/v1/{owner}/{tileset}[@{version}].json */
    /** Answers at once (no Promise) when the version is open already, as it is after the first request. */
    tileJson(owner: string, name: string, request: Request, viewer: Viewer): ReadAnswer | Promise<ReadAnswer> {
      const asked = name.endsWith(".json") ? name.slice(0, -5) : null;
      if (asked !== null) {
        const known = knownTileJsons.get(owner, asked);
        if (known !== undefined && (!known.private || viewer.privateOrgIds.has(known.orgId)))
          return ifNoneMatchHits(request, known.answers.etag) ? known.answers.notModified : known.answers.ok;
      }
      const parsed = asked !== null ? parseVersionedSlug(asked) : null;
      if (!parsed || !isSlug(owner)) throw new NotFound(`No such TileJSON: use /tiles/v1/{owner}/{tileset}.json or /tiles/v1/{owner}/{tileset}@{version}.json`);
      const version = parsed.version ?? publishedVersion(catalog, owner, parsed.slug, viewer);
      const answer = (served: Served | null): ReadAnswer => {
        if (!visible(served, viewer)) throw tilesetMissing(owner, `${parsed.slug}@${version}`);
        const answers = parsed.version === null ? served.tilejsonAnswers.stable : served.tilejsonAnswers.versioned;
        return ifNoneMatchHits(request, answers.etag) ? answers.notModified : answers.ok;
      };
      const pending = catalog.version(owner, parsed.slug, version);
      if (pending instanceof Promise) return pending.then(answer);
      // Remembered only from what the catalog holds now (no await since): a change that came while an
      // archive opened cannot leave an old answer behind.
      const answered = answer(pending);
      const served = pending!;
      const answers = parsed.version === null ? served.tilejsonAnswers.stable : served.tilejsonAnswers.versioned;
      knownTileJsons.set(owner, asked!, "", { answers, private: served.private, orgId: served.orgId }, answers.ok.body!.length + 256);
      return answered;
    },

    /** GET /tiles/v1/{owner}/{tileset}@{version}/{z}/{x}/{y}.{ext} */
    /** Answers at once (no Promise) when the version is open and the tile in memory, as hot tiles are. */
    tile(params: TileRequest, request: Request, viewer: Viewer): ReadAnswer | Promise<ReadAnswer> {
      const { owner } = params;
      const parsed = parseVersionedSlug(params.name);
      if (!parsed || parsed.version === null || !isSlug(owner)) throw new NotFound("Tile URLs look like /tiles/v1/{owner}/{tileset}@{version}/{z}/{x}/{y}.{ext}");
      const dot = params.y.lastIndexOf(".");
      const yRaw = dot < 0 ? params.y : params.y.slice(0, dot);
      const ext = dot < 0 ? "" : params.y.slice(dot + 1).toLowerCase();
      if (!INT_RE.test(params.z) || !INT_RE.test(params.x) || !INT_RE.test(yRaw)) throw new BadRequest("Path parameters z, x and y must be non-negative integers");
      const address: TileAddress = { owner, z: Number(params.z), x: Number(params.x), y: Number(yRaw), ext, name: params.name };
      const pending = catalog.version(owner, parsed.slug, parsed.version);
      if (pending instanceof Promise) return pending.then((served) => tileOf(served, address, request, viewer));
      return tileOf(pending, address, request, viewer);
    },
    /** Closes the open archives and empties the tile memory (on shutdown). */
    close() {
      catalog.close();
      published.dropAll("tile");
    },
  };
}

export type TileReads = ReturnType<typeof createTileReads>;

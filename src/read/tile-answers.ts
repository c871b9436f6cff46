// The public tile read path without a framework: TileJSON and tiles as (parsed request, viewer) ->
// { status, headers, body }. The tile rules live here in one place (martin's habit): gzip passed through
// or decoded per Accept-Encoding, strong ETag and 304, 204 for an empty tile inside range and bounds,
// 404 outside, immutable caching for versioned URLs, `private` for private tilesets (the same 404 as a
// missing one when the viewer may not read them). Errors are thrown as AppErrors.
import { BadRequest, NotFound } from "../errors";
import type { Viewer } from "../domain/accounts/auth";
import { isSlug } from "../domain/orgs/slug";
import { parseVersionedSlug } from "../domain/orgs/versioned-slug";
import { fixedAnswer, IMMUTABLE, STABLE, type ReadAnswer } from "./answer";
import { ifNoneMatchHits } from "./etag";
import { CONTENT_TYPES, EXTENSIONS, tileBytes, tileInRange, type Tile } from "../tiles/source";
import type { PublishedCache } from "./published-cache";
import type { Served, TileCatalog } from "./tiles";

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

const tilesetMissing = (owner: string, slug: string) => new NotFound(`Tileset '${owner.slice(0, 100)}/${slug.slice(0, 100)}' not found`, "TILESET_NOT_FOUND");

function acceptsGzip(request: Request): boolean {
  const h = request.headers.get("accept-encoding");
  if (!h) return false;
  for (const part of h.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

/** A TileJSON's answers at its stable URL and at its versioned one, built once when its version opens. */
export interface TileJsonAnswers {
  stable: { ok: ReadAnswer; notModified: ReadAnswer };
  versioned: { ok: ReadAnswer; notModified: ReadAnswer };
}

export function tileJsonAnswers(body: string, etag: string, isPrivate: boolean): TileJsonAnswers {
  const at = (cache: string) => {
    const headers = { "content-type": "application/json; charset=utf-8", "cache-control": isPrivate ? "private" : cache, etag, vary: "Accept-Encoding" };
    return { ok: fixedAnswer(200, headers, body), notModified: fixedAnswer(304, headers, null) };
  };
  return { stable: at(STABLE), versioned: at(IMMUTABLE) };
}

const visible = (served: Served | null, viewer: Viewer): served is Served => served !== null && (!served.private || viewer.privateOrgIds.has(served.orgId));

export function createTileReads(catalog: TileCatalog, published: PublishedCache) {
  // Recently served tiles of every archive, by tileset, version and address (archives never change).
  const tileCache = published.slot<Tile | null>("tile");

  return {
    /** GET /tiles/v1/{owner}/{tileset}[@{version}].json */
    /** Answers at once (no Promise) when the version is open already, as it is after the first request. */
    tileJson(owner: string, name: string, request: Request, viewer: Viewer): ReadAnswer | Promise<ReadAnswer> {
      const parsed = name.endsWith(".json") ? parseVersionedSlug(name.slice(0, -5)) : null;
      if (!parsed || !isSlug(owner)) throw new NotFound(`No such TileJSON: use /tiles/v1/{owner}/{tileset}.json or /tiles/v1/{owner}/{tileset}@{version}.json`);
      let version = parsed.version;
      if (version === null) {
        const st = catalog.stable(owner, parsed.slug);
        if (!st || (st.visibility === "private" && !viewer.privateOrgIds.has(st.org_id))) throw tilesetMissing(owner, parsed.slug);
        if (st.published_version === null) throw new NotFound(`Tileset '${owner}/${parsed.slug}' has no published version`, "TILESET_NOT_FOUND");
        version = st.published_version;
      }
      const answer = (served: Served | null): ReadAnswer => {
        if (!visible(served, viewer)) throw tilesetMissing(owner, `${parsed.slug}@${version}`);
        const answers = parsed.version === null ? served.tilejsonAnswers.stable : served.tilejsonAnswers.versioned;
        return ifNoneMatchHits(request, served.tilejsonEtag) ? answers.notModified : answers.ok;
      };
      const pending = catalog.version(owner, parsed.slug, version);
      return pending instanceof Promise ? pending.then(answer) : answer(pending);
    },

    /** GET /tiles/v1/{owner}/{tileset}@{version}/{z}/{x}/{y}.{ext} */
    async tile(params: TileRequest, request: Request, viewer: Viewer): Promise<ReadAnswer> {
      const { owner } = params;
      const parsed = parseVersionedSlug(params.name);
      if (!parsed || parsed.version === null || !isSlug(owner)) throw new NotFound("Tile URLs look like /tiles/v1/{owner}/{tileset}@{version}/{z}/{x}/{y}.{ext}");
      const dot = params.y.lastIndexOf(".");
      const yRaw = dot < 0 ? params.y : params.y.slice(0, dot);
      const ext = dot < 0 ? "" : params.y.slice(dot + 1).toLowerCase();
      if (!INT_RE.test(params.z) || !INT_RE.test(params.x) || !INT_RE.test(yRaw)) throw new BadRequest("Path parameters z, x and y must be non-negative integers");
      const z = Number(params.z);
      const x = Number(params.x);
      const y = Number(yRaw);
      const pending = catalog.version(owner, parsed.slug, parsed.version);
      const served = pending instanceof Promise ? await pending : pending;
      if (!visible(served, viewer)) throw tilesetMissing(owner, params.name);
      const format = EXTENSIONS[ext];
      if (format !== served.facts.format) throw new NotFound(`This tileset serves .${served.ext} tiles`, "TILE_NOT_FOUND");
      if (z > 30 || x >= 2 ** z || y >= 2 ** z) throw new NotFound(`Tile ${z}/${x}/${y} does not exist`, "TILE_NOT_FOUND");
      const inRange = tileInRange(served.facts, z, x, y);
      const gzipOk = format !== "pbf" || acceptsGzip(request);
      const etag = `"${served.tilesetId}.${served.version}.${z}.${x}.${y}${gzipOk && format === "pbf" ? ".gz" : ""}"`;
      const cache = served.private ? "private" : IMMUTABLE;
      if (ifNoneMatchHits(request, etag) && inRange) return { status: 304, headers: { etag, "cache-control": cache, vary: "Accept-Encoding" }, body: null };
      const address = `${z}/${x}/${y}`;
      let tile = tileCache.get(served.owner, served.name, address);
      if (tile === undefined) {
        const r = served.source.getTile(z, x, y);
        tile = r instanceof Promise ? await r : r;
        tileCache.set(served.owner, served.name, address, tile, tileBytes(tile));
      }
      if (!tile || tile.data.length === 0) {
        if (!inRange) throw new NotFound(`Tile ${z}/${x}/${y} is outside the tileset's zoom range ${served.facts.minzoom}-${served.facts.maxzoom} or bounds`, "TILE_NOT_FOUND");
        return { status: 204, headers: { "cache-control": cache, etag, vary: "Accept-Encoding" }, body: null };
      }
      const headers: Record<string, string> = { "content-type": CONTENT_TYPES[format], "cache-control": cache, etag, vary: "Accept-Encoding" };
      let data = tile.data;
      if (tile.encoding === "gzip") {
        if (gzipOk) headers["content-encoding"] = "gzip";
        else data = Bun.gunzipSync(data as Uint8Array<ArrayBuffer>);
      }
      return { status: 200, headers, body: data };
    },

    /** Closes the open archives and empties the tile memory (on shutdown). */
    close() {
      catalog.close();
      published.dropAll("tile");
    },
  };
}

export type TileReads = ReturnType<typeof createTileReads>;

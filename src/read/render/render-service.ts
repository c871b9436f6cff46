// Static images and raster tiles as plain functions (go-pmtiles' habit): a parsed request and a viewer
// in, {status, headers, body} out. The style is resolved exactly as GET /styles/v1 resolves it (and
// readable under the same rules), tiles come from the tile catalog, the sprite and fonts from their
// stores; the image is drawn by the worker pool. Finished images are kept in a memory LRU (and, for
// versioned styles, on disk) keyed by everything that determines their pixels, which also makes their
// strong ETag.
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { AppContext } from "../../context";
import { BadRequest, NotFound } from "../../errors";
import type { Viewer } from "../../http/auth";
import { ifNoneMatchHits, strongEtag } from "../etag";
import type { FontCatalog } from "../../domain/fonts/catalog";
import { parseVersionedSlug } from "../../domain/orgs/versioned-slug";
import { styleNotFound, type StylesService } from "../../domain/styles/service";
import type { ResolvedStyle, StyleReads } from "../styles";
import type { TileCatalog } from "../tiles";
import type { PublishedCache } from "../published-cache";
import { Lru } from "../../lru";
import type { RenderSourceInfo, RenderView, SpriteEntry } from "../../render/types";
import { tileBytes, type Tile } from "../../tiles/source";
import { DiskImageCache } from "./disk-cache";
import { CONTENT_TYPES } from "./encode";
import { attributionText, decorateStyle } from "./overlay-style";
import { overlayPositions } from "./overlays";
import { RenderPool, type JobResources, type RenderJob } from "./pool";
import type { ImageFormat, StaticRequest } from "./static-request";
import { resolveSources, type ResolvedSources } from "./style-sources";
import { carriedAccessToken } from "./carried-token";
import { wmtsCapabilities } from "./wmts";
import { fitPositions, MAX_ZOOM, tileView } from "./viewport";

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string | null;
}

export interface RasterTileRequest {
  owner: string;
  style: string;
  tileSize: 256 | 512;
  z: number;
  x: number;
  y: number;
  pixelRatio: 1 | 2;
  format: ImageFormat;
}

const IMAGE_CACHE_BYTES = 128 * 1024 * 1024;
const FONT_CACHE_BYTES = 64 * 1024 * 1024;
const UNZIPPED_TILE_CACHE_BYTES = 64 * 1024 * 1024;
const DISK_CACHE_BYTES = 1024 * 1024 * 1024;
export const RASTER_MAX_ZOOM = MAX_ZOOM;
const IMMUTABLE = "public, max-age=31536000, immutable";
const STABLE = "public, max-age=60";
/** CSS pixels drawn around a raster tile and cut off (see rasterTile). */
const TILE_MARGIN = 48;
/** Padding of `auto` when none is given: 5% of the shorter side. */
const AUTO_PADDING_SHARE = 0.05;

export const renderWorkerUrl = () =>
  Bun.main.startsWith("/$bunfs/") ? "./src/read/render/render-worker.ts" : new URL("./render-worker.ts", import.meta.url).href;

export interface RenderDeps {
  styles: StylesService;
  /** the published style JSON as the style routes serve it (cached, with its ETag) */
  styleReads: StyleReads;
  /** the tile catalog the tile routes use, shared so a publish drops its archives once */
  catalog: TileCatalog;
  fonts: FontCatalog;
  published: PublishedCache;
}

/** One worker pool and one image cache for static images and raster tiles (built by createServices). */
export function createRenderService(ctx: AppContext, deps: RenderDeps, opts: { workerUrl?: string } = {}) {
  const { styles, catalog, fonts: fontEntries } = deps;
  // Tiles drawn into images, in the one published cache (so a tileset's change drops them) under a kind
  // of their own: the tile routes keep their ready answers under "tile", a different shape of value.
  const tiles = deps.published.slot<Tile | null>("render-tile");
  const images = new Lru<Uint8Array>({ maxBytes: IMAGE_CACHE_BYTES });
  // Fonts and unzipped tiles go to a worker render after render: kept in shared memory, posting them
  // shares the bytes instead of copying them (a font is over half a megabyte), and a tile is unzipped
  // once rather than per render. An unzipped tile is only used for the very tile object it was made
  // from, so a tile the published cache dropped (a publish) is never answered from here.
  const fonts = new Lru<Uint8Array>({ maxBytes: FONT_CACHE_BYTES });
  const unzipped = new Lru<{ tile: Tile; bytes: Uint8Array }>({ maxBytes: UNZIPPED_TILE_CACHE_BYTES });
  const disk = new DiskImageCache(join(ctx.config.dataDir, "render-cache"), DISK_CACHE_BYTES, (message) => ctx.log.warn(message));
  const pool = new RenderPool({
    workers: ctx.config.renderWorkers,
    queue: ctx.config.renderQueue,
    timeoutMs: ctx.config.renderTimeoutMs,
    workerUrl: opts.workerUrl ?? renderWorkerUrl(),
    onError: (message) => ctx.log.error("render failed", { error: message }),
  });
  ctx.onShutdown(() => {
    pool.close();
    images.clear();
  });

  function readableStyle(owner: string, param: string, viewer: Viewer): ResolvedStyle {
    const resolved = deps.styleReads.resolve(owner, param);
    if (!resolved || !(resolved.visibility === "public" || viewer.privateOrgIds.has(resolved.orgId))) throw styleNotFound();
    return resolved;
  }

  /**
   * Icon names in the sprite a render of `resolved` at `pixelRatio` draws from (empty without one), to
   * refuse an overlay naming an icon the image could not show; kept per style version (its ETag).
   */
  const spriteNames = new Lru<Set<string>>({ maxEntries: 256 });
  async function spriteIcons(resolved: ResolvedStyle, pixelRatio: 1 | 2): Promise<Set<string>> {
    const key = `${resolved.etag}|${pixelRatio}`;
    let names = spriteNames.get(key);
    if (!names) {
      names = new Set(Object.keys((await spriteJson(resolved, pixelRatio)) ?? {}));
      spriteNames.set(key, names);
    }
    return names;
  }

  const parsed = new Lru<StyleSpecification>({ maxEntries: 256 });
  function styleJson(resolved: ResolvedStyle): StyleSpecification {
    let style = parsed.get(resolved.etag);
    if (!style) {
      style = JSON.parse(new TextDecoder().decode(resolved.body)) as StyleSpecification;
      parsed.set(resolved.etag, style);
    }
    return style;
  }

  /** The sprite index a render at `pixelRatio` draws from; null when the style has none (or lacks that half). */
  async function spriteJson(resolved: ResolvedStyle, pixelRatio: 1 | 2): Promise<Record<string, SpriteEntry> | null> {
    if (!resolved.spritePath) return null;
    const suffix = pixelRatio === 2 ? "@2x" : "";
    const json = Bun.file(styles.sprites.path(resolved.spritePath, `sprite${suffix}.json`));
    const png = Bun.file(styles.sprites.path(resolved.spritePath, `sprite${suffix}.png`));
    if (!(await json.exists()) || !(await png.exists())) return null;
    return (await json.json()) as Record<string, SpriteEntry>;
  }

  function resourcesFor(resolved: ResolvedStyle, sources: ResolvedSources): JobResources {
    return {
      async tile(sourceId, z, x, y) {
        const served = sources.sources.get(sourceId)?.served;
        if (!served || z > served.facts.maxzoom || z < served.facts.minzoom) return null;
        const address = `${z}/${x}/${y}`;
        let tile = tiles.get(served.owner, served.name, address);
        if (tile === undefined) {
          const read = served.source.getTile(z, x, y);
          tile = read instanceof Promise ? await read : read;
          tiles.set(served.owner, served.name, address, tile, tileBytes(tile));
        }
        if (!tile || tile.data.length === 0) return null;
        const key = `${served.owner}/${served.name}/${address}`;
        const kept = unzipped.get(key);
        if (kept?.tile === tile) return kept.bytes;
        const bytes = sharedCopy(tile.encoding === "gzip" ? gunzipSync(tile.data) : tile.data);
        unzipped.set(key, { tile, bytes }, bytes.length + key.length);
        return bytes;
      },
      async sprite(pixelRatio) {
        const json = await spriteJson(resolved, pixelRatio);
        return json ? { json, png: await Bun.file(styles.sprites.path(resolved.spritePath!, `sprite${pixelRatio === 2 ? "@2x" : ""}.png`)).bytes() } : null;
      },
      async font(name) {
        const entry = fontEntries.get(name);
        if (!entry) return null;
        let bytes = fonts.get(entry.path);
        if (!bytes) {
          bytes = sharedCopy(await Bun.file(entry.path).bytes());
          fonts.set(entry.path, bytes, bytes.length);
        }
        return bytes;
      },
    };
  }

  /** Renders (or serves from memory) one image; `key` must name everything that decides its pixels. */
  /**
   * The image from the render caches, or drawn. `beforeDrawing` runs only when it must be drawn (a raster
   * tile's budget for callers without a key: what the caches answer costs next to nothing).
   */
  async function image(key: string, job: Omit<RenderJob, "sources">, resolved: ResolvedStyle, sources: ResolvedSources, beforeDrawing?: () => void): Promise<Uint8Array> {
    const hit = images.get(key);
    if (hit) return hit;
    // Only versioned styles go to disk: what they show never changes (their tilesets are pinned).
    const diskKey = resolved.stable ? null : `${ctx.version}|${key}`;
    const stored = diskKey ? await disk.get(diskKey) : null;
    if (stored) {
      images.set(key, stored, stored.length + key.length);
      return stored;
    }
    beforeDrawing?.();
    const info: Record<string, RenderSourceInfo> = Object.fromEntries([...sources.sources].map(([id, s]) => [id, s.info]));
    // The overlay, attribution and logo sources were added to the style after its sources were resolved.
    for (const [id, source] of Object.entries(job.style.sources))
      if (!info[id] && source.type === "geojson" && typeof source.data === "object") info[id] = { type: "geojson", tileSize: 512, minzoom: 0, maxzoom: 22 };
    const bytes = await pool.render({ ...job, sources: info }, resourcesFor(resolved, sources));
    images.set(key, bytes, bytes.length + key.length);
    if (diskKey) disk.set(diskKey, bytes);
    return bytes;
  }

  // The app version is part of every ETag: a new renderer may draw the same request differently.
  const etagOf = (key: string) => strongEtag(`${ctx.version}|${key}`);

  async function staticImage(req: StaticRequest, viewer: Viewer, request: Request): Promise<Answer> {
    const resolved = readableStyle(req.owner, req.style, viewer);
    const base = styleJson(resolved);
    const sources = await resolveSources(base, styles.base, catalog, viewer, resolved.orgId);
    let center: [number, number];
    let zoom: number;
    let bearing = 0;
    if (req.position.kind === "auto") {
      const pad = Math.round(Math.min(req.width, req.height) * AUTO_PADDING_SHARE);
      const fitted = fitPositions(overlayPositions(req.overlays), req.width, req.height, req.padding ?? { top: pad, right: pad, bottom: pad, left: pad });
      // Overlays whose coordinates give no bounds are the caller's problem, not a renderer failure (a 500).
      if (!fitted) throw new BadRequest("overlay: position auto found no coordinates in the overlays to fit the view to");
      center = fitted.center;
      zoom = fitted.zoom;
    } else if (req.position.kind === "bbox") {
      // as Mapbox: the box fills the image (less any padding) on its tighter side
      const { minLon, minLat, maxLon, maxLat } = req.position;
      const fitted = fitPositions([[minLon, minLat], [maxLon, maxLat]], req.width, req.height, req.padding ?? { top: 0, right: 0, bottom: 0, left: 0 }, MAX_ZOOM)!; // parsed finite
      center = fitted.center;
      zoom = fitted.zoom;
    } else {
      center = [req.position.lon, req.position.lat];
      zoom = req.position.zoom;
      bearing = req.position.bearing;
    }
    const view: RenderView = { center, zoom, bearing, width: req.width, height: req.height, pixelRatio: req.pixelRatio };
    const attribution = req.attribution ? attributionText([...sources.sources.values()].map((s) => s.info.attribution)) : "";
    const icons = [...new Set(req.overlays.map((o) => o.properties.icon).filter((icon) => icon))];
    if (icons.length) {
      const available = await spriteIcons(resolved, req.pixelRatio);
      const missing = icons.find((icon) => !available.has(icon));
      if (missing !== undefined)
        throw new BadRequest(
          available.size
            ? `overlay: the style's sprite has no icon '${missing}' (a marker label of three or more characters names an icon of the style's sprite)`
            : `overlay: the marker icon '${missing}' needs a sprite, and the style has none (a marker label of three or more characters names an icon of the style's sprite)`,
        );
    }
    if (req.beforeLayer !== null && !base.layers.some((l) => l.id === req.beforeLayer))
      throw new BadRequest(`before_layer: the style has no layer '${req.beforeLayer.slice(0, 100)}'`);
    const style = decorateStyle(base, req.overlays, view, { attribution, logo: req.logo, beforeLayer: req.beforeLayer });
    const key = `static|${resolved.etag}|${sources.signature}|${JSON.stringify(view)}|${req.format}|${attribution}|${req.logo}|${JSON.stringify(req.beforeLayer)}|${JSON.stringify(req.overlays)}`;
    const etag = etagOf(key);
    const headers: Record<string, string> = {
      "content-type": CONTENT_TYPES[req.format],
      "cache-control": resolved.stable ? "private, max-age=60" : "private, max-age=86400",
      etag,
    };
    if (ifNoneMatchHits(request, etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body: await image(key, { style, view, format: req.format }, resolved, sources) };
  }

  // A public style drawing a private tileset shows members what others must not see (and others a map
  // without it): a shared cache keyed by URL would hand one viewer's answer to the next, so these are
  // `private` for everyone, like private styles. Their ETags differ too (the key names the drawn sources).
  const cacheControlOf = (resolved: ResolvedStyle, sources: ResolvedSources) =>
    resolved.visibility === "private" || sources.private ? "private" : resolved.stable ? STABLE : IMMUTABLE;

  async function rasterTile(req: RasterTileRequest, viewer: Viewer, request: Request, beforeDrawing?: () => void): Promise<Answer> {
    const resolved = readableStyle(req.owner, req.style, viewer);
    if (req.z > RASTER_MAX_ZOOM) throw new NotFound(`Raster tiles go up to zoom ${RASTER_MAX_ZOOM}`, "TILE_NOT_FOUND");
    if (req.x >= 2 ** req.z || req.y >= 2 ** req.z) throw new NotFound(`Tile ${req.z}/${req.x}/${req.y} does not exist`, "TILE_NOT_FOUND");
    const base = styleJson(resolved);
    const sources = await resolveSources(base, styles.base, catalog, viewer, resolved.orgId);
    const { center, zoom } = tileView(req.z, req.x, req.y, req.tileSize);
    // Tiles are drawn with a margin that is cut off afterwards, so a label across a tile edge is placed
    // the same way in both tiles instead of being cut off in one and missing from the other. A 256-px
    // tile at zoom 0 is MapLibre's zoom -1, drawn at that zoom (not at 0 and halved, which halved every
    // circle, icon and label too).
    const size = req.tileSize + 2 * TILE_MARGIN;
    const view: RenderView = { center, zoom, bearing: 0, width: size, height: size, pixelRatio: req.pixelRatio };
    const key = `tile|${resolved.etag}|${sources.signature}|${JSON.stringify(view)}|${req.format}`;
    const etag = etagOf(key);
    const headers: Record<string, string> = { "content-type": CONTENT_TYPES[req.format], "cache-control": cacheControlOf(resolved, sources), etag };
    if (ifNoneMatchHits(request, etag)) return { status: 304, headers, body: null };
    const job = { style: base, view, format: req.format, margin: TILE_MARGIN * req.pixelRatio };
    return { status: 200, headers, body: await image(key, job, resolved, sources, beforeDrawing) };
  }

  /**
   * What the raster TileJSON and the WMTS capabilities of a style say alike: its name, attribution, the
   * URL of its tiles (stable or versioned, as asked, with an accepted access_token repeated) and who may
   * cache the document.
   */
  async function rasterLayer(owner: string, styleParam: string, tileSize: 256 | 512, viewer: Viewer, request: Request) {
    const resolved = readableStyle(owner, styleParam, viewer);
    const style = styleJson(resolved);
    const sources = await resolveSources(style, styles.base, catalog, viewer, resolved.orgId);
    const slug = parseVersionedSlug(styleParam)!.slug; // readableStyle has accepted it
    const token = carriedAccessToken(request, viewer);
    // The stable documents list the stable tiles, which follow the style's tilesets as the stable style
    // JSON does; a versioned style's tiles draw the tileset versions pinned when it was published, so
    // listing those froze a stable client's map until the style was published again.
    const tilesUrl = (xyz: string) =>
      `${styles.base}/styles/v1/${owner}/${resolved.stable ? slug : `${slug}@${resolved.version}`}/tiles/${tileSize}/${xyz}.png${token === null ? "" : `?access_token=${encodeURIComponent(token)}`}`;
    /** The URL of a document of this style under /styles/v1/{owner}/, with the carried access_token. */
    const selfUrl = (path: string, query: string | null) => {
      const params = [query, token === null ? null : `access_token=${encodeURIComponent(token)}`].filter((p) => p !== null);
      return `${styles.base}/styles/v1/${owner}/${path}${params.length ? `?${params.join("&")}` : ""}`;
    };
    return {
      resolved,
      style,
      slug,
      selfUrl,
      attribution: attributionText([...sources.sources.values()].map((s) => s.info.attribution)),
      tilesUrl,
      // A body that holds the caller's key is theirs alone: no shared cache may keep it.
      cacheControl: token === null ? cacheControlOf(resolved, sources) : "private",
    };
  }

  /** The answer of a document derived from a style (strong ETag of its bytes, 304). */
  function documentAnswer(body: string, contentType: string, cacheControl: string, request: Request): Answer {
    const etag = etagOf(body);
    const headers = { "content-type": contentType, "cache-control": cacheControl, etag };
    if (ifNoneMatchHits(request, etag)) return { status: 304, headers, body: null };
    return { status: 200, headers, body };
  }

  async function rasterTileJson(owner: string, styleParam: string, tileSize: 256 | 512, viewer: Viewer, request: Request): Promise<Answer> {
    const layer = await rasterLayer(owner, styleParam, tileSize, viewer, request);
    const { style, resolved } = layer;
    const tilejson: Record<string, unknown> = {
      tilejson: "3.0.0",
      name: style.name ?? resolved.name,
      version: `${resolved.version}.0.0`,
      scheme: "xyz",
      tiles: [layer.tilesUrl("{z}/{x}/{y}")],
      tileSize,
      minzoom: 0,
      maxzoom: RASTER_MAX_ZOOM,
      bounds: [-180, -85.0511, 180, 85.0511],
      // TileJSON's centre zoom is a whole zoom of these tiles: the style's zoom is MapLibre's, which 256
      // tiles number one higher (their z shows MapLibre's z-1), and a fractional one fails strict readers.
      center: [...(style.center ?? [0, 0]), Math.max(0, Math.min(RASTER_MAX_ZOOM, Math.round((style.zoom ?? 1) + (tileSize === 256 ? 1 : 0))))],
      format: "png",
    };
    if (layer.attribution) tilejson.attribution = layer.attribution;
    return documentAnswer(JSON.stringify(tilejson), "application/json; charset=utf-8", layer.cacheControl, request);
  }

  /** GET /styles/v1/{owner}/{style}[@{version}]/wmts.xml: the WMTS capabilities of the style's raster tiles. */
  async function wmts(owner: string, styleParam: string, tileSize: 256 | 512, viewer: Viewer, request: Request): Promise<Answer> {
    const layer = await rasterLayer(owner, styleParam, tileSize, viewer, request);
    const body = wmtsCapabilities({
      title: layer.style.name ?? layer.resolved.name,
      identifier: styleParam,
      tileTemplate: layer.tilesUrl("{TileMatrix}/{TileCol}/{TileRow}"),
      tileSize,
      maxZoom: RASTER_MAX_ZOOM,
      selfUrl: layer.selfUrl(`${styleParam}/wmts.xml`, tileSize === 512 ? "tile_size=512" : null),
      attribution: layer.attribution || undefined,
    });
    return documentAnswer(body, "application/xml; charset=utf-8", layer.cacheControl, request);
  }

  return { staticImage, rasterTile, rasterTileJson, wmts, pool };
}

export type RenderService = ReturnType<typeof createRenderService>;

/** The bytes in a SharedArrayBuffer: a render worker that is sent them shares them instead of copying. */
function sharedCopy(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.length));
  shared.set(bytes);
  return shared;
}

/** tile_size of the raster TileJSON: 256 (Leaflet's and QGIS's default) or 512. */
export function parseTileSize(raw: string | null | undefined, name: string): 256 | 512 {
  if (raw === null || raw === undefined || raw === "256") return 256;
  if (raw === "512") return 512;
  throw new BadRequest(`${name} must be 256 or 512`);
}

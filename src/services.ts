// The one composition root: every domain service, read path and shared cache is built here, once per
// context, and handed to whoever needs it (createApp's routes, the CLI commands). Nothing looks its
// collaborators up by context. Each service is built on first use, so a CLI command starts only what it
// touches (no tile cache watcher or usage flusher for `mapstead keys list`), and a service built for
// one caller is the same object every other caller gets.
import type { AppContext } from "./context";
import { createChangeBus } from "./domain/changes/bus";
import { createAuthService, type CallCounters } from "./domain/accounts/auth";
import { liveElevationBackend } from "./backends/elevation/select";
import { createElevationService } from "./domain/elevation/service";
import { createElevationSettings } from "./domain/elevation/settings";
import { FontCatalog } from "./domain/fonts/catalog";
import { createGeocodingService } from "./domain/geocoding/service";
import { createRoutingService } from "./domain/routing/service";
import { createHealthService } from "./domain/health/service";
import { createUnreadableArchives } from "./domain/health/unreadable-archives";
import { createIdempotencyStore } from "./domain/idempotency/service";
import { createSpriteStore } from "./domain/sprites/store";
import { createStylesService } from "./domain/styles/service";
import { createTilesetLookup } from "./domain/tilesets/lookup";
import { createTilesetService } from "./domain/tilesets/service";
import { createMetrics, processFigures, type Metrics, type ServerFigures } from "./http/metrics-registry";
import { createGazetteer } from "./backends/geocoder/embedded/gazetteer";
import { configuredGeocoder } from "./backends/geocoder/select";
import { createGazetteerImports } from "./domain/gazetteer/imports";
import { GlyphStore } from "./read/glyphs";
import { createRenderService } from "./read/render/render-service";
import { createSpriteFiles } from "./read/sprite-files";
import { createStyleReads } from "./read/styles";
import { createTileReads } from "./read/tile-answers";
import { createTileCatalog } from "./read/tiles";
import { createTilequery } from "./read/tilequery";
import { createPublishedCache } from "./read/published-cache";

/** A value made on first call and the same one after. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

export interface ServiceOptions {
  /**
   * Set in an HTTP worker of a cluster (src/cluster/): rate limits and usage counts are shared through
   * the supervisor, which also runs the single-instance duties (processing jobs, idempotency clean-up).
   */
  worker?: {
    counters: CallCounters;
    /** this worker's request counts (reported to the supervisor), and the whole server's figures (its sum) */
    metrics: { registry: Metrics; figures(): Promise<ServerFigures> };
  };
}

export function createServices(ctx: AppContext, opts: ServiceOptions = {}) {
  // One bus per process: its watcher (started by the first listener) brings other processes' changes.
  const changes = createChangeBus(ctx.sqlite, ctx.log);
  ctx.onShutdown(() => changes.close());
  const tilesetLookup = once(() => createTilesetLookup(ctx.sqlite));
  const sprites = once(() => createSpriteStore(ctx.config.dataDir));
  const fonts = once(() => new FontCatalog(ctx, changes));
  const auth = once(() => createAuthService(ctx, changes, opts.worker?.counters));
  const tilesets = once(() => createTilesetService(ctx, { changes, lookup: tilesetLookup() }));
  const styles = once(() => createStylesService(ctx, { tilesets: tilesetLookup(), fonts: fonts(), sprites: sprites(), changes }));
  // Archives and TileJSON, tiles, style JSON, sprite files and glyphs: one memory, fed by the bus
  // (the tile catalog closes its archives on shutdown; closing the bus ends the subscription).
  const published = once(() => createPublishedCache(changes));
  const glyphs = once(() => new GlyphStore(ctx, fonts(), published()));
  const spriteFiles = once(() => createSpriteFiles(sprites(), published(), ctx.log));
  const styleReads = once(() => createStyleReads(styles(), spriteFiles(), published()));
  // Shared by the tile reads and the embedded elevation backend: one archive cache.
  // Archives the catalog failed to open although they looked whole, for health to tell.
  const unreadableArchives = once(() => createUnreadableArchives(ctx.sqlite, ctx.config.dataDir));
  const tileCatalog = once(() => {
    const catalog = createTileCatalog(ctx, published(), unreadableArchives());
    ctx.onShutdown(() => catalog.close());
    return catalog;
  });
  const tiles = once(() => {
    const reads = createTileReads(tileCatalog(), published());
    ctx.onShutdown(() => reads.close());
    return reads;
  });
  const tilequery = once(() => createTilequery(tileCatalog(), published()));
  const render = once(() => createRenderService(ctx, { styles: styles(), styleReads: styleReads(), catalog: tileCatalog(), fonts: fonts(), published: published() }));
  const gazetteer = once(() => {
    const g = createGazetteer({ dataDir: ctx.config.dataDir, log: ctx.log, changes });
    ctx.onShutdown(() => g.close());
    return g;
  });
  const gazetteerImports = once(() => createGazetteerImports(ctx, gazetteer));
  const embeddedGazetteer = () => (ctx.config.geocoder === "embedded" ? gazetteer() : undefined);
  const geocoding = once(() => createGeocodingService(ctx, configuredGeocoder(ctx, gazetteer)));
  const elevation = once(() => createElevationService(ctx, liveElevationBackend(ctx, tileCatalog, changes)));
  const elevationSettings = once(() => createElevationSettings(ctx, changes));
  const routing = once(() => createRoutingService(ctx));
  const idempotency = once(() => {
    const store = createIdempotencyStore(ctx.sqlite, ctx.log, { housekeeping: !opts.worker });
    ctx.onShutdown(() => store.stop());
    return store;
  });
  const health = once(() => createHealthService(ctx, embeddedGazetteer, unreadableArchives()));
  const metrics = once(() => opts.worker?.metrics.registry ?? createMetrics());

  return {
    ctx,
    /** every change to published things, from this process and (through its watcher) others */
    changes,
    /** the published-content cache of the read paths (archives, tiles, styles, sprites, glyphs) */
    get published() { return published(); },
    get tilesetLookup() { return tilesetLookup(); },
    /** callers (keys, sessions), rate limits and usage counting */
    get auth() { return auth(); },
    /** tileset records, uploads and the processing jobs (the worker host starts with startWorker()) */
    get tilesets() { return tilesets(); },
    /** Processes queued tileset versions and gazetteer imports in this process, unless it is a worker (the supervisor does). */
    startJobs() {
      if (opts.worker) return;
      tilesets().startWorker();
      gazetteerImports().startWorker();
    },
    get styles() { return styles(); },
    get sprites() { return sprites(); },
    /** sprite files as HTTP answers with their ETags */
    get spriteFiles() { return spriteFiles(); },
    /** published style JSON and sprites as read answers (src/read/styles.ts) */
    get styleReads() { return styleReads(); },
    /** the font catalog: built-in and uploaded fonts */
    get fonts() { return fonts(); },
    /** glyph PBF ranges, built from the catalog's fonts and cached */
    get glyphs() { return glyphs(); },
    /** TileJSON and tiles of published archives (kept open, dropped when a tileset changes) */
    get tiles() { return tiles(); },
    /** features of published vector tilesets at or near a point (read from the tiles' open archives) */
    get tilequery() { return tilequery(); },
    /** static images and raster tiles: the renderer's worker pool and its image caches */
    get render() { return render(); },
    get geocoding() { return geocoding(); },
    /** the embedded gazetteer of DATA_DIR (opened or built on first use; imports go through it) */
    get gazetteer() { return gazetteer(); },
    /** gazetteer imports asked for over the API: queued as jobs, with their status */
    get gazetteerImports() { return gazetteerImports(); },
    /** the gazetteer when it is what answers geocoding (GEOCODER=embedded), else undefined */
    embeddedGazetteer,
    get elevation() { return elevation(); },
    /** the console's Elevation settings: the DEM in force, its coverage, and the admin's choice */
    get elevationSettings() { return elevationSettings(); },
    get routing() { return routing(); },
    get idempotency() { return idempotency(); },
    get health() { return health(); },
    /** the requests this process answered (counted by the access-log hook) */
    get metrics() { return metrics(); },
    /** what /metrics shows: this process's figures, or in a cluster's worker the whole server's */
    serverFigures(): Promise<ServerFigures> {
      return opts.worker ? opts.worker.metrics.figures() : Promise.resolve(processFigures(metrics(), ctx.startedAt));
    },
  };
}

export type Services = ReturnType<typeof createServices>;

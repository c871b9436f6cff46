// Embedded elevation: the elevation API answered from a raster-DEM tileset of this server
// (ELEVATION_TILESET or the one chosen in the console, its published version), bilinear between pixel
// centres at the archive's highest zoom, blending only pixels with data (a point in a pixel marked as no
// data has no height: tiles/dem/sample.ts). Archives are reached through the tile catalog, so publishing a new version or deleting the
// tileset takes effect at once; decoded tiles are kept in a byte-bounded LRU (64 MiB, ~250 tiles of 256 px).
import type { AppContext } from "../../context";
import { ServiceUnavailable } from "../../errors";
import type { Served, TileCatalog } from "../../read/tiles";
import { decodeDemTile, type DemEncoding, type DemTile } from "../../tiles/dem/encoding";
import { sampleDem } from "../../tiles/dem/sample";
import { Lru } from "../../lru";
import type { ElevationBackend } from "./opentopodata";

const DAY_MS = 86_400_000;

type Resolved = { served: Served; encoding: DemEncoding; attribution: string } | { problem: string };

/**
 * Why the chosen tileset (ELEVATION_TILESET or the console's choice) cannot answer, in words for the
 * operator (health, preflight, console).
 */
export function demTilesetProblem(name: string, state: "missing" | "unpublished" | "not_dem" | "not_ready", format?: string): string {
  if (state === "missing") return `the DEM tileset ${name} does not exist`;
  if (state === "unpublished") return `the DEM tileset ${name} has no published version`;
  if (state === "not_ready") return `the published version of the DEM tileset ${name} cannot be opened`;
  return `${name} is not a raster DEM (its tiles are ${format ?? "unknown"}, with no Terrarium or Terrain-RGB encoding)`;
}

/** @param catalog the tile catalog the tile routes use, so both share one archive cache and one change watcher */
export function createEmbeddedElevation(ctx: AppContext, tileset: { owner: string; slug: string }, catalog: TileCatalog): ElevationBackend {
  const { owner, slug } = tileset;
  const name = `${owner}/${slug}`;
  const tiles = new Lru<DemTile | null>({ ttlMs: DAY_MS, maxEntries: 4096, maxBytes: 64 * 1024 * 1024 });

  async function resolve(): Promise<Resolved> {
    const stable = catalog.stable(owner, slug);
    if (!stable) return { problem: demTilesetProblem(name, "missing") };
    if (stable.published_version === null) return { problem: demTilesetProblem(name, "unpublished") };
    const served = await catalog.version(owner, slug, stable.published_version);
    if (!served) return { problem: demTilesetProblem(name, "not_ready") };
    if (!served.facts.encoding) return { problem: demTilesetProblem(name, "not_dem", served.facts.format) };
    return { served, encoding: served.facts.encoding, attribution: served.attribution || `Elevation data: ${name}` };
  }

  async function decoded(served: Served, encoding: DemEncoding, z: number, x: number, y: number): Promise<DemTile | null> {
    const key = `${served.tilesetId}@${served.version}/${z}/${x}/${y}`;
    const hit = tiles.get(key);
    if (hit !== undefined) return hit;
    const tile = await served.source.getTile(z, x, y);
    let dem: DemTile | null = null;
    if (tile) {
      try {
        dem = await decodeDemTile(tile.encoding === "gzip" ? Bun.gunzipSync(tile.data as Uint8Array<ArrayBuffer>) : tile.data, encoding, `${name}@${served.version} tile ${z}/${x}/${y}`);
      } catch (err) {
        // A damaged tile is a hole in the coverage, not a failed request; the operator sees it in the log.
        ctx.log.warn("unreadable DEM tile", { tileset: name, version: served.version, tile: `${z}/${x}/${y}`, error: (err as Error).message });
      }
    }
    tiles.set(key, dem, (dem?.heights.byteLength ?? 0) + 120);
    return dem;
  }

  // The attribution of the archive that answered last (the service asks right after a lookup).
  let lastAttribution = `Elevation data: ${name}`;

  return {
    dataset: name,
    attribution: () => lastAttribution,
    revision: () => `${name}@${catalog.stable(owner, slug)?.published_version ?? "none"}`,
    async lookup(points) {
      const r = await resolve();
      if ("problem" in r) throw new ServiceUnavailable("ELEVATION_NOT_CONFIGURED", "Elevation is not available on this server: its elevation data is not set up yet; your API key is fine");
      lastAttribution = r.attribution;
      const { served, encoding } = r;
      const [w, s, e, n] = served.facts.bounds;
      const z = served.facts.maxzoom;
      const out: (number | null)[] = [];
      for (const p of points) {
        if (p.lon < w || p.lon > e || p.lat < s || p.lat > n) out.push(null);
        else {
          const h = await sampleDem(p.lon, p.lat, z, (x, y) => decoded(served, encoding, z, x, y), served.facts.bounds);
          out.push(h === null ? null : Math.round(h * 100) / 100);
        }
      }
      return out;
    },
  };
}

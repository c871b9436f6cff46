// The tile serving side: a catalog from owner/tileset@version to an open TileSource and its TileJSON,
// kept in the published-content cache, filled on first use and dropped when the change bus says the
// tileset changed (publish, delete, edit; here or in another process such as the CLI). A tile request
// costs the tile read and nothing else.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../context";
import { openMbtiles } from "../tiles/mbtiles";
import { openPmtiles } from "../tiles/pmtiles";
import type { TileFacts, TileSource, TilesetWords } from "../tiles/source";
import { tileJsonAnswers, type TileJsonAnswers } from "./tile-answers";
import type { PublishedCache } from "./published-cache";
import { AppError } from "../errors";
import type { UnreadableArchives } from "../domain/health/unreadable-archives";

export interface Served {
  tilesetId: number;
  orgId: number;
  owner: string;
  slug: string;
  version: number;
  /** "slug@version", its name in the published cache */
  name: string;
  private: boolean;
  source: TileSource;
  facts: TileFacts;
  /** URL extension of this archive's tiles */
  ext: string;
  /** the tileset's attribution now (or the archive's own), for renders and elevation answers */
  attribution: string | undefined;
  /** the TileJSON bodies' size, for the cache's budget */
  tilejsonBytes: number;
  tilejsonAnswers: TileJsonAnswers;
}

interface StableRow {
  org_id: number;
  visibility: string;
  published_version: number | null;
}

interface VersionRow {
  id: number;
  org_id: number;
  name: string;
  description: string;
  attribution: string;
  visibility: string;
  published_at: number | null;
  state: string;
  archive_format: string | null;
  archive_path: string | null;
  metadata: string | null;
}

const EXT = { pbf: "mvt", png: "png", jpg: "jpg", webp: "webp" } as const;
/** What an entry costs beyond its TileJSON: the open archive's handles and indexes are not counted. */
const ENTRY_BYTES = 1024;
/** A version's entry: the served archive, null (nothing servable) or the pending open. */
type VersionEntry = Served | null | Promise<Served | null>;

export function createTileCatalog(ctx: AppContext, published: PublishedCache, unreadable: UnreadableArchives) {
  const versionRow = ctx.sqlite.query<VersionRow, [string, string, number]>(
    `SELECT t.id, t.org_id, t.name, t.description, t.attribution, t.visibility, v.published_at, v.state, v.archive_format, v.archive_path, v.metadata
     FROM tilesets t JOIN orgs o ON o.id = t.org_id JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = ?3
     WHERE o.slug = ?1 AND t.slug = ?2`,
  );
  const stableRow = ctx.sqlite.query<StableRow, [string, string]>(
    "SELECT t.org_id, t.visibility, t.published_version FROM tilesets t JOIN orgs o ON o.id = t.org_id WHERE o.slug = ?1 AND t.slug = ?2",
  );

  // owner + "slug@version": the served archive; owner + "slug": the published version (or null).
  // The published cache drops both on every change of the tileset, here or in another process.
  const versions = published.slot<VersionEntry>("tileset");
  const stable = published.slot<StableRow | null>("tileset");
  let closing = false;

  /** Closes a dropped archive a little later, so requests already reading from it finish. */
  function retire(source: TileSource) {
    if (closing) return source.close();
    setTimeout(() => source.close(), 5000).unref?.();
  }

  versions.onEvict((value) => {
    if (value instanceof Promise) void value.then((v) => v && retire(v.source), () => {});
    else if (value && "source" in value) retire(value.source);
  });

  /**
   * A ready version whose archive is gone or damaged (deleted by hand, a disk error, a restore that left
   * it out) is the operator's to fix: the log names the file, the client is told the tileset cannot be
   * read now (503), not that DATA_DIR is unwritable or that the server failed.
   */
  function archiveUnreadable(owner: string, slug: string, version: number, archivePath: string, err: unknown): AppError {
    const missing = !existsSync(join(ctx.config.dataDir, archivePath));
    if (!missing) unreadable.note(`${owner}/${slug}@${version}`, archivePath);
    ctx.log.error("tileset archive cannot be read", { tileset: `${owner}/${slug}@${version}`, file: archivePath, missing, error: err instanceof Error ? err.message : String(err), fix: `copy the file back from a backup (see the README's Backups), or delete that version: mapstead tilesets delete --org ${owner} --slug ${slug} --version ${version} (the published version is deleted only after another is published, or after mapstead tilesets unpublish --org ${owner} --slug ${slug})` });
    return new AppError(503, "STORAGE_UNAVAILABLE", `Tileset '${owner}/${slug}@${version}' cannot be read: its archive is ${missing ? "missing" : "damaged"} on this server (the server's log names the file and the fix)`);
  }

  async function open(owner: string, slug: string, version: number): Promise<Served | null> {
    const row = versionRow.get(owner, slug, version);
    if (!row || row.state !== "ready" || !row.archive_path || !row.metadata) return null;
    const facts = JSON.parse(row.metadata) as TileFacts;
    const path = join(ctx.config.dataDir, row.archive_path);
    let source: TileSource;
    try {
      source = row.archive_format === "pmtiles" ? await openPmtiles(path, facts) : openMbtiles(path, facts);
    } catch (err) {
      throw archiveUnreadable(owner, slug, version, row.archive_path, err);
    }
    const ext = EXT[facts.format];
    const base = `${ctx.config.publicUrl}/tiles/v1/${owner}/${slug}@${version}`;
    // The tileset's own words win over what an uploaded archive says of itself.
    const tileJson = (words: TilesetWords) => {
      const tilejson: Record<string, unknown> = {
        tilejson: "3.0.0",
        name: words.name,
        version: `${version}.0.0`,
        scheme: "xyz",
        tiles: [`${base}/{z}/{x}/{y}.${ext}`],
        minzoom: facts.minzoom,
        maxzoom: facts.maxzoom,
        bounds: facts.bounds,
        center: facts.center,
        format: facts.format,
      };
      if (words.description || facts.description) tilejson.description = words.description || facts.description;
      if (words.attribution || facts.attribution) tilejson.attribution = words.attribution || facts.attribution;
      if (facts.format === "pbf") tilejson.vector_layers = facts.vector_layers;
      // tippecanoe's tilestats, as TileServer GL passes them on: GDAL and QGIS read a layer's geometry type there.
      if (facts.format === "pbf" && facts.tilestats) tilejson.tilestats = facts.tilestats;
      // Raster-DEM tilesets: what a style's `raster-dem` source needs to decode the heights (MapLibre takes
      // `encoding` and `tileSize` from the TileJSON when the style does not set them).
      if (facts.encoding) tilejson.encoding = facts.encoding;
      if (facts.tile_size) tilejson.tileSize = facts.tile_size;
      return JSON.stringify(tilejson);
    };
    const now: TilesetWords = { name: row.name, description: row.description, attribution: row.attribution };
    const stableBody = tileJson(now);
    // Versions made before the words were kept with them follow the tileset, as they always did.
    const versionedBody = facts.tileset ? tileJson(facts.tileset) : stableBody;
    // A version never published answers as a private tileset's do: to the organization only, never cached
    // by shared caches, so a version being checked before release leaks nowhere and stays deletable.
    const isPrivate = row.visibility === "private" || row.published_at === null;
    return {
      tilesetId: row.id,
      orgId: row.org_id,
      owner,
      slug,
      version,
      name: `${slug}@${version}`,
      private: isPrivate,
      source,
      facts,
      ext,
      attribution: row.attribution || facts.attribution || undefined,
      tilejsonBytes: stableBody.length + versionedBody.length,
      tilejsonAnswers: tileJsonAnswers(stableBody, versionedBody, isPrivate),
    };
  }

  return {
    /** The servable archive of one version (ready), or null. Sync when cached. */
    version(owner: string, slug: string, version: number): VersionEntry {
      const name = `${slug}@${version}`;
      const hit = versions.get(owner, name);
      if (hit !== undefined) return hit;
      const pending: Promise<Served | null> = open(owner, slug, version).then(
        (served) => {
          if (versions.get(owner, name) === pending) versions.set(owner, name, "", served, ENTRY_BYTES + (served?.tilejsonBytes ?? 0));
          else if (served) retire(served.source); // invalidated while opening; this request may still read it
          return served;
        },
        (err) => {
          if (versions.get(owner, name) === pending) versions.delete(owner, name);
          throw err;
        },
      );
      versions.set(owner, name, "", pending, ENTRY_BYTES);
      return pending;
    },

    /** The published version of owner/slug (with visibility and org), or null. */
    stable(owner: string, slug: string): StableRow | null {
      let hit = stable.get(owner, slug);
      if (hit === undefined) {
        hit = stableRow.get(owner, slug) ?? null;
        stable.set(owner, slug, "", hit, 128);
      }
      return hit;
    },

    /** Closes every open archive now (on shutdown). */
    close() {
      closing = true;
      published.dropAll("tileset");
    },
  };
}

export type TileCatalog = ReturnType<typeof createTileCatalog>;

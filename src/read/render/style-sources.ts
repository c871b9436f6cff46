// What a published style's sources are, seen from inside the app: its TileJSON URLs under PUBLIC_URL
// are mapped back to the tile catalog the tile routes use (no HTTP to itself), with the same private
// rule (a private tileset's tiles are drawn only for a viewer who may read them, and only in a style of
// the tileset's own organization). Sources elsewhere on the internet are not fetched: the appliance works
// offline, so their layers are left out.
import type { RasterDEMSourceSpecification, StyleSpecification } from "@maplibre/maplibre-gl-style-spec";
import type { Viewer } from "../../http/auth";
import type { Served, TileCatalog } from "../tiles";
import type { RenderSourceInfo } from "../../render/types";
import { isSlug } from "../../domain/orgs/slug";
import { parseVersionedSlug } from "../../domain/orgs/versioned-slug";
import { isDemEncoding, type DemEncoding } from "../../tiles/dem/encoding";

export interface ResolvedSource {
  info: RenderSourceInfo;
  /** the archive behind a vector, raster or raster-dem source; absent for inline GeoJSON */
  served?: Served;
}

export interface ResolvedSources {
  sources: Map<string, ResolvedSource>;
  /** changes whenever what the sources show changes (tileset versions, private ones shown or not) */
  signature: string;
  /**
   * A private tileset is among the sources: members see it drawn, everyone else sees it left out, so
   * what the style shows depends on who asks and no shared cache may keep it for others.
   */
  private: boolean;
}

const TILEJSON = /^\/tiles\/v1\/([^/]+)\/([^/]+)\.json$/;
const TILE_TEMPLATE = /^\/tiles\/v1\/([^/]+)\/([^/]+)\/\{z\}\/\{x\}\/\{y\}\.[a-z]+$/;

/** owner/slug[@version] of a Mapstead tileset URL (TileJSON or tile template) under `base`, else null. */
export function tilesetOfUrl(base: string, url: string): { owner: string; slug: string; version: number | null } | null {
  if (!url.startsWith(`${base}/`)) return null;
  const path = url.slice(base.length);
  const json = TILEJSON.exec(path);
  const m = json ?? TILE_TEMPLATE.exec(path);
  const name = m && isSlug(m[1]!) ? parseVersionedSlug(m[2]!) : null;
  // a tile template always names its version
  if (!name || (!json && name.version === null)) return null;
  return { owner: m![1]!, slug: name.slug, version: name.version };
}

/** `orgId` is the organization of the style. */
export async function resolveSources(style: StyleSpecification, base: string, catalog: TileCatalog, viewer: Viewer, orgId: number): Promise<ResolvedSources> {
  const sources = new Map<string, ResolvedSource>();
  const signature: string[] = [];
  let isPrivate = false;
  for (const [id, source] of Object.entries(style.sources ?? {})) {
    if (source.type === "geojson") {
      if (typeof source.data === "object" && source.data)
        sources.set(id, { info: { type: "geojson", tileSize: 512, minzoom: 0, maxzoom: source.maxzoom ?? 18, attribution: source.attribution } });
      continue;
    }
    if (source.type !== "vector" && source.type !== "raster" && source.type !== "raster-dem") continue;
    const url = "url" in source && typeof source.url === "string" ? source.url : Array.isArray(source.tiles) ? source.tiles[0] : undefined;
    const ref = url ? tilesetOfUrl(base, url) : null;
    if (!ref) continue;
    let version = ref.version;
    if (version === null) {
      const stable = catalog.stable(ref.owner, ref.slug);
      version = stable?.published_version ?? null;
      if (version === null) continue;
    }
    const pending = catalog.version(ref.owner, ref.slug, version);
    const served = pending instanceof Promise ? await pending : pending;
    if (!served) continue;
    // A style may only draw its own organization's private tilesets (validation refuses others; a style
    // saved before that, or a tileset made private later, must not show them to that organization's
    // members under another organization's style).
    // Nor is the picture drawn without it cached as public and immutable: publishing the version or making
    // the tileset public again changes what the same URL draws.
    if (served.private && served.orgId !== orgId) {
      isPrivate = true;
      continue;
    }
    if (served.private) {
      isPrivate = true;
      if (!viewer.privateOrgIds.has(served.orgId)) continue;
    }
    const encoding = source.type === "raster-dem" ? demEncoding(source, served) : undefined;
    if (source.type === "raster-dem" ? !encoding : (served.facts.format !== "pbf") !== (source.type === "raster")) continue;
    sources.set(id, {
      info: {
        type: source.type,
        ...(encoding ? { encoding } : {}),
        // 256 or 512, as validation requires now: a style saved before with a smaller one would make one
        // render load thousands of tiles
        tileSize: ("tileSize" in source ? source.tileSize : undefined) === 256 ? 256 : 512,
        minzoom: Math.max(served.facts.minzoom, source.minzoom ?? 0),
        maxzoom: Math.min(served.facts.maxzoom, source.maxzoom ?? 30),
        attribution: source.attribution ?? served.attribution,
      },
      served,
    });
    signature.push(`${id}=${served.tilesetId}@${served.version}`);
  }
  return { sources, signature: signature.join(","), private: isPrivate };
}

/**
 * How a raster-dem source's tiles hold heights, as MapLibre reads them: the style's own `encoding`, else
 * the TileJSON's (the tileset's), else MapLibre's default "mapbox" for a tile template. Null (left out)
 * for a tileset without heights, or an encoding the renderer does not decode ("custom").
 */
function demEncoding(source: RasterDEMSourceSpecification, served: Served): DemEncoding | null {
  if (!served.facts.encoding) return null;
  const encoding = source.encoding ?? (source.url ? served.facts.encoding : "mapbox");
  return isDemEncoding(encoding) ? encoding : null;
}

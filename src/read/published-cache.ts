// The one published-content cache of the read paths: open tile archives and their TileJSON, tile bytes,
// resolved style JSON, sprite files and glyph ranges share one memory budget (one LRU), keyed by
// (kind, owner, name[, extra]) where name is "slug" (the stable, published version) or "slug@version",
// exactly as URLs spell them, so a hot lookup builds one key string and parses nothing.
//
// A change on the bus for a tileset or a style drops every entry of that one id: the stable entries
// because a publish moves them, the versioned ones because their bytes are immutable but whether they
// may be served is not (visibility edits, deletes, and a slug deleted and created again). Nothing else is
// dropped. Sprite directories and glyph ranges are keyed by what makes them immutable (a new directory
// per upload, the font catalog's generation), so they only age out; a fonts change drops the glyphs.
import type { ChangeBus } from "../domain/changes/bus";
import { Lru } from "../lru";

/** What kinds of content are kept; a change of a tileset or style drops the kinds listed for it. */
// "tile" holds the tile routes' answers, "render-tile" the raw tiles the renderer reads and "query-tile"
// the unzipped vector tiles tilequery reads: one kind holds one shape of value, so each reader gets what
// it stored.
export type PublishedKind = "tileset" | "tilejson" | "tile" | "render-tile" | "query-tile" | "style" | "sprite" | "glyphs" | "font-range";

const DROPPED_BY = { tileset: ["tileset", "tilejson", "tile", "render-tile", "query-tile"], style: ["style"], fonts: ["glyphs"] } as const;

export interface PublishedCacheOptions {
  maxBytes?: number;
  maxEntries?: number;
}

/**
 * One kind's view of the cache: typed, and building exactly one key string per lookup. `owner` and
 * `name` are the tileset's or style's owner and "slug" / "slug@version"; kinds without an owner (sprite
 * directories, glyphs) use them for their own immutable identity.
 */
export interface PublishedSlot<V> {
  get(owner: string | number, name: string | number, extra?: string | number): V | undefined;
  set(owner: string | number, name: string | number, extra: string | number, value: V, bytes: number): void;
  delete(owner: string | number, name: string | number, extra?: string | number): void;
  /** Told when an entry of this kind leaves (evicted, expired or dropped by a change). */
  onEvict(listener: (value: V) => void): void;
}

const MAX_BYTES = 160 * 1024 * 1024;
const MAX_ENTRIES = 250_000;

export function createPublishedCache(changes: ChangeBus, opts: PublishedCacheOptions = {}) {
  const evictListeners = new Map<string, (value: unknown) => void>();
  const maxBytes = opts.maxBytes ?? MAX_BYTES;
  const lru = new Lru<unknown>({
    maxBytes,
    maxEntries: opts.maxEntries ?? MAX_ENTRIES,
    // One huge sprite sheet or tile must not push everything else out.
    maxEntryBytes: maxBytes / 8,
    onEvict: (key, value) => evictListeners.get(key.slice(0, key.indexOf("|")))?.(value),
  });

  /** Drops every entry of the listed kinds for owner/slug (stable and every version), or all of them. */
  function drop(kinds: readonly PublishedKind[], id: string | null): void {
    const prefixes = kinds.flatMap((kind) => (id === null ? [`${kind}|`] : [`${kind}|${id}|`, `${kind}|${id}@`]));
    lru.deleteWhere((key) => prefixes.some((p) => key.startsWith(p)));
  }

  changes.on((change) => {
    if (change.kind === "tileset" || change.kind === "style") drop(DROPPED_BY[change.kind], `${change.owner}/${change.slug}`);
    else if (change.kind === "fonts") drop(DROPPED_BY.fonts, null);
  });

  return {
    slot<V>(kind: PublishedKind): PublishedSlot<V> {
      return {
        get: (owner, name, extra = "") => lru.get(`${kind}|${owner}/${name}|${extra}`) as V | undefined,
        set: (owner, name, extra, value, bytes) => lru.set(`${kind}|${owner}/${name}|${extra}`, value, bytes),
        delete: (owner, name, extra = "") => lru.delete(`${kind}|${owner}/${name}|${extra}`),
        onEvict: (listener) => void evictListeners.set(kind, listener as (value: unknown) => void),
      };
    },

    /** Drops every entry of one kind (on shutdown: the archives are closed by their evict listener). */
    dropAll(kind: PublishedKind): void {
      drop([kind], null);
    },

    get bytes() {
      return lru.bytes;
    },
  };
}

export type PublishedCache = ReturnType<typeof createPublishedCache>;

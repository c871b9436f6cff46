// Small read-only questions other modules ask about tilesets (the styles module validates
// `mapstead://tilesets/...` references and pins versions with these). Plain TypeScript, no Elysia.
import type { Database } from "bun:sqlite";

interface VersionRow {
  published_version: number | null;
  state: string | null;
  published_at: number | null;
}

export function createTilesetLookup(sqlite: Database) {
  const published = sqlite.query<{ published_version: number | null }, [string, string]>(
    "SELECT t.published_version FROM tilesets t JOIN orgs o ON o.id = t.org_id WHERE o.slug = ? AND t.slug = ?",
  );
  const version = sqlite.query<VersionRow, [string, string, number]>(
    `SELECT t.published_version, v.state, v.published_at FROM tilesets t JOIN orgs o ON o.id = t.org_id
     LEFT JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = ?3
     WHERE o.slug = ?1 AND t.slug = ?2`,
  );
  const demFacts = sqlite.query<{ encoding: string | null; format: string | null; layers: string | null }, [string, string, number]>(
    `SELECT json_extract(v.metadata, '$.encoding') AS encoding, json_extract(v.metadata, '$.format') AS format,
            json_extract(v.metadata, '$.vector_layers') AS layers
     FROM tilesets t JOIN orgs o ON o.id = t.org_id JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = ?3
     WHERE o.slug = ?1 AND t.slug = ?2 AND v.state = 'ready'`,
  );
  const using = sqlite.query<{ owner: string; style: string; version: number; pinned: number }, [string]>(
    `SELECT o.slug AS owner, s.slug AS style, sv.version AS version, json_extract(sv.tileset_pins, ?1) AS pinned
     FROM styles s JOIN orgs o ON o.id = s.org_id
     JOIN style_versions sv ON sv.style_id = s.id AND sv.version = s.published_version
     WHERE json_extract(sv.tileset_pins, ?1) IS NOT NULL`,
  );

  return {
    /** The published version of owner/tileset, or null when the tileset is missing or unpublished. */
    publishedVersionOf(ownerSlug: string, tilesetSlug: string): number | null {
      return published.get(ownerSlug, tilesetSlug)?.published_version ?? null;
    },

    /** True when owner/tileset has that version and it finished processing (so its tiles can be served). */
    versionIsReady(ownerSlug: string, tilesetSlug: string, n: number): boolean {
      if (!Number.isSafeInteger(n) || n < 1) return false;
      return version.get(ownerSlug, tilesetSlug, n)?.state === "ready";
    },

    /** True when that version of owner/tileset was ever published (its URLs are then public on a public tileset). */
    versionWasPublished(ownerSlug: string, tilesetSlug: string, n: number): boolean {
      if (!Number.isSafeInteger(n) || n < 1) return false;
      return (version.get(ownerSlug, tilesetSlug, n)?.published_at ?? null) !== null;
    },

    /**
     * What a ready version holds: a raster DEM or not, its tile format and its vector layers' ids; null
     * when unknown (no such version, or no metadata recorded).
     */
    tilesetVersionIsDem(ownerSlug: string, tilesetSlug: string, n: number): { dem: boolean; format: string; layers: string[] } | null {
      const row = demFacts.get(ownerSlug, tilesetSlug, n);
      if (!row?.format) return null;
      const parsed = row.layers ? (JSON.parse(row.layers) as { id?: unknown }[]) : [];
      const layers = Array.isArray(parsed) ? parsed.map((l) => l?.id).filter((id): id is string => typeof id === "string") : [];
      return { dem: row.encoding === "terrarium" || row.encoding === "mapbox", format: row.format, layers };
    },

    /**
     * Published styles of the tileset's own organization whose current version uses owner/tileset
     * (pinned to `pinned`, when given), as "owner/style@n". Deleting what they use would break maps that
     * clients load right now. Other organizations' styles are left out: they may draw a public tileset,
     * but must neither keep its owner from deleting it nor have their names (private ones included)
     * shown to that owner.
     */
    stylesUsingTileset(ownerSlug: string, tilesetSlug: string, pinned?: number): string[] {
      // Pins are keyed "owner/tileset"; both are slugs, so the JSON path needs only the quotes.
      return using
        .all(`$."${ownerSlug}/${tilesetSlug}"`)
        .filter((r) => r.owner === ownerSlug && (pinned === undefined || r.pinned === pinned))
        .map((r) => `${r.owner}/${r.style}@${r.version}`);
    },
  };
}

export type TilesetLookup = ReturnType<typeof createTilesetLookup>;

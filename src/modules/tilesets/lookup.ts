// Small read-only questions other modules ask about tilesets (the styles module validates
// `mapstead://tilesets/...` references and pins versions with these). Plain TypeScript, no Elysia.
import type { AppContext } from "../../context";

interface VersionRow {
  published_version: number | null;
  state: string | null;
}

const statements = new WeakMap<AppContext, ReturnType<typeof prepare>>();

function prepare(ctx: AppContext) {
  return {
    published: ctx.sqlite.query<{ published_version: number | null }, [string, string]>(
      "SELECT t.published_version FROM tilesets t JOIN orgs o ON o.id = t.org_id WHERE o.slug = ? AND t.slug = ?",
    ),
    version: ctx.sqlite.query<VersionRow, [string, string, number]>(
      `SELECT t.published_version, v.state FROM tilesets t JOIN orgs o ON o.id = t.org_id
       LEFT JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = ?3
       WHERE o.slug = ?1 AND t.slug = ?2`,
    ),
  };
}

const stmts = (ctx: AppContext) => {
  let s = statements.get(ctx);
  if (!s) statements.set(ctx, (s = prepare(ctx)));
  return s;
};

/** The published version of owner/tileset, or null when the tileset is missing or unpublished. */
export function publishedVersionOf(ctx: AppContext, ownerSlug: string, tilesetSlug: string): number | null {
  return stmts(ctx).published.get(ownerSlug, tilesetSlug)?.published_version ?? null;
}

/** True when owner/tileset has that version and it finished processing (so its tiles can be served). */
export function versionIsReady(ctx: AppContext, ownerSlug: string, tilesetSlug: string, version: number): boolean {
  if (!Number.isSafeInteger(version) || version < 1) return false;
  return stmts(ctx).version.get(ownerSlug, tilesetSlug, version)?.state === "ready";
}

const demStatements = new WeakMap<AppContext, ReturnType<typeof prepareDem>>();

function prepareDem(ctx: AppContext) {
  return ctx.sqlite.query<{ encoding: string | null; format: string | null }, [string, string, number]>(
    `SELECT json_extract(v.metadata, '$.encoding') AS encoding, json_extract(v.metadata, '$.format') AS format
     FROM tilesets t JOIN orgs o ON o.id = t.org_id JOIN tileset_versions v ON v.tileset_id = t.id AND v.version = ?3
     WHERE o.slug = ?1 AND t.slug = ?2 AND v.state = 'ready'`,
  );
}

/**
 * Whether a ready version is a raster DEM: true, false (with its tile format), or null when unknown
 * (no such version, or no metadata recorded).
 */
export function tilesetVersionIsDem(ctx: AppContext, ownerSlug: string, tilesetSlug: string, version: number): { dem: boolean; format: string } | null {
  let q = demStatements.get(ctx);
  if (!q) demStatements.set(ctx, (q = prepareDem(ctx)));
  const row = q.get(ownerSlug, tilesetSlug, version);
  if (!row?.format) return null;
  return { dem: row.encoding === "terrarium" || row.encoding === "mapbox", format: row.format };
}

const usingStatements = new WeakMap<AppContext, ReturnType<typeof prepareUsing>>();

function prepareUsing(ctx: AppContext) {
  return ctx.sqlite.query<{ owner: string; style: string; version: number; pinned: number }, [string]>(
    `SELECT o.slug AS owner, s.slug AS style, sv.version AS version, json_extract(sv.tileset_pins, ?1) AS pinned
     FROM styles s JOIN orgs o ON o.id = s.org_id
     JOIN style_versions sv ON sv.style_id = s.id AND sv.version = s.published_version
     WHERE json_extract(sv.tileset_pins, ?1) IS NOT NULL`,
  );
}

/**
 * Published styles whose current version uses owner/tileset (pinned to `version`, when given), as
 * "owner/style@n". Deleting what they use would break maps that clients load right now.
 */
export function stylesUsingTileset(ctx: AppContext, ownerSlug: string, tilesetSlug: string, version?: number): string[] {
  let q = usingStatements.get(ctx);
  if (!q) usingStatements.set(ctx, (q = prepareUsing(ctx)));
  // Pins are keyed "owner/tileset"; both are slugs, so the JSON path needs only the quotes.
  return q
    .all(`$."${ownerSlug}/${tilesetSlug}"`)
    .filter((r) => version === undefined || r.pinned === version)
    .map((r) => `${r.owner}/${r.style}@${r.version}`);
}

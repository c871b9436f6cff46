// Styles: drafts, immutable published versions, the resolved public JSON and its cache. Plain
// TypeScript, no Elysia. Stored styles keep mapstead:// references; reads rewrite them to absolute URLs
// under PUBLIC_URL (references.ts). Every write announces itself on the change bus; the read side
// (src/read/styles.ts) keeps the resolved bytes in the published-content cache until then.
import { and, desc, eq } from "drizzle-orm";
import type { AppContext } from "../../context";
import { orgs, styles, styleVersions } from "../../db/schema";
import { retireSlug, retiredLastVersion } from "../orgs/retired-slugs";
import { BadRequest, Conflict, NotFound } from "../../errors";
import { isSlug } from "../orgs/slug";
import { nameOrSlug } from "../orgs/display-name";
import { parseVersionedSlug } from "../orgs/versioned-slug";
import type { TilesetLookup } from "../tilesets/lookup";
import type { SpriteStore } from "../sprites/store";
import type { SpriteSet } from "../../sprites/build";
import { findRefs, pinKey, rewriteRefs } from "./references";
import { assertValidStyle, type ReferenceWorld } from "./validate";
import type { FontCatalog } from "../fonts/catalog";
import type { ChangeBus } from "../changes/bus";

export type Visibility = "public" | "private";

export interface StyleRow {
  id: number;
  orgId: number;
  slug: string;
  name: string;
  visibility: Visibility;
  draft: Record<string, unknown>;
  draftSpritePath: string | null;
  publishedVersion: number | null;
  /** highest version number given out, counting deleted versions and a deleted style of the same slug */
  lastVersion: number;
  createdAt: number;
  updatedAt: number;
}

export interface OrgRef {
  id: number;
  slug: string;
}

/** A public style URL resolved to bytes (the read side caches it per owner, style and version-or-stable). */
export interface PublishedStyle {
  styleId: number;
  orgId: number;
  visibility: Visibility;
  /** the style's name in its organization (what the console and the API list), for documents made from
   * a style JSON that names itself nothing */
  name: string;
  /** the version served (for the stable URL: the published one) */
  version: number;
  stable: boolean;
  /** the serialized JSON, encoded once */
  body: Uint8Array;
  spritePath: string | null;
}

const STYLE_NOT_FOUND = "STYLE_NOT_FOUND";

export const styleNotFound = () => new NotFound("No published style at this URL", STYLE_NOT_FOUND);

/** Another process (the CLI) inserted the same style or version between our check and our write. */
const isUniqueViolation = (err: unknown) => err instanceof Error && /UNIQUE constraint failed/.test(err.message);

export function createStylesService(ctx: AppContext, deps: { tilesets: TilesetLookup; fonts: FontCatalog; sprites: SpriteStore; changes: ChangeBus }) {
  const base = ctx.config.publicUrl.replace(/\/+$/, "");
  const { tilesets, fonts, sprites } = deps;

  const publicStyleRow = ctx.sqlite.query<
    { id: number; org_id: number; name: string; visibility: Visibility; published_version: number | null },
    [string, string]
  >("SELECT s.id, s.org_id, s.name, s.visibility, s.published_version FROM styles s JOIN orgs o ON o.id = s.org_id WHERE o.slug = ? AND s.slug = ?");
  const versionRow = ctx.sqlite.query<{ style: string; tileset_pins: string; sprite_path: string | null }, [number, number]>(
    "SELECT style, tileset_pins, sprite_path FROM style_versions WHERE style_id = ? AND version = ?",
  );
  const tilesetVisibility = ctx.sqlite.query<{ visibility: string; org_id: number }, [string, string]>(
    "SELECT t.visibility, t.org_id FROM tilesets t JOIN orgs o ON o.id = t.org_id WHERE o.slug = ? AND t.slug = ?",
  );
  const styleVersionExists = ctx.sqlite.query<{ one: number }, [number, number]>("SELECT 1 AS one FROM style_versions WHERE style_id = ? AND version = ?");
  /** Runs a write of a style and records its change in the same transaction. */
  const writeStyle = <T>(org: OrgRef, slug: string, write: () => T): T => deps.changes.commit({ kind: "style", owner: org.slug, slug }, write);

  function world(org: OrgRef, style: { slug: string; draftSpritePath: string | null }): ReferenceWorld {
    const visible = (owner: string, tileset: string) => {
      const row = tilesetVisibility.get(owner, tileset);
      return !!row && (row.org_id === org.id || row.visibility === "public");
    };
    // Another organization sees only the versions its owner has published: one never published answers
    // its URLs to the owner alone, so a style elsewhere must neither pin it nor learn what it holds.
    const versionVisible = (owner: string, tileset: string, version: number) => {
      const row = tilesetVisibility.get(owner, tileset);
      if (!row) return false;
      if (row.org_id === org.id) return true;
      return row.visibility === "public" && tilesets.versionWasPublished(owner, tileset, version);
    };
    return {
      publicUrl: base,
      ownerSlug: org.slug,
      styleSlug: style.slug,
      hasSprite: style.draftSpritePath !== null,
      publishedTilesetVersion: (owner, tileset) => (visible(owner, tileset) ? tilesets.publishedVersionOf(owner, tileset) : null),
      tilesetVersionReady: (owner, tileset, version) => versionVisible(owner, tileset, version) && tilesets.versionIsReady(owner, tileset, version),
      installedFonts: () => fonts.names(),
      styleReadable: (owner, slug, version) => {
        const row = publicStyleRow.get(owner, slug);
        if (!row || !(row.org_id === org.id || row.visibility === "public")) return false;
        return version === null ? row.published_version !== null : !!styleVersionExists.get(row.id, version);
      },
      tilesetVersionIsDem: (owner, tileset, version) => (versionVisible(owner, tileset, version) ? tilesets.tilesetVersionIsDem(owner, tileset, version) : null),
    };
  }

  function resolve(owner: string, slug: string, style: Record<string, unknown>, pins: Record<string, number> | null, version: number | null) {
    return rewriteRefs(style, {
      base,
      tilesetVersion: (o, t, explicit) => explicit ?? (pins ? (pins[pinKey(o, t)] ?? null) : null),
      spriteUrl: (o, s) => `${base}/styles/v1/${o}/${s}${version === null ? "" : `@${version}`}/sprite`,
    });
  }

  /** The published style at GET /styles/v1/{owner}/{param}, resolved (uncached: see src/read/styles.ts). */
  function resolvePublic(owner: string, param: string): PublishedStyle | null {
    const parsed = parseVersionedSlug(param); // malformed reads as not found
    if (!parsed || !isSlug(owner)) return null;
    const row = publicStyleRow.get(owner, parsed.slug);
    if (!row) return null;
    const version = parsed.version ?? row.published_version;
    if (version === null) return null;
    const v = versionRow.get(row.id, version);
    if (!v) return null;
    const stored = JSON.parse(v.style) as Record<string, unknown>;
    const stable = parsed.version === null;
    const json = JSON.stringify(resolve(owner, parsed.slug, stored, stable ? null : (JSON.parse(v.tileset_pins) as Record<string, number>), stable ? null : version));
    const body = new TextEncoder().encode(json);
    return { styleId: row.id, orgId: row.org_id, name: row.name, visibility: row.visibility, version, stable, body, spritePath: v.sprite_path };
  }

  function orgBySlug(slug: string): OrgRef | null {
    if (!isSlug(slug)) return null;
    return ctx.db.select({ id: orgs.id, slug: orgs.slug }).from(orgs).where(eq(orgs.slug, slug)).get() ?? null;
  }

  function list(org: OrgRef): StyleRow[] {
    return ctx.db.select().from(styles).where(eq(styles.orgId, org.id)).orderBy(styles.slug).all() as StyleRow[];
  }

  function get(org: OrgRef, slug: string): StyleRow {
    const row = isSlug(slug) ? ctx.db.select().from(styles).where(and(eq(styles.orgId, org.id), eq(styles.slug, slug))).get() : undefined;
    if (!row) throw new NotFound(`Style '${org.slug}/${slug}' does not exist`, STYLE_NOT_FOUND);
    return row as StyleRow;
  }

  const emptyStyle = (name: string) => ({ version: 8, name, sources: {}, layers: [] });

  function create(org: OrgRef, input: { slug: string; name?: string; visibility?: Visibility; style?: Record<string, unknown> }): StyleRow {
    if (!isSlug(input.slug)) throw new BadRequest(`Invalid slug '${input.slug}': use 1-63 lowercase letters, digits and inner hyphens`);
    const name = nameOrSlug(input.name, input.slug);
    const draft = input.style ?? emptyStyle(name);
    assertValidStyle(draft, world(org, { slug: input.slug, draftSpritePath: null }));
    const taken = () => new Conflict(`Style '${org.slug}/${input.slug}' already exists`);
    try {
      return ctx.db.transaction((tx) => {
        if (tx.select({ id: styles.id }).from(styles).where(and(eq(styles.orgId, org.id), eq(styles.slug, input.slug))).get()) throw taken();
        return tx
          .insert(styles)
          .values({ orgId: org.id, slug: input.slug, name, visibility: input.visibility ?? "public", draft, lastVersion: retiredLastVersion(tx, org.slug, "style", input.slug) })
          .returning()
          .get() as StyleRow;
      });
    } catch (err) {
      throw isUniqueViolation(err) ? taken() : err;
    }
  }

  function update(org: OrgRef, slug: string, patch: { name?: string; visibility?: Visibility }): StyleRow {
    const row = get(org, slug);
    const set: Partial<typeof styles.$inferInsert> = { updatedAt: Date.now() };
    if (patch.name !== undefined) {
      set.name = nameOrSlug(patch.name, slug);
    }
    if (patch.visibility !== undefined) set.visibility = patch.visibility;
    return writeStyle(org, slug, () => ctx.db.update(styles).set(set).where(eq(styles.id, row.id)).returning().get() as StyleRow);
  }

  function saveDraft(org: OrgRef, slug: string, draft: unknown): StyleRow {
    const row = get(org, slug);
    assertValidStyle(draft, world(org, row));
    return writeStyle(org, slug, () => ctx.db.update(styles).set({ draft, updatedAt: Date.now() }).where(eq(styles.id, row.id)).returning().get() as StyleRow);
  }

  function setSprite(org: OrgRef, slug: string, set: SpriteSet): StyleRow {
    const row = get(org, slug);
    const rel = sprites.writeDraft(row.id, set);
    let out: StyleRow;
    try {
      out = writeStyle(org, slug, () => ctx.db.update(styles).set({ draftSpritePath: rel, updatedAt: Date.now() }).where(eq(styles.id, row.id)).returning().get() as StyleRow);
    } catch (err) {
      sprites.remove(rel);
      throw err;
    }
    // Published versions have their own links to the files; the old draft directory is no one's now.
    for (const stray of sprites.strayDrafts(row.id, rel)) sprites.remove(stray);
    return out;
  }

  function removeSprite(org: OrgRef, slug: string): StyleRow {
    const row = get(org, slug);
    if (!row.draftSpritePath) throw new NotFound(`Style '${org.slug}/${slug}' has no sprite`);
    if (findRefs(row.draft).refs.some((r) => r.ref.kind === "sprite"))
      throw new Conflict("The draft still references its sprite (mapstead://sprites/...); remove the 'sprite' property from the draft first");
    const out = writeStyle(org, slug, () => ctx.db.update(styles).set({ draftSpritePath: null, updatedAt: Date.now() }).where(eq(styles.id, row.id)).returning().get() as StyleRow);
    sprites.remove(row.draftSpritePath);
    return out;
  }

  /** Publishes the draft as a new immutable version, or (with `version`) points the stable URL back at an existing one. */
  function publish(org: OrgRef, slug: string, opts: { version?: number } = {}): { version: number; created: boolean } {
    const row = get(org, slug);
    if (opts.version !== undefined) {
      const exists = ctx.db.select({ id: styleVersions.id }).from(styleVersions).where(and(eq(styleVersions.styleId, row.id), eq(styleVersions.version, opts.version))).get();
      if (!exists) throw new NotFound(`Style '${org.slug}/${slug}' has no version ${opts.version}`, STYLE_NOT_FOUND);
      writeStyle(org, slug, () => ctx.db.update(styles).set({ publishedVersion: opts.version, updatedAt: Date.now() }).where(eq(styles.id, row.id)).run());
      return { version: opts.version, created: false };
    }
    assertValidStyle(row.draft, world(org, row));
    const pins: Record<string, number> = {};
    // Only mapstead:// references are rewritten to pinned URLs; an absolute stable URL stays stable.
    for (const { ref } of findRefs(row.draft).refs)
      if (ref.kind === "tileset" && ref.version === null) pins[pinKey(ref.owner, ref.tileset)] = tilesets.publishedVersionOf(ref.owner, ref.tileset)!;
    // Counted on the style, not from its versions, so a deleted version's number is not given out again.
    const version = row.lastVersion + 1;
    const spritePath = row.draftSpritePath ? sprites.snapshot(row.id, version, row.draftSpritePath) : null;
    try {
      writeStyle(org, slug, () => {
        ctx.db.insert(styleVersions).values({ styleId: row.id, version, style: row.draft, tilesetPins: pins, spritePath }).run();
        ctx.db.update(styles).set({ publishedVersion: version, lastVersion: version, updatedAt: Date.now() }).where(eq(styles.id, row.id)).run();
      });
    } catch (err) {
      sprites.remove(spritePath);
      if (isUniqueViolation(err)) throw new Conflict(`Version ${version} of '${org.slug}/${slug}' was just published by someone else; publish again`);
      throw err;
    }
    return { version, created: true };
  }

  function unpublish(org: OrgRef, slug: string): void {
    const row = get(org, slug);
    if (row.publishedVersion === null) throw new Conflict(`Style '${org.slug}/${slug}' is not published`);
    writeStyle(org, slug, () => ctx.db.update(styles).set({ publishedVersion: null, updatedAt: Date.now() }).where(eq(styles.id, row.id)).run());
  }

  function versions(org: OrgRef, slug: string) {
    const row = get(org, slug);
    return ctx.db
      .select({ version: styleVersions.version, tilesetPins: styleVersions.tilesetPins, spritePath: styleVersions.spritePath, createdAt: styleVersions.createdAt })
      .from(styleVersions)
      .where(eq(styleVersions.styleId, row.id))
      .orderBy(desc(styleVersions.version))
      .all();
  }

  function remove(org: OrgRef, slug: string): void {
    const row = get(org, slug);
    writeStyle(org, slug, () =>
      ctx.db.transaction((tx) => {
        retireSlug(tx, org.slug, "style", row.slug, row.lastVersion);
        tx.delete(styles).where(eq(styles.id, row.id)).run();
      }),
    );
    sprites.removeStyle(row.id);
  }

  /** The draft with absolute URLs, for previews: stable TileJSON, the draft sprite through the management API. */
  function draftPreview(org: OrgRef, row: StyleRow): Record<string, unknown> {
    return rewriteRefs(row.draft, {
      base,
      tilesetVersion: (_o, _t, explicit) => explicit,
      spriteUrl: () => `${base}/api/v1/orgs/${org.slug}/styles/${row.slug}/draft/sprite`,
    });
  }

  /** The published style JSON with absolute URLs, as GET /styles/v1/{owner}/{style} serves it. */
  function exportPublished(org: OrgRef, slug: string, version?: number): Record<string, unknown> {
    const row = get(org, slug);
    const resolved = resolvePublic(org.slug, version === undefined ? row.slug : `${row.slug}@${version}`);
    if (!resolved) throw new NotFound(version === undefined ? `Style '${org.slug}/${slug}' is not published` : `Style '${org.slug}/${slug}' has no version ${version}`, STYLE_NOT_FOUND);
    return JSON.parse(new TextDecoder().decode(resolved.body));
  }

  const urls = (org: OrgRef, row: StyleRow) => ({
    stable: row.publishedVersion === null ? null : `${base}/styles/v1/${org.slug}/${row.slug}`,
    published: row.publishedVersion === null ? null : `${base}/styles/v1/${org.slug}/${row.slug}@${row.publishedVersion}`,
  });

  return {
    base,
    sprites,
    resolvePublic,
    orgBySlug,
    list,
    get,
    create,
    update,
    saveDraft,
    setSprite,
    removeSprite,
    publish,
    unpublish,
    versions,
    remove,
    draftPreview,
    exportPublished,
    urls,
  };
}

export type StylesService = ReturnType<typeof createStylesService>;

// Version numbers outlive a deleted tileset or style. Versioned URLs are served as immutable and cached
// for a year, so when a slug is created again its versions go on from the last number the deleted one
// gave out: `acme/roads@1` never names other data than it once did.
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { retiredSlugs } from "../../db/schema";

export type RetiredKind = "tileset" | "style";
/** The database or a transaction on it. */
type Writer = Pick<Db, "select" | "insert">;

/** Records a deleted tileset's or style's last version number (keeping the highest if deleted before). */
export function retireSlug(db: Writer, owner: string, kind: RetiredKind, slug: string, lastVersion: number): void {
  if (lastVersion <= 0) return;
  db.insert(retiredSlugs)
    .values({ owner, kind, slug, lastVersion })
    .onConflictDoUpdate({ target: [retiredSlugs.owner, retiredSlugs.kind, retiredSlugs.slug], set: { lastVersion: sql`MAX(${retiredSlugs.lastVersion}, excluded.last_version)` } })
    .run();
}

/** The last version number a slug gave out before it was deleted; 0 for a slug never used. */
export function retiredLastVersion(db: Writer, owner: string, kind: RetiredKind, slug: string): number {
  const row = db
    .select({ n: retiredSlugs.lastVersion })
    .from(retiredSlugs)
    .where(sql`${retiredSlugs.owner} = ${owner} AND ${retiredSlugs.kind} = ${kind} AND ${retiredSlugs.slug} = ${slug}`)
    .get();
  return row?.n ?? 0;
}

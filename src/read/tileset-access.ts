// Who may read a tileset, and which version its stable URL serves: the one rule the tile routes and
// Tilequery share, so a private tileset answers both with the same 404 as a missing one.
import { NotFound } from "../errors";
import type { Viewer } from "../domain/accounts/auth";
import type { Served, TileCatalog } from "./tiles";

export const tilesetMissing = (owner: string, name: string) => new NotFound(`Tileset '${owner.slice(0, 100)}/${name.slice(0, 100)}' not found`, "TILESET_NOT_FOUND");

/** Whether `viewer` may read the opened version (a private tileset or an unpublished version: its organization only). */
export const visible = (served: Served | null, viewer: Viewer): served is Served => served !== null && (!served.private || viewer.privateOrgIds.has(served.orgId));

/** The version the stable URL of owner/slug serves (the published one), for a viewer who may see the tileset. */
export function publishedVersion(catalog: TileCatalog, owner: string, slug: string, viewer: Viewer): number {
  const st = catalog.stable(owner, slug);
  if (!st || (st.visibility === "private" && !viewer.privateOrgIds.has(st.org_id))) throw tilesetMissing(owner, slug);
  if (st.published_version === null) throw new NotFound(`Tileset '${owner}/${slug}' has no published version`, "TILESET_NOT_FOUND");
  return st.published_version;
}

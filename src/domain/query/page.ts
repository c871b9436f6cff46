// One page of a management list: `limit` items after `cursor`, and the cursor of the next page when
// more remain. Lists are small (an organization's tilesets, styles, keys), so they are read whole and
// cut here; what a page cares about is that paging is stable while the list changes. The cursor holds
// the position of the last item sent (its slug, or its id), not an index, so an item created or deleted
// between two pages neither repeats nor skips another.
import { BadRequest } from "../../errors";

/** The largest `limit` a request may ask for (without one, every item is sent, as before lists took one). */
export const MAX_PAGE_LIMIT = 1000;

export interface PageRequest {
  limit: number;
  /** the position of the last item of the previous page, or null for the first page */
  after: string | number | null;
}

/** The page a query asks for: `limit` (1 to 1000; without it, every item) and an opaque `cursor`. */
export function parsePage(query: { limit?: string; cursor?: string }): PageRequest {
  let limit = Infinity;
  if (query.limit !== undefined) {
    if (!/^\d{1,4}$/.test(query.limit) || Number(query.limit) < 1 || Number(query.limit) > MAX_PAGE_LIMIT)
      throw new BadRequest(`limit must be a whole number from 1 to ${MAX_PAGE_LIMIT}`, { parameter: "limit" });
    limit = Number(query.limit);
  }
  if (query.cursor === undefined) return { limit, after: null };
  return { limit, after: decodeCursor(query.cursor) };
}

/**
 * The page of `items` (sorted by `positionOf` in `order`, as the list's query sorts them): the first
 * `limit` items whose position comes after the cursor's, and the cursor of the next page.
 */
export function pageOf<T>(items: readonly T[], page: PageRequest, positionOf: (item: T) => string | number, order: "asc" | "desc"): { items: T[]; nextCursor: string | null } {
  const after = page.after;
  // A cursor of another list (a key's id on a list of slugs) would read as the end of this one.
  if (after !== null && items.length > 0 && typeof positionOf(items[0]!) !== typeof after) throw invalidCursor();
  const start = after === null ? 0 : items.findIndex((item) => comesAfter(positionOf(item), after, order));
  const rest = start < 0 ? [] : items.slice(start);
  const cut = rest.slice(0, page.limit);
  const nextCursor = rest.length > cut.length ? encodeCursor(positionOf(cut[cut.length - 1]!)) : null;
  return { items: cut, nextCursor };
}

function comesAfter(position: string | number, after: string | number, order: "asc" | "desc"): boolean {
  return order === "asc" ? position > after : position < after;
}

const invalidCursor = () => new BadRequest("cursor is not one this server gave: pass next_cursor from the previous page as it came", { parameter: "cursor" });

function encodeCursor(position: string | number): string {
  return Buffer.from(JSON.stringify([position])).toString("base64url");
}

function decodeCursor(cursor: string): string | number {
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(parsed) || parsed.length !== 1 || (typeof parsed[0] !== "string" && typeof parsed[0] !== "number")) throw invalidCursor();
  return parsed[0];
}

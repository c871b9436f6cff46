// The paging every management list takes (src/domain/query/page.ts): `limit` and `cursor` in the query,
// `next_cursor` in the answer while more items remain.
import { t } from "elysia";
import { MAX_PAGE_LIMIT, pageOf, parsePage } from "../../domain/query/page";

export const PageQuery = {
  limit: t.Optional(t.String({ description: `at most this many items, 1 to ${MAX_PAGE_LIMIT} (default: all of them)` })),
  cursor: t.Optional(t.String({ description: "next_cursor of the previous page, to get the items after it" })),
};

/** The answer's `next_cursor`, beside the list. */
export const NextCursor = t.Optional(t.String({ description: "present while more items remain: pass it as `cursor` for the next page" }));

export const PAGING_NOTE = `Paged with \`limit\` (1-${MAX_PAGE_LIMIT}; without it, every item) and \`cursor\` (the previous answer's \`next_cursor\`, present while more items remain); a page is stable while items are created or deleted between calls. 400 BAD_REQUEST for a bad limit or a cursor this server did not give.`;

/**
 * `{[name]: the page's items, next_cursor}` of a list sorted by `positionOf` in `order` (the order its
 * query returns it in).
 */
export function paged<K extends string, T, O>(
  name: K,
  items: readonly T[],
  query: { limit?: string; cursor?: string },
  positionOf: (item: T) => string | number,
  order: "asc" | "desc",
  out: (item: T) => O,
): { [P in K]: O[] } & { next_cursor?: string } {
  const page = pageOf(items, parsePage(query), positionOf, order);
  const answer = { [name]: page.items.map(out) } as { [P in K]: O[] } & { next_cursor?: string };
  if (page.nextCursor !== null) answer.next_cursor = page.nextCursor;
  return answer;
}

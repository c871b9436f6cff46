// The display name of a tileset or style: the slug when none is given, but a name given blank is a
// mistake (an emptied form field, a script's unset variable), not a request to use the slug.
import { BadRequest } from "../../errors";

export function nameOrSlug(name: string | undefined, slug: string): string {
  if (name === undefined) return slug;
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequest("'name' must not be blank; leave it out to use the slug", [{ in: "body", path: "name", message: "must not be blank" }]);
  return trimmed;
}

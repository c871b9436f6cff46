// What the CLI says when --org names no organization: the likely mistake first (a typo or capitals,
// as "did you mean"), then how to see them, and how to create it only when the name could be one.
import type { Db } from "../db/client";
import { listOrgs } from "../domain/orgs/service";
import { isSlug } from "../domain/orgs/slug";
import { editDistance } from "../backends/geocoder/embedded/text";

export function unknownOrgWords(db: Db, slug: string): string {
  const slugs = listOrgs(db).map((o) => o.slug);
  const typed = slug.toLowerCase();
  const near = slugs.find((s) => s === typed) ?? slugs.find((s) => editDistance(typed, s, 2) <= Math.min(2, Math.floor(s.length / 3)));
  const shown = slug.slice(0, 100);
  if (near) return `no organization '${shown}'; did you mean '${near}'? (mapstead orgs list shows them all)`;
  const create = isSlug(slug) ? `, or create it: mapstead orgs create --slug ${slug}` : " (organization names are lowercase letters, digits and inner hyphens)";
  return `no organization '${shown}'; see them with: mapstead orgs list${create}`;
}

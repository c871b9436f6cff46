// `slug@version` names in public URLs and mapstead:// references (CONTRACT.md): a slug, then optionally
// `@` and a positive version of at most nine digits (so it always fits the database's integer and never
// reads as a float). One parser, so tiles, TileJSON, styles, sprites, raster tiles and style references
// accept and refuse the same names; callers turn a refusal into their own 4xx.
import { isSlug } from "./slug";

export const VERSION_PATTERN = "^[1-9][0-9]{0,8}$";
const VERSION_RE = new RegExp(VERSION_PATTERN);

export interface VersionedSlug {
  slug: string;
  /** null for the stable (published) version */
  version: number | null;
}

/** "name" or "name@3"; null when the slug or the version is malformed, or there is a second "@". */
export function parseVersionedSlug(text: string): VersionedSlug | null {
  const at = text.indexOf("@");
  const slug = at < 0 ? text : text.slice(0, at);
  if (!isSlug(slug)) return null;
  if (at < 0) return { slug, version: null };
  const version = text.slice(at + 1);
  return VERSION_RE.test(version) ? { slug, version: Number(version) } : null;
}

/** Whether `text` is a version number as the URLs, the API and the CLI accept it. */
export const isVersion = (text: string) => VERSION_RE.test(text);

// Slugs for orgs, tilesets and styles (CONTRACT.md): lowercase letters, digits and inner hyphens, 1-63.
export const SLUG_PATTERN = "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$";
const SLUG_RE = new RegExp(SLUG_PATTERN);

export const isSlug = (value: string) => SLUG_RE.test(value);

// Browser-origin policy of API keys. Patterns are exact origins (`https://app.example.com`,
// `http://localhost:3000`) or a wildcard for the leftmost label(s) (`https://*.example.com`: any depth of
// subdomain, never the apex). The request's origin comes from Origin, falling back to Referer. Both are
// client-supplied and trivially forged outside a browser, so this is friction against copy-pasted keys,
// not an authorization boundary (SPEC.md, Authentication 6).

export interface OriginPattern {
  scheme: "http:" | "https:";
  /** exact host, or for wildcards the required suffix including its leading dot (".example.com") */
  host: string;
  wildcard: boolean;
  /** "" for the scheme's default port */
  port: string;
}

export const MAX_ORIGINS = 50;
const MAX_ORIGIN_LENGTH = 255;
const PLACEHOLDER = "mapstead-wildcard-label";

/** Parses one pattern from key creation; throws a message naming the problem. */
export function parseOriginPattern(raw: string): OriginPattern {
  const value = raw.trim().replace(/\/$/, "");
  if (!value || value.length > MAX_ORIGIN_LENGTH) throw new Error(`'${raw}' is not an origin (1-${MAX_ORIGIN_LENGTH} characters, like https://app.example.com)`);
  const m = /^(https?):\/\/(\*\.)?([^/?#@\s*]+)$/i.exec(value);
  if (!m) throw new Error(`'${raw}' is not an origin: use scheme://host[:port] with http or https, no path, and '*.' only as the first label (https://*.example.com)`);
  const wildcard = Boolean(m[2]);
  let url: URL;
  try {
    url = new URL(`${m[1]}://${wildcard ? `${PLACEHOLDER}.` : ""}${m[3]}`);
  } catch {
    throw new Error(`'${raw}' is not a valid origin`);
  }
  if (url.username || url.password || url.pathname !== "/" || url.search || url.hash) throw new Error(`'${raw}' must be scheme://host[:port] only`);
  let host = url.hostname;
  if (wildcard) {
    host = host.slice(PLACEHOLDER.length); // ".example.com"
    if (!/^\.[^.]+\.[^.]+/.test(host)) throw new Error(`'${raw}' is too broad: a wildcard needs at least two labels after '*.' (https://*.example.com)`);
  }
  return { scheme: url.protocol as OriginPattern["scheme"], host, wildcard, port: url.port };
}

/** Canonical text of a pattern, as stored and listed. */
export function formatOriginPattern(p: OriginPattern): string {
  return `${p.scheme}//${p.wildcard ? "*" : ""}${p.host}${p.port ? `:${p.port}` : ""}`;
}

/** Validates and canonicalizes a list from key creation or update (duplicates dropped). */
export function normalizeOrigins(list: string[]): string[] {
  if (list.length > MAX_ORIGINS) throw new Error(`At most ${MAX_ORIGINS} allowed origins per key`);
  return [...new Set(list.map((o) => formatOriginPattern(parseOriginPattern(o))))];
}

interface RequestOrigin {
  scheme: string;
  host: string;
  port: string;
}

/** Parses an Origin header value; null when it is not a plain scheme://host[:port]. */
function parseRequestOrigin(value: string): RequestOrigin | null {
  if (value.length > 2048) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password) return null;
  return { scheme: url.protocol, host: url.hostname, port: url.port };
}

/** The origin a browser request came from: Origin, or the origin of Referer; null when neither is usable. */
export function requestOriginOf(request: Request): RequestOrigin | null {
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") {
    // An Origin header is exactly scheme://host[:port]; anything longer is not a browser's.
    if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#@\s]+$/i.test(origin)) return null;
    return parseRequestOrigin(origin);
  }
  const referer = request.headers.get("referer");
  return referer ? parseRequestOrigin(referer) : null;
}

export function originMatches(origin: RequestOrigin, patterns: readonly OriginPattern[]): boolean {
  for (const p of patterns) {
    if (p.scheme !== origin.scheme || p.port !== origin.port) continue;
    if (p.wildcard ? origin.host.length > p.host.length && origin.host.endsWith(p.host) : origin.host === p.host) return true;
  }
  return false;
}

/** Convenience for callers holding pattern strings (already validated at key creation). */
export function originAllowed(origin: string, allowed: string[]): boolean {
  const o = parseRequestOrigin(origin);
  if (!o) return false;
  const patterns: OriginPattern[] = [];
  for (const a of allowed) {
    try {
      patterns.push(parseOriginPattern(a));
    } catch {
      // a stored pattern that no longer parses matches nothing
    }
  }
  return originMatches(o, patterns);
}

export function describeOrigin(o: RequestOrigin): string {
  return `${o.scheme}//${o.host}${o.port ? `:${o.port}` : ""}`;
}

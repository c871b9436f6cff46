// Whether a client takes gzip, from its Accept-Encoding (tiles and glyph ranges are sent gzipped to
// clients that do: every browser).
// A browser sends the same Accept-Encoding on every request: its last answer is kept.
let lastAcceptEncoding: string | null = null;
let lastAcceptsGzip = false;

export function acceptsGzip(header: string | null): boolean {
  if (header === lastAcceptEncoding) return lastAcceptsGzip;
  lastAcceptsGzip = parseAcceptsGzip(header);
  lastAcceptEncoding = header;
  return lastAcceptsGzip;
}

function parseAcceptsGzip(h: string | null): boolean {
  if (!h) return false;
  for (const part of h.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}


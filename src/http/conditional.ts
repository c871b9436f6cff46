// Conditional GETs: If-None-Match uses the weak comparison of RFC 9110 (a W/ prefix on either side
// is ignored), a comma-separated list, or "*".
export function ifNoneMatchHits(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  if (!header) return false;
  const ours = etag.replace(/^W\//, "");
  return header.split(",").some((part) => {
    const tag = part.trim().replace(/^W\//, "");
    return tag === "*" || tag === ours;
  });
}

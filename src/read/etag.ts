// The one ETag helper of the read paths: strong tags over bytes, and If-None-Match matching with the
// weak comparison of RFC 9110 (a W/ prefix on either side is ignored), a comma-separated list, or "*".
import { createHash } from "node:crypto";

/** A strong ETag of the bytes (SHA-256, base64url, 32 characters: collisions are not a concern). */
export const strongEtag = (bytes: string | Uint8Array) => `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 32)}"`;

export function ifNoneMatchHits(request: Request, etag: string): boolean {
  const header = request.headers.get("if-none-match");
  return header ? etagListHits(header, etag) : false;
}

/** Whether an If-None-Match header's value names `etag`. */
export function etagListHits(header: string, etag: string): boolean {
  const ours = etag.replace(/^W\//, "");
  return header.split(",").some((part) => {
    const tag = part.trim().replace(/^W\//, "");
    return tag === "*" || tag === ours;
  });
}

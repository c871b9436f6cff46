// Request body size rules. Upload routes (declared `body: "upload"` in their route facts) stream to
// disk and may take up to MAX_UPLOAD_MB; every other route takes JSON and is refused early above
// JSON_BODY_LIMIT so a large body is never buffered.
import { AppError, PayloadTooLarge } from "../errors";
import type { BodyKind } from "./route-facts";

export const JSON_BODY_LIMIT = 10 * 1024 * 1024;

/**
 * The body size Bun itself allows, set far past MAX_UPLOAD_MB: at Bun's own limit it answers a bare 413
 * with no body and closes, so a user sending a 3 GB file with curl learned nothing. Every body still
 * meets a limit of its own: declared lengths are checked before anything is read (checkDeclaredLength,
 * 413 in the envelope naming the limit), JSON routes refuse chunked bodies (411), and upload routes
 * count what they stream and stop at MAX_UPLOAD_MB. An answer that leaves a big or chunked body unread
 * closes the connection, so Bun does not read the rest to drop it (closesConnection below;
 * test/http/upload-limits.test.ts).
 */
export const BUN_BODY_LIMIT = 2 ** 42;

/**
 * Throws 413 when the declared length is over the route's limit. A JSON route also refuses a chunked
 * body without a length (411): it would otherwise be buffered whole, up to the upload limit, first.
 * Routes that take no body (GETs, unknown paths) allow what a JSON route allows: a body they never read
 * would otherwise be read and dropped by Bun, however long.
 */
export function checkDeclaredLength(headers: { contentLength: string | null; transferEncoding: string | null }, body: BodyKind, maxUploadMb: number): void {
  const declared = headers.contentLength;
  if (!declared) {
    if (headers.transferEncoding?.toLowerCase().includes("chunked") && body === "json")
      throw new AppError(411, "BAD_REQUEST", `Send this request body with a Content-Length header (at most ${JSON_BODY_LIMIT / 1024 / 1024} MiB)`, undefined, CLOSE);
    return;
  }
  const length = Number(declared);
  if (!Number.isFinite(length)) return;
  const upload = body === "upload";
  const limit = upload ? maxUploadMb * 1024 * 1024 : JSON_BODY_LIMIT;
  if (length > limit)
    throw new PayloadTooLarge(
      upload
        ? `Upload of ${length} bytes is over MAX_UPLOAD_MB (${maxUploadMb} MiB)`
        : body === "json"
          ? `Request body of ${length} bytes is over the ${JSON_BODY_LIMIT / 1024 / 1024} MiB limit for this route`
          : `Request body of ${length} bytes sent to a route that reads none (at most ${JSON_BODY_LIMIT / 1024 / 1024} MiB are let through)`,
    );
}

const CLOSE = Object.freeze({ connection: "close" });

/**
 * Whether an answer to this request should close the connection: when the body may be left unread
 * (a chunked body of unknown length, or one larger than a JSON body may be) and the answer is an error
 * or the route reads no body. Bun would otherwise read and drop the rest to keep the connection alive:
 * up to MAX_UPLOAD_MB of an upload refused for its credentials, say.
 */
export function closesConnection(headers: { contentLength: string | null; transferEncoding: string | null }, body: BodyKind, isError: boolean): boolean {
  if (!isError && body !== "none") return false;
  if (headers.transferEncoding?.toLowerCase().includes("chunked")) return true;
  return headers.contentLength !== null && Number(headers.contentLength) > JSON_BODY_LIMIT;
}

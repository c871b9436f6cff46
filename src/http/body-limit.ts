// Request body size rules. Upload routes (declared `body: "upload"` in their route facts) stream to
// disk and may take up to MAX_UPLOAD_MB; every other route takes JSON and is refused early above
// JSON_BODY_LIMIT so a large body is never buffered.
import { AppError, PayloadTooLarge } from "../errors";
import type { BodyKind } from "./route-facts";

export const JSON_BODY_LIMIT = 10 * 1024 * 1024;

/**
 * Throws 413 when the declared length is over the route's limit. A JSON route also refuses a chunked
 * body without a length (411): it would otherwise be buffered whole, up to the upload limit, first.
 */
export function checkDeclaredLength(headers: { contentLength: string | null; transferEncoding: string | null }, body: BodyKind, maxUploadMb: number): void {
  const declared = headers.contentLength;
  if (!declared) {
    if (headers.transferEncoding?.toLowerCase().includes("chunked") && body !== "upload")
      throw new AppError(411, "BAD_REQUEST", `Send this request body with a Content-Length header (at most ${JSON_BODY_LIMIT / 1024 / 1024} MiB)`);
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
        : `Request body of ${length} bytes is over the ${JSON_BODY_LIMIT / 1024 / 1024} MiB limit for this route`,
    );
}

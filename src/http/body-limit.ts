// Request body size rules. Upload routes stream to disk and may take up to MAX_UPLOAD_MB; every other
// route takes JSON and is refused early above JSON_BODY_LIMIT so a large body is never buffered.
import { AppError, PayloadTooLarge } from "../errors";

export const JSON_BODY_LIMIT = 10 * 1024 * 1024;

const UPLOAD_ROUTES: [string, RegExp][] = [
  ["POST", /^\/api\/v1\/orgs\/[^/]+\/tilesets\/[^/]+\/versions\/?$/],
  ["PUT", /^\/api\/v1\/orgs\/[^/]+\/styles\/[^/]+\/sprite\/?$/],
  ["POST", /^\/api\/v1\/fonts\/?$/],
  ["POST", /^\/api\/v1\/gazetteer\/datasets\/?$/],
];

export function isUploadRoute(method: string, pathname: string): boolean {
  return UPLOAD_ROUTES.some(([m, re]) => m === method && re.test(pathname));
}

/**
 * Throws 413 when the declared length is over the route's limit. A JSON route also refuses a chunked
 * body without a length (411): it would otherwise be buffered whole, up to the upload limit, first.
 */
export function checkDeclaredLength(request: Request, pathname: string, maxUploadMb: number): void {
  const declared = request.headers.get("content-length");
  if (!declared) {
    if (request.headers.get("transfer-encoding")?.toLowerCase().includes("chunked") && !isUploadRoute(request.method, pathname))
      throw new AppError(411, "BAD_REQUEST", `Send this request body with a Content-Length header (at most ${JSON_BODY_LIMIT / 1024 / 1024} MiB)`);
    return;
  }
  const length = Number(declared);
  if (!Number.isFinite(length)) return;
  const upload = isUploadRoute(request.method, pathname);
  const limit = upload ? maxUploadMb * 1024 * 1024 : JSON_BODY_LIMIT;
  if (length > limit)
    throw new PayloadTooLarge(
      upload
        ? `Upload of ${length} bytes is over MAX_UPLOAD_MB (${maxUploadMb} MiB)`
        : `Request body of ${length} bytes is over the ${JSON_BODY_LIMIT / 1024 / 1024} MiB limit for this route`,
    );
}

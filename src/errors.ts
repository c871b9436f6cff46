// Every error a caller can cause is an AppError: it carries the HTTP status and the contract code, and
// the one global error handler (http/conventions.ts) writes it as {"error":{"code","message","details"}}.
import { t } from "elysia";

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export class BadRequest extends AppError {
  constructor(message: string, details?: unknown) {
    super(400, "BAD_REQUEST", message, details);
  }
}

export class Unauthorized extends AppError {
  constructor(message = "A valid API key (X-API-Key header) or console session is required", code = "UNAUTHORIZED") {
    super(401, code, message);
  }
}

export class Forbidden extends AppError {
  constructor(message: string, code = "FORBIDDEN") {
    super(403, code, message);
  }
}

export class NotFound extends AppError {
  constructor(message = "Not found", code = "NOT_FOUND", details?: unknown) {
    super(404, code, message, details);
  }
}

export class Conflict extends AppError {
  constructor(message: string, code = "CONFLICT", headers?: Record<string, string>) {
    super(409, code, message, undefined, headers);
  }
}

/**
 * Sent with Connection: close: the rest of the body is not wanted, and without it Bun would read and drop
 * all of it (gigabytes, for the uploads this refuses) to keep the connection.
 */
export class PayloadTooLarge extends AppError {
  constructor(message: string) {
    super(413, "PAYLOAD_TOO_LARGE", message, undefined, { connection: "close" });
  }
}

export class UnsupportedMediaType extends AppError {
  constructor(message: string) {
    super(415, "UNSUPPORTED_MEDIA_TYPE", message);
  }
}

export class Unprocessable extends AppError {
  constructor(code: "INVALID_STYLE" | "INVALID_SOURCE_DATA" | "INVALID_WAYPOINT", message: string, details?: unknown) {
    super(422, code, message, details);
  }
}

export class TooManyRequests extends AppError {
  constructor(code: "RATE_LIMITED" | "QUOTA_EXCEEDED" | "TOO_MANY_ATTEMPTS", message: string, retryAfterS: number, headers: Record<string, string> = {}) {
    super(429, code, message, undefined, { ...headers, "retry-after": String(Math.max(1, Math.ceil(retryAfterS))) });
  }
}

export class UpstreamError extends AppError {
  constructor(message: string, details?: unknown) {
    super(502, "UPSTREAM_ERROR", message, details);
  }
}

export class ServiceUnavailable extends AppError {
  constructor(code: string, message: string, details?: unknown) {
    super(503, code, message, details);
  }
}

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorBody(code: string, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** The error envelope as a schema: the one every route lists for its error statuses in OpenAPI. */
export const ErrorEnvelope = t.Object(
  { error: t.Object({ code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) }) },
  { description: "Error envelope; the X-Request-Id response header identifies the request" },
);

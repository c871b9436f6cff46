// Turns anything thrown into the contract envelope: AppErrors keep their status and code, Elysia's
// own NOT_FOUND / PARSE / VALIDATION become 404 / 400 with a message naming the parameter, and
// everything else is a 500 INTERNAL without a stack trace or path (logged with the request id).
import { AppError, errorBody, type ErrorBody } from "../errors";
import { acceptedBy } from "./schema-words";
import { storageFailure } from "../domain/health/storage-errors";

export { ErrorEnvelope } from "../errors";

export interface MappedError {
  status: number;
  body: ErrorBody;
  headers?: Record<string, string>;
  /** true when the error is ours to fix (log it loudly) */
  internal: boolean;
  /** the operator's to fix (a full or unwritable DATA_DIR): logged as a warning naming it, without a stack */
  storage?: boolean;
}

interface ValidationLike {
  type?: string;
  valueError?: { path?: string; message?: string; value?: unknown; schema?: { description?: string } };
  all?: { path?: string; message?: string; summary?: string; schema?: { anyOf?: object[] } }[];
}

const WHERE: Record<string, string> = { query: "query parameter", params: "path parameter", body: "body field", headers: "header", cookie: "cookie" };

export function validationMessage(err: ValidationLike): { message: string; details: { in: string; path: string; message: string }[] } {
  const where = WHERE[err.type ?? ""] ?? "input";
  const all = (err.all ?? []).filter((e) => e && typeof e === "object");
  // A union's own words ("Expected union value", "should be one of: 'undefined', 'null'") name no choice.
  const unionWords = (e: (typeof all)[number]) => (e.schema?.anyOf ? acceptedBy(e.schema) : null);
  for (const e of all) {
    const words = unionWords(e);
    if (words) e.message = e.summary = `expected ${words}`
  }
  const seen = new Set<string>();
  const details = all
    .map((e) => ({
      in: err.type ?? "input",
      path: (e.path ?? "").replace(/^\//, "").replaceAll("/", ".") || "(root)",
      message: e.summary ?? e.message ?? "is invalid",
    }))
    // A union reports each of its branches; once rewritten to name the choices they say the same.
    .filter((d) => !seen.has(`${d.path}\n${d.message}`) && !!seen.add(`${d.path}\n${d.message}`))
    .slice(0, 20);
  const first = details.find((d) => d.path !== "(root)") ?? details[0];
  if (!first) return { message: `Invalid ${where}`, details };
  const name = first.path === "(root)" ? (err.type === "body" ? "request body" : where) : `${where} '${first.path}'`;
  // TypeBox summaries already name the property; keep the plain reason after the name.
  const reason = (all.find((e) => (e.path ?? "").replace(/^\//, "").replaceAll("/", ".") === first.path)?.message ?? first.message).replace(/\.$/, "");
  return { message: `Invalid ${name}: ${reason}`, details };
}

/**
 * Elysia's t.Numeric / t.BooleanString decoders throw a "property" error that has lost the parameter's
 * name; find the query parameter holding the offending value so the message can still name it.
 */
function nameOfQueryValue(url: string | undefined, value: unknown): string | null {
  if (!url || value === undefined) return null;
  try {
    for (const [name, v] of new URL(url).searchParams) if (v === String(value)) return name;
  } catch {}
  return null;
}

export function mapError(code: string | number, error: unknown, requestUrl?: string): MappedError {
  if (error instanceof AppError) {
    const storage = error.status === 507;
    return { status: error.status, body: errorBody(error.code, error.message, error.details), headers: error.headers, internal: error.status >= 500 && error.status !== 502 && error.status !== 503 && !storage, storage };
  }
  switch (code) {
    case "NOT_FOUND":
      return { status: 404, body: errorBody("NOT_FOUND", "No such route or resource"), internal: false };
    case "PARSE":
      return { status: 400, body: errorBody("BAD_REQUEST", "The request body could not be parsed: send valid JSON with Content-Type: application/json"), internal: false };
    case "VALIDATION": {
      const err = error as ValidationLike & { value?: unknown };
      if (err.type === "property") {
        // A number coerced from the URL (a query parameter or a path segment such as a version).
        const schema = err.valueError?.schema as { description?: string; type?: string; minimum?: number; maximum?: number } | undefined;
        const range = schema?.type === "integer" && schema.minimum !== undefined && schema.maximum !== undefined ? `expected an integer from ${schema.minimum} to ${schema.maximum}` : null;
        const reason = range ?? (err.valueError?.message ?? "is invalid").replace(/\.$/, "");
        const name = nameOfQueryValue(requestUrl, err.value);
        const shown = JSON.stringify(err.value)?.slice(0, 100) ?? "value";
        const message = name ? `Invalid query parameter '${name}': ${reason}` : `Invalid ${schema?.description ?? "value"} ${shown}: ${reason}`;
        return { status: 400, body: errorBody("BAD_REQUEST", message, name ? [{ in: "query", path: name, message: reason }] : undefined), internal: false };
      }
      const v = validationMessage(err);
      return { status: 400, body: errorBody("BAD_REQUEST", v.message, v.details.length ? v.details : undefined), internal: false };
    }
    case "INVALID_COOKIE_SIGNATURE":
      return { status: 400, body: errorBody("BAD_REQUEST", "Invalid cookie"), internal: false };
    case "INVALID_FILE_TYPE":
      return { status: 415, body: errorBody("UNSUPPORTED_MEDIA_TYPE", "Unsupported file type"), internal: false };
  }
  const status = (error as { status?: unknown })?.status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    // Elysia's status() helper or a thrown Response-like value: keep the 4xx, never its internals.
    return { status, body: errorBody(status === 413 ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST", status === 413 ? "Request body too large" : "Bad request"), internal: false };
  }
  // Not a bug: the answer, and the log's warning, say what the operator can do about it.
  const storage = storageFailure(error);
  if (storage) return { status: storage.status, body: errorBody(storage.code, storage.message), internal: false, storage: true };
  return { status: 500, body: errorBody("INTERNAL", "Internal error; quote the X-Request-Id header when reporting it"), internal: true };
}

// A write that failed because of DATA_DIR itself (the disk full, the directory not writable) is the
// operator's to fix, not a bug: it is answered as such, naming the cause and where to look, instead of
// "internal error". SQLite and the file system say it in their own words.
import { AppError } from "../../errors";

const FULL_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
const READ_ONLY_CODES = new Set(["EACCES", "EPERM", "EROFS", "SQLITE_READONLY", "SQLITE_CANTOPEN"]);
const FULL_WORDS = /database or disk is full|no space left on device|disk quota exceeded/i;

/** "full", "read-only" or null: what an error says of DATA_DIR. */
export function storageProblem(err: unknown): "full" | "read-only" | null {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && FULL_CODES.has(code)) return "full";
  if (typeof code === "string" && READ_ONLY_CODES.has(code)) return "read-only";
  const message = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  return FULL_WORDS.test(message) ? "full" : null;
}

export const DISK_FULL_MESSAGE = "The disk holding DATA_DIR is full: free some space (GET /health/detailed shows how much is left), then try again";

/**
 * Refuses an upload the disk cannot hold before a byte is written: the file, and about as much again for
 * the tiles built from it, plus a margin for SQLite. Unknown free space (statfs unsupported) lets it through.
 */
export function refuseUploadWithoutRoom(freeBytes: number | null, declaredBytes: number): void {
  if (freeBytes === null || !(declaredBytes > 0)) return;
  const needed = 2 * declaredBytes + UPLOAD_MARGIN_BYTES;
  if (freeBytes >= needed) return;
  const mib = (n: number) => `${Math.ceil(n / 1024 ** 2)} MiB`;
  throw new AppError(507, "INSUFFICIENT_STORAGE", `Not enough free space in DATA_DIR for this upload: it needs about ${mib(needed)} (the file, its tiles and a margin), ${mib(freeBytes)} is free. Free some space and upload again`);
}

const UPLOAD_MARGIN_BYTES = 64 * 1024 ** 2;

/** The answer to a request whose write failed on DATA_DIR, or null when the error is something else. */
export function storageFailure(err: unknown): AppError | null {
  switch (storageProblem(err)) {
    case "full":
      return new AppError(507, "INSUFFICIENT_STORAGE", DISK_FULL_MESSAGE);
    case "read-only":
      return new AppError(503, "STORAGE_UNAVAILABLE", "DATA_DIR cannot be written: check that the user running Mapstead owns it and that it is not read-only (GET /health/detailed, mapstead preflight)");
  }
  return null;
}

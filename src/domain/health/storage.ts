// Free space and writability of DATA_DIR, shared by /health/detailed and preflight.
import { accessSync, constants, readdirSync, statfsSync, statSync } from "node:fs";
import { join } from "node:path";

export const LOW_DISK_BYTES = 1024 ** 3;
/** Below this, writes fail (SQLite's "database or disk is full"): preflight fails, health says down. */
export const FULL_DISK_BYTES = 100 * 1024 ** 2;

export interface StorageFacts {
  writable: boolean;
  freeBytes: number | null;
  error?: string;
  /** DATA_DIR is there but is a file */
  notDirectory?: boolean;
  /** DATA_DIR is on a read-only mount (EROFS): no chown helps, only mounting it read-write */
  readOnly?: boolean;
}

/** The fix for a DATA_DIR on a read-only mount, shared by the preflight and /health/detailed. */
export const READ_ONLY_FIX =
  "DATA_DIR is on a read-only file system: mount it read-write (check /etc/fstab, and the kernel log, as a failing disk is remounted read-only), or point DATA_DIR at a writable directory";

/**
 * The first entry of DATA_DIR this process may not write (the database, its WAL, tilesets/, uploads/,
 * ...), or null: a command once run as root leaves root's files there, and uploads then fail although
 * DATA_DIR itself is writable.
 */
function unwritableEntry(dataDir: string): string | null {
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    try {
      accessSync(join(dataDir, entry.name), constants.W_OK);
    } catch {
      return entry.isDirectory() ? `${entry.name}/` : entry.name;
    }
  }
  return null;
}

export function storageFacts(dataDir: string): StorageFacts {
  let writable = true;
  let error: string | undefined;
  let readOnly = false;
  try {
    accessSync(dataDir, constants.W_OK);
    // A file is "writable" too, but nothing can be kept in it.
    if (!statSync(dataDir).isDirectory()) return { writable: false, freeBytes: null, error: "it is a file, not a directory", notDirectory: true };
    const entry = unwritableEntry(dataDir);
    if (entry) {
      writable = false;
      error = `${entry} in it is not writable by this user (made by another user, such as root running a command?)`;
    }
  } catch (err) {
    writable = false;
    error = (err as NodeJS.ErrnoException).code ?? "not writable";
    readOnly = error === "EROFS";
  }
  let freeBytes: number | null = null;
  try {
    const s = statfsSync(dataDir);
    freeBytes = Number(s.bavail) * Number(s.bsize);
  } catch {
    freeBytes = null;
  }
  return { writable, freeBytes, error, ...(readOnly ? { readOnly } : {}) };
}

/** A free-space figure: GiB from 1 GiB up, MiB below (where "0.0 GiB" would hide 40 MiB from a low-disk warning). */
export const gib = (bytes: number) => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${Math.floor(bytes / 1024 ** 2)} MiB`);

// Free space and writability of DATA_DIR, shared by /health/detailed and preflight.
import { accessSync, constants, statfsSync, statSync } from "node:fs";

export const LOW_DISK_BYTES = 1024 ** 3;

export interface StorageFacts {
  writable: boolean;
  freeBytes: number | null;
  error?: string;
  /** DATA_DIR is there but is a file */
  notDirectory?: boolean;
}

export function storageFacts(dataDir: string): StorageFacts {
  let writable = true;
  let error: string | undefined;
  try {
    accessSync(dataDir, constants.W_OK);
    // A file is "writable" too, but nothing can be kept in it.
    if (!statSync(dataDir).isDirectory()) return { writable: false, freeBytes: null, error: "it is a file, not a directory", notDirectory: true };
  } catch (err) {
    writable = false;
    error = (err as NodeJS.ErrnoException).code ?? "not writable";
  }
  let freeBytes: number | null = null;
  try {
    const s = statfsSync(dataDir);
    freeBytes = Number(s.bavail) * Number(s.bsize);
  } catch {
    freeBytes = null;
  }
  return { writable, freeBytes, error };
}

export const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

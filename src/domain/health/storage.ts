// Free space and writability of DATA_DIR, shared by /health/detailed and preflight.
import { accessSync, constants, statfsSync } from "node:fs";

export const LOW_DISK_BYTES = 1024 ** 3;

export interface StorageFacts {
  writable: boolean;
  freeBytes: number | null;
  error?: string;
}

export function storageFacts(dataDir: string): StorageFacts {
  let writable = true;
  let error: string | undefined;
  try {
    accessSync(dataDir, constants.W_OK);
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

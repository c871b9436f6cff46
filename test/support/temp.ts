// Temporary directories for tests and benches, removed at the end: a full test run makes hundreds (a
// gazetteer file of ~50 MB in many), which piled up to tens of GB in /tmp when kept. `bun test` fires
// no process "exit" event, so its preload removes them after the last test; a bench at its exit.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

/** Removes every directory tempDir made so far. */
export function removeTempDirs() {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on("exit", removeTempDirs);

/** A new empty directory under the system's temporary one; gone when the process exits. */
export function tempDir(prefix = "mapstead-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

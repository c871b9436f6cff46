// A failed build of the embedded gazetteer, noted beside its file so that every process sharing DATA_DIR
// can tell it: the HTTP workers (the supervisor builds the file), and `mapstead preflight`, which never
// builds. Without it they said "not built yet; it is built when the server starts" after the server had
// started and failed (a full disk, say). Removed by the next build that succeeds.
import { openSync, closeSync, readFileSync, rmSync, writeFileSync } from "node:fs";

export const buildFailurePath = (gazetteerFile: string) => `${gazetteerFile}.failed`;

/** Notes the failure; on a full disk the words may not fit, but an empty file still can (it takes no data block). */
export function noteBuildFailure(gazetteerFile: string, error: string): void {
  const path = buildFailurePath(gazetteerFile);
  try {
    writeFileSync(path, JSON.stringify({ error, at: new Date().toISOString() }));
  } catch {
    try {
      closeSync(openSync(path, "w"));
    } catch {
      // DATA_DIR itself cannot be written: the storage check says so.
    }
  }
}

export function clearBuildFailure(gazetteerFile: string): void {
  rmSync(buildFailurePath(gazetteerFile), { force: true });
}

/** The noted failure (its words, or that the server's log has them), or null when none is noted. */
export function readBuildFailure(gazetteerFile: string): { error: string; at: string | null } | null {
  let text: string;
  try {
    text = readFileSync(buildFailurePath(gazetteerFile), "utf8");
  } catch {
    return null;
  }
  try {
    const noted = JSON.parse(text) as { error?: unknown; at?: unknown };
    if (typeof noted.error === "string") return { error: noted.error, at: typeof noted.at === "string" ? noted.at : null };
  } catch {
    // an empty note: the disk had no room for the words
  }
  return { error: "the server's log has the reason", at: null };
}

// Ready tileset versions whose archive file is not in DATA_DIR (deleted by hand, a restore that left it
// out): they answer 503 until the file is back or the version deleted. Told by /health/detailed and by
// the preflight, so a restore checked with `mapstead preflight` does not pass with holes in it.
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** What to do about them, in one line. */
export const MISSING_ARCHIVES_FIX = "Copy the files back from a backup (the log's 'tileset archive cannot be read' lines name them), or delete those versions (mapstead tilesets delete --org ORG --slug SLUG --version N; a published one only after another is published, or after mapstead tilesets unpublish --org ORG --slug SLUG)";

/** Names (owner/slug@version) of the ready versions, newest first and at most a few thousand looked at, whose archive is missing. */
export function missingArchives(sqlite: Database, dataDir: string): string[] {
  try {
    return sqlite
      .query<{ owner: string; slug: string; version: number; archive_path: string }, []>(
        `SELECT o.slug AS owner, t.slug AS slug, v.version AS version, v.archive_path AS archive_path
         FROM tileset_versions v JOIN tilesets t ON t.id = v.tileset_id JOIN orgs o ON o.id = t.org_id
         WHERE v.state = 'ready' AND v.archive_path IS NOT NULL ORDER BY v.id DESC LIMIT 5000`,
      )
      .all()
      .filter((v) => !existsSync(join(dataDir, v.archive_path)))
      .map((v) => `${v.owner}/${v.slug}@${v.version}`);
  } catch {
    return []; // the database check reports a database that cannot be read
  }
}

/** "3 ready tileset version(s) have no archive in DATA_DIR (a/b@1, ...)" */
export function missingArchivesWords(missing: readonly string[]): string {
  return `${missing.length} ready tileset version(s) have no archive in DATA_DIR (${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", ..." : ""}): they answer 503`;
}

// Archives the tile reader failed to open in this process although their header looked right (a
// truncated or otherwise damaged file the cheap header check of published-files.ts passes). Noted when
// a request fails, told by /health/detailed until the file changes (put back from a backup) or its version
// is no longer ready (deleted). Per process: with WORKERS > 1, the worker that met it says so.
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { FileProblem } from "./published-files";

interface Noted {
  name: string;
  size: number;
  mtimeMs: number;
}

/** One per process, built by createServices and handed to the tile catalog (which notes) and health (which tells). */
export function createUnreadableArchives(sqlite: Database, dataDir: string) {
  const noted = new Map<string, Noted>();
  const publishedOfPath = sqlite.query<{ published: number }, [string]>(
    "SELECT t.published_version IS v.version AS published FROM tileset_versions v JOIN tilesets t ON t.id = v.tileset_id WHERE v.archive_path = ? AND v.state = 'ready'",
  );
  return {
    /** Notes that `path` (relative to DATA_DIR), the archive of `name` (owner/slug@version), could not be opened. */
    note(name: string, path: string): void {
      const stat = statSync(join(dataDir, path), { throwIfNoEntry: false });
      if (!stat) return; // a missing one is found by the existence check
      noted.set(path, { name, size: stat.size, mtimeMs: stat.mtimeMs });
    },

    /** The noted archives still unchanged on disk and still of a ready version, as damaged. */
    list(): FileProblem[] {
      const problems: FileProblem[] = [];
      for (const [path, n] of noted) {
        const stat = statSync(join(dataDir, path), { throwIfNoEntry: false });
        let row: { published: number } | null;
        try {
          row = publishedOfPath.get(path);
        } catch {
          return problems; // the database cannot be read: the database check says so
        }
        if (!stat || !row || stat.size !== n.size || stat.mtimeMs !== n.mtimeMs) noted.delete(path);
        else problems.push({ name: n.name, path, problem: "damaged", published: row.published === 1 });
      }
      return problems;
    },
  };
}

export type UnreadableArchives = ReturnType<typeof createUnreadableArchives>;

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

const noted = new WeakMap<Database, Map<string, Noted>>();

/** Notes that `path` (relative to DATA_DIR), the archive of `name` (owner/slug@version), could not be opened. */
export function noteUnreadableArchive(sqlite: Database, dataDir: string, name: string, path: string): void {
  const stat = statSync(join(dataDir, path), { throwIfNoEntry: false });
  if (!stat) return; // a missing one is found by the existence check
  let map = noted.get(sqlite);
  if (!map) noted.set(sqlite, (map = new Map()));
  map.set(path, { name, size: stat.size, mtimeMs: stat.mtimeMs });
}

/** The noted archives still unchanged on disk and still of a ready version, as damaged. */
export function unreadableArchives(sqlite: Database, dataDir: string): FileProblem[] {
  const map = noted.get(sqlite);
  if (!map?.size) return [];
  const problems: FileProblem[] = [];
  for (const [path, n] of map) {
    const stat = statSync(join(dataDir, path), { throwIfNoEntry: false });
    let row: { published: number } | null = null;
    try {
      row = sqlite
        .query<{ published: number }, [string]>("SELECT t.published_version IS v.version AS published FROM tileset_versions v JOIN tilesets t ON t.id = v.tileset_id WHERE v.archive_path = ? AND v.state = 'ready'")
        .get(path);
    } catch {
      return problems;
    }
    if (!stat || !row || stat.size !== n.size || stat.mtimeMs !== n.mtimeMs) map.delete(path);
    else problems.push({ name: n.name, path, problem: "damaged", published: row.published === 1 });
  }
  return problems;
}

// A consistent copy of DATA_DIR taken while the server runs (`mapstead backup`). Copying the directory
// as it is can give a database without the WAL that held its last writes, or rows pointing at archives
// that were written after the copy passed their directory. So the database is copied first, through
// SQLite itself (VACUUM INTO reads one consistent snapshot while the server goes on writing), and then
// exactly the files the copied rows point at. That order is what makes it safe: a file is written and
// renamed into place before the row that points at it commits, and never changes afterwards (archives,
// sprite directories, fonts and queued uploads all get new names instead), so every file a snapshot's
// row names is complete on disk by the time we copy it. The other order could copy a directory before
// a file the later snapshot refers to existed.
import { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { databasePath } from "../../db/client";
import { gazetteerPath, GAZETTEER_FILE } from "../../backends/geocoder/embedded/store";

/** Written last: a backup directory without it is a partial one (the copy stopped or failed). */
export const MANIFEST_FILE = "mapstead-backup.json";

/**
 * A file can vanish between the snapshot and its copy: the server deleted its row right after the
 * snapshot (a tileset deleted, a sprite replaced), or finished processing an upload. Then a new snapshot
 * is taken, which no longer names it; the files copied before are kept (they never change). A server
 * that deletes what the backup copies this many times in a row makes it give up.
 */
const SNAPSHOTS = 5;

/** The server kept deleting files the backup was copying; nothing consistent could be kept. */
export class BackupUnsettled extends Error {}

export type FileKind = "tilesets" | "sprites" | "fonts" | "uploads";

export interface CopiedFiles {
  /** rows' paths (an archive, a font, a sprite directory, an upload) */
  count: number;
  /** plain files in them */
  files: number;
  bytes: number;
}

export interface BackupResult {
  to: string;
  database: { file: string; bytes: number };
  /** null when DATA_DIR has none yet (built from the built-in data on first use) */
  gazetteer: { file: string; bytes: number } | null;
  files: Record<FileKind, CopiedFiles>;
  total_bytes: number;
  /** paths the database refers to that DATA_DIR itself lacks (relative to it) */
  missing: string[];
  /** database snapshots taken (more than one when files vanished while copying) */
  snapshots: number;
}

interface Ref {
  kind: FileKind;
  path: string;
}

/**
 * Every file a row of the copied database points at. Uploads are only those a queued or running job
 * will read (a tileset version still to process, a gazetteer import); one still being received has no
 * row yet.
 */
function referencedFiles(copy: string): Ref[] {
  const db = new Database(copy, { readonly: true });
  try {
    return db
      .query<Ref, []>(
        `SELECT 'tilesets' AS kind, archive_path AS path FROM tileset_versions WHERE archive_path IS NOT NULL
         UNION SELECT 'uploads', source_path FROM tileset_versions WHERE source_path IS NOT NULL
         UNION SELECT 'sprites', draft_sprite_path FROM styles WHERE draft_sprite_path IS NOT NULL
         UNION SELECT 'sprites', sprite_path FROM style_versions WHERE sprite_path IS NOT NULL
         UNION SELECT 'fonts', file_path FROM fonts WHERE file_path IS NOT NULL
         UNION SELECT 'uploads', json_extract(payload, '$.source.path') FROM jobs
           WHERE kind = 'gazetteer-import' AND state IN ('queued', 'running') AND json_extract(payload, '$.source.type') = 'file'
             AND json_extract(payload, '$.source.path') <> ''`,
      )
      .all();
  } finally {
    db.close();
  }
}

/** A row's path (relative to DATA_DIR) under `dir`; null for one leading out of it, which is not followed. */
function inside(dir: string, rel: string): string | null {
  const path = join(dir, rel);
  return path.startsWith(dir + sep) ? path : null;
}

/** Copies a file or a directory tree; null when `from` is gone. New files get the process's umask (0640, 0750). */
async function copyTree(from: string, to: string): Promise<{ files: number; bytes: number } | null> {
  const stat = statSync(from, { throwIfNoEntry: false });
  if (!stat) return null;
  if (!stat.isDirectory()) {
    mkdirSync(dirname(to), { recursive: true });
    // Bun.write copies file to file in the kernel (copy_file_range) and, unlike copyFileSync, does not
    // carry the source's mode over: an archive an older version left 0644 is 0640 in the backup.
    await Bun.write(to, Bun.file(from));
    return { files: 1, bytes: stat.size };
  }
  mkdirSync(to, { recursive: true });
  const total = { files: 0, bytes: 0 };
  for (const name of readdirSync(from)) {
    const copied = await copyTree(join(from, name), join(to, name));
    if (!copied) return null;
    total.files += copied.files;
    total.bytes += copied.bytes;
  }
  return total;
}

/** VACUUM INTO `to` from a database file that may be in use; the copy is a plain file (no -wal). */
function vacuumInto(sqlite: Database, to: string): number {
  rmSync(to, { force: true });
  sqlite.query("VACUUM INTO ?").run(to);
  return statSync(to).size;
}

/**
 * Copies DATA_DIR's database (through `live`, a connection to it) and what its rows point at into the
 * empty directory `to`, which exists. `onStep` hears what is being done (for a progress line).
 */
export async function backupDataDir(dataDir: string, live: Database, to: string, onStep: (step: string) => void = () => {}): Promise<BackupResult> {
  const dbCopy = databasePath(to);
  const copied = new Map<string, { kind: FileKind; files: number; bytes: number }>();
  let refs: Ref[] = [];
  let missing: Ref[] = [];
  let databaseBytes = 0;
  let snapshots = 0;
  for (;;) {
    snapshots++;
    onStep(snapshots === 1 ? "copying the database" : `copying the database again (${missing.length} file(s) it names were not found: missing from DATA_DIR, or deleted since the last copy)`);
    databaseBytes = vacuumInto(live, dbCopy);
    refs = referencedFiles(dbCopy);
    const before = new Set(missing.map((r) => r.path));
    missing = [];
    const todo = refs.filter((r) => !copied.has(r.path));
    if (todo.length) onStep(`copying ${todo.length} file(s) and folder(s) the database refers to`);
    for (const ref of todo) {
      const from = inside(dataDir, ref.path);
      const dest = inside(to, ref.path);
      const result = from && dest ? await copyTree(from, dest) : null;
      if (result) copied.set(ref.path, { kind: ref.kind, ...result });
      else {
        if (dest) rmSync(dest, { recursive: true, force: true });
        missing.push(ref);
      }
    }
    // A file deleted after one snapshot is named by no later one (rows go before their files). So one
    // missing in two snapshots in a row is missing from DATA_DIR itself, and a third would not find it.
    if (missing.every((r) => before.has(r.path))) break;
    if (snapshots === SNAPSHOTS)
      throw new BackupUnsettled(`the server deleted files the backup was copying, ${SNAPSHOTS} times in a row (tilesets, sprites or uploads changing fast); run the backup again when it is quieter`);
  }
  // Files copied for an earlier snapshot that the last one no longer names (deleted meanwhile).
  const wanted = new Set(refs.map((r) => r.path));
  for (const path of [...copied.keys()]) {
    if (wanted.has(path)) continue;
    rmSync(inside(to, path)!, { recursive: true, force: true });
    copied.delete(path);
  }

  // After the main database: an import it shows as queued that finished meanwhile is in this copy as
  // well and runs once more after a restore (harmless), while the other order could lose an import
  // the database shows as done.
  let gazetteer: BackupResult["gazetteer"] = null;
  if (statSync(gazetteerPath(dataDir), { throwIfNoEntry: false })) {
    onStep("copying the gazetteer");
    // Read-write, as the server opens it: reading a WAL database needs its -shm. Nothing is written.
    const db = new Database(gazetteerPath(dataDir), { readwrite: true, create: false });
    try {
      db.exec("PRAGMA busy_timeout = 10000");
      gazetteer = { file: GAZETTEER_FILE, bytes: vacuumInto(db, gazetteerPath(to)) };
    } finally {
      db.close();
    }
  }

  const files: Record<FileKind, CopiedFiles> = {
    tilesets: { count: 0, files: 0, bytes: 0 },
    sprites: { count: 0, files: 0, bytes: 0 },
    fonts: { count: 0, files: 0, bytes: 0 },
    uploads: { count: 0, files: 0, bytes: 0 },
  };
  for (const c of copied.values()) {
    files[c.kind].count++;
    files[c.kind].files += c.files;
    files[c.kind].bytes += c.bytes;
  }
  const total = databaseBytes + (gazetteer?.bytes ?? 0) + Object.values(files).reduce((n, f) => n + f.bytes, 0);
  return {
    to,
    database: { file: "mapstead.db", bytes: databaseBytes },
    gazetteer,
    files,
    total_bytes: total,
    missing: missing.map((r) => r.path).sort(),
    snapshots,
  };
}

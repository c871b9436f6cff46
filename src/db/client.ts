// One SQLite connection per process, set up for a small server: WAL so readers never wait for the
// writer, foreign keys on, a busy timeout so a second process waits instead of failing.
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import * as schema from "./schema";
import { currentUserWords, userName } from "../os-user";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface DbHandle {
  sqlite: Database;
  db: Db;
  path: string;
}

/** What is wrong with DATA_DIR or its database, and the fix, apart (the preflight shows them apart). */
export class DataDirError extends Error {
  constructor(
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${problem}; ${fix}`);
  }
}

export function databasePath(dataDir: string): string {
  return join(dataDir, "mapstead.db");
}

/**
 * Two processes opening a new database at once (a supervisor and its workers, or two starts) both switch
 * it to WAL. The switch upgrades a read lock to an exclusive one, and SQLite refuses such an upgrade at
 * once while another connection holds a lock (deadlock avoidance skips the busy timeout): the loser
 * answered "database is locked" and the process exited. It tries again for up to a few seconds.
 */
function switchToWal(sqlite: Database): void {
  for (let attempt = 1; ; attempt++) {
    try {
      sqlite.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt >= 100 || typeof code !== "string" || !code.startsWith("SQLITE_BUSY")) throw err;
      Bun.sleepSync(20 + Math.random() * 30);
    }
  }
}

/**
 * SQLite's own words for a directory or file this user may not write ("unable to open database file")
 * name neither DATA_DIR nor a fix; other errors pass unchanged.
 */
function cannotOpen(dataDir: string, err: unknown): unknown {
  const code = String((err as { code?: unknown }).code ?? "");
  // SQLite says only "file is not a database": no file named, and nothing a chown or mount would fix.
  if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) return damagedDatabase(dataDir, err);
  if (!/^(SQLITE_(CANTOPEN|READONLY|PERM|AUTH)|EACCES|EPERM|EROFS)/.test(code)) return err;
  if (readOnlyFilesystem(dataDir))
    return new DataDirError(`cannot open the database in DATA_DIR ${dataDir}: it is on a read-only filesystem`, "mount it read-write, or point DATA_DIR at a writable directory");
  const user = currentUserWords();
  return new DataDirError(
    `cannot open the database in DATA_DIR ${dataDir} (${(err as Error).message.replace(/^E[A-Z]+: /, "")}): ${user} needs to read and write that directory and its files`,
    `${runAsOwner(dataDir)}, or fix their ownership`,
  );
}

/** The database file is not SQLite, or is damaged: name it, and the copies to restore it from. */
function damagedDatabase(dataDir: string, err: unknown): DataDirError {
  const path = databasePath(dataDir);
  return new DataDirError(
    `the database ${path} is damaged (${(err as Error).message})`,
    `stop the service, move ${path} (with any mapstead.db-wal and mapstead.db-shm beside it) aside and restore the database from a backup made with \`mapstead backup\` (see the README's Backups section), or from the newest copy in ${join(dataDir, "upgrade-backups")} if an upgrade made one`,
  );
}

/**
 * How to run as the server's user: as DATA_DIR's owner when it is another user (the one its files
 * belong to), else as an install.sh server's user.
 */
function runAsOwner(dataDir: string): string {
  const owner = statSync(dataDir, { throwIfNoEntry: false })?.uid;
  const name = owner === undefined || owner === process.getuid?.() ? null : (userName(owner) ?? `'#${owner}'`);
  return name ? `run the command as the user it belongs to (sudo -u ${name} mapstead ...)` : "run the command as the user the server runs as (sudo -u mapstead mapstead ... on an install.sh server)";
}

/**
 * A DATA_DIR this user may not enter: every file in it would look missing ("no database"), which sends
 * the operator looking for another DATA_DIR instead of the right user.
 */
function refuseUnreadableDataDir(dataDir: string): void {
  try {
    accessSync(dataDir, constants.R_OK | constants.X_OK);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== "EACCES" && code !== "EPERM") return;
    throw new DataDirError(`cannot read DATA_DIR ${dataDir}: ${currentUserWords()} may not open that directory`, `${runAsOwner(dataDir)}, or fix its ownership`);
  }
}

/** The name of a local user id, from /etc/passwd; null when it has none there. */
/** Whether DATA_DIR (or the directory it would be made in) is on a read-only mount, which no chown fixes. */
function readOnlyFilesystem(dataDir: string): boolean {
  try {
    accessSync(dataDir, constants.W_OK);
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === "EROFS") return true;
    if ((err as { code?: string }).code !== "ENOENT") return false;
    const parent = dataDir.replace(/\/+[^/]+\/*$/, "") || "/";
    return parent !== dataDir && readOnlyFilesystem(parent);
  }
}

/**
 * Root must not work in a DATA_DIR another user (the service's) owns: the files it makes there (the
 * database's WAL, a tileset's directory, an upload) would be root's, and the server could then no
 * longer write them, while everything looked fine.
 */
function refuseRootInOthersDataDir(dataDir: string) {
  if (process.getuid?.() !== 0) return;
  const owner = statSync(dataDir, { throwIfNoEntry: false })?.uid;
  if (owner === undefined || owner === 0) return;
  const name = userName(owner);
  throw new DataDirError(
    `DATA_DIR ${dataDir} belongs to ${name ? `user ${name}` : `uid ${owner}`}`,
    `run the command as that user (sudo -u ${name ?? `'#${owner}'`} mapstead ...), since files root made there would be unwritable for the server`,
  );
}

/** Throws what is wrong with DATA_DIR itself (root in another user's directory, a file, one this user may not open), naming the fix. */
export function refuseUnusableDataDir(dataDir: string): void {
  refuseRootInOthersDataDir(dataDir);
  // mkdir's own error for this is "EEXIST: file already exists", which names neither DATA_DIR nor a fix.
  if (statSync(dataDir, { throwIfNoEntry: false })?.isDirectory() === false) throw new DataDirError(`DATA_DIR ${dataDir} is a file, not a directory`, "point DATA_DIR at a directory (it is created when missing)");
  refuseUnreadableDataDir(dataDir);
}

export function openDatabase(dataDir: string): DbHandle {
  refuseUnusableDataDir(dataDir);
  try {
    // Not readable by other users (main.ts sets the same through the umask for every file); an existing
    // directory keeps the mode its operator gave it.
    mkdirSync(dataDir, { recursive: true, mode: 0o750 });
  } catch (err) {
    throw cannotOpen(dataDir, err);
  }
  const path = databasePath(dataDir);
  let sqlite: Database;
  try {
    sqlite = new Database(path, { create: true, strict: true });
    sqlite.exec("PRAGMA busy_timeout = 10000");
    switchToWal(sqlite);
  } catch (err) {
    throw cannotOpen(dataDir, err);
  }
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  const db = drizzle(sqlite, { schema }) as Db;
  return { sqlite, db, path };
}

/**
 * Checkpoints the WAL into the main file and closes. Cached prepared statements would otherwise keep
 * the connection half-open (SQLite defers the close), leaving the WAL behind for the next start.
 */
export function closeDatabase(sqlite: Database): void {
  try {
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // another process holds the database; its own close will checkpoint
  }
  sqlite.close(false);
}

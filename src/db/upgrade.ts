// Upgrading a database that holds data: a copy of it as it was is kept in DATA_DIR/upgrade-backups
// before the first pending migration runs, so an upgrade that goes wrong, or a binary that has to be
// rolled back (an older binary refuses a database a newer one upgraded), has a database to go back
// to without the operator having thought of `mapstead backup` first. The copy is the database alone
// (tile archives, sprites and fonts are separate files that an upgrade never rewrites); the newest
// three are kept.
import type { Database } from "bun:sqlite";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { migrate, migrationStatus, NewerDatabaseError } from "./migrate";
import { databasePath } from "./client";

export const UPGRADE_BACKUPS_DIR = "upgrade-backups";
const KEEP = 3;

/** The copy could not be made: nothing was migrated. */
export class UpgradeCopyFailed extends Error {}

export interface UpgradeResult {
  /** the migrations applied */
  applied: string[];
  /** where the database was copied before they ran, or null (nothing pending, or a new database) */
  copy: string | null;
}

/** The migrations an upgrade would apply to a database that has data (none for a new one). */
export function upgradeAhead(sqlite: Database): string[] {
  const { applied, pending } = migrationStatus(sqlite);
  return applied.length ? pending : [];
}

/** Applies pending migrations, first keeping a copy of a database that has data. */
export function upgradeDatabase(sqlite: Database, dataDir: string): UpgradeResult {
  const { applied, pending, unknown } = migrationStatus(sqlite);
  if (unknown.length) throw new NewerDatabaseError(unknown);
  // A new database (nothing applied yet) has nothing to lose.
  const copy = applied.length && pending.length ? keepCopy(sqlite, dataDir, applied.at(-1)!) : null;
  return { applied: migrate(sqlite), copy };
}

function keepCopy(sqlite: Database, dataDir: string, schema: string): string {
  const dir = join(dataDir, UPGRADE_BACKUPS_DIR);
  // Sortable by time; named after the last migration it has, which says which binaries can open it.
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const to = join(dir, `mapstead-${stamp}-at-${schema}.db`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    rmSync(to, { force: true });
    sqlite.query("VACUUM INTO ?").run(to);
  } catch (err) {
    removeQuietly(to);
    const size = statSync(databasePath(dataDir), { throwIfNoEntry: false })?.size ?? 0;
    throw new UpgradeCopyFailed(
      `could not keep a copy of the database in ${dir} before upgrading it (${(err as Error).message}); nothing was changed: ` +
        `make room for about ${Math.ceil(size / 1024 / 1024)} MiB there, or make it a directory this user may write, and start again`,
    );
  }
  const copies = readdirSync(dir).filter((f) => /^mapstead-\d{8}T\d{6}Z-at-.+\.db$/.test(f)).sort();
  for (const old of copies.slice(0, -KEEP)) rmSync(join(dir, old), { force: true });
  return to;
}

/** Removes a half-written copy; where nothing could be written there is nothing to remove either. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // not a directory on the way, or not ours to remove: the copy was never there
  }
}

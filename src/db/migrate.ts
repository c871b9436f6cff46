// Applies the migrations embedded from drizzle/ (see drizzle/index.ts). Each runs inside
// BEGIN IMMEDIATE, so two processes starting on one data dir take turns and the second sees the
// first's work instead of applying it twice.
import type { Database } from "bun:sqlite";
import { migrations } from "../../drizzle/index";

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  /** migrations a newer Mapstead applied that this binary does not know */
  unknown: string[];
}

/**
 * The database was upgraded by a newer Mapstead. An older binary must not run on it: it would write rows
 * without what the newer schema keeps beside them (a style published by the old binary left the newer
 * one's version counter behind, and every later publish failed).
 */
export class NewerDatabaseError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `this database was upgraded by a newer Mapstead (it has migration(s) ${unknown.join(", ")} this binary does not know): run that newer binary, or restore the database as it was before the upgrade (DATA_DIR/upgrade-backups keeps a copy from each upgrade; see the README's Backups section)`,
    );
  }
}

const TABLE = "__mapstead_migrations";

function ensureTable(sqlite: Database) {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`);
}

export function migrationStatus(sqlite: Database): MigrationStatus {
  ensureTable(sqlite);
  const done = new Set(sqlite.query<{ tag: string }, []>(`SELECT tag FROM ${TABLE}`).all().map((r) => r.tag));
  const known = new Set(migrations.map((m) => m.tag));
  return {
    applied: migrations.filter((m) => done.has(m.tag)).map((m) => m.tag),
    pending: migrations.filter((m) => !done.has(m.tag)).map((m) => m.tag),
    unknown: [...done].filter((tag) => !known.has(tag)).sort(),
  };
}

/** Applies pending migrations; returns the tags it applied. Throws NewerDatabaseError on a newer database. */
export function migrate(sqlite: Database): string[] {
  const { unknown } = migrationStatus(sqlite);
  if (unknown.length) throw new NewerDatabaseError(unknown);
  const applied: string[] = [];
  for (const m of migrations) {
    sqlite.exec("BEGIN IMMEDIATE");
    try {
      const already = sqlite.query(`SELECT 1 FROM ${TABLE} WHERE tag = ?`).get(m.tag);
      if (!already) {
        for (const statement of m.sql.split("--> statement-breakpoint")) {
          if (statement.trim()) sqlite.exec(statement);
        }
        sqlite.query(`INSERT INTO ${TABLE} (tag, applied_at) VALUES (?, ?)`).run(m.tag, Date.now());
        applied.push(m.tag);
      }
      sqlite.exec("COMMIT");
    } catch (err) {
      sqlite.exec("ROLLBACK");
      throw err;
    }
  }
  return applied;
}

// Applies the migrations embedded from drizzle/ (see drizzle/index.ts). Each runs inside
// BEGIN IMMEDIATE, so two processes starting on one data dir take turns and the second sees the
// first's work instead of applying it twice.
import type { Database } from "bun:sqlite";
import { migrations } from "../../drizzle/index";

export interface MigrationStatus {
  applied: string[];
  pending: string[];
}

const TABLE = "__mapstead_migrations";

function ensureTable(sqlite: Database) {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${TABLE} (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`);
}

export function migrationStatus(sqlite: Database): MigrationStatus {
  ensureTable(sqlite);
  const done = new Set(sqlite.query<{ tag: string }, []>(`SELECT tag FROM ${TABLE}`).all().map((r) => r.tag));
  return {
    applied: migrations.filter((m) => done.has(m.tag)).map((m) => m.tag),
    pending: migrations.filter((m) => !done.has(m.tag)).map((m) => m.tag),
  };
}

/** Applies pending migrations; returns the tags it applied. */
export function migrate(sqlite: Database): string[] {
  ensureTable(sqlite);
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

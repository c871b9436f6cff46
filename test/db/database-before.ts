// A database as an older release left it: the migrations before `tag` applied and recorded, so a test
// can insert rows in the old schema and watch `migrate` upgrade them.
import { Database } from "bun:sqlite";
import { migrations } from "../../drizzle/index";

export function databaseBefore(tag: string): Database {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE __mapstead_migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  for (const m of migrations.filter((m) => m.tag < tag)) {
    for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
    db.query("INSERT INTO __mapstead_migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, 0);
  }
  return db;
}

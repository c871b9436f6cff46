// The one-time setup token printed at first start: it lets the first person at the browser create the
// admin account. Only its hash is stored; it is disabled once an admin exists.
import type { Database } from "bun:sqlite";
import { hashToken } from "./service";
import { timingSafeEqual } from "node:crypto";

const KEY = "setup_token_hash";

export function hasAdmin(sqlite: Database): boolean {
  return (sqlite.query("SELECT COUNT(*) AS n FROM users WHERE is_admin = 1").get() as { n: number }).n > 0;
}

/** Issues a fresh token while no admin exists (each start replaces the last); null once one does. */
export function issueSetupToken(sqlite: Database): string | null {
  if (hasAdmin(sqlite)) {
    sqlite.query("DELETE FROM settings WHERE key = ?").run(KEY);
    return null;
  }
  const token = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  sqlite
    .query("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
    .run(KEY, hashToken(token), Date.now());
  return token;
}

export function checkSetupToken(sqlite: Database, token: string): boolean {
  if (hasAdmin(sqlite)) return false;
  const row = sqlite.query("SELECT value FROM settings WHERE key = ?").get(KEY) as { value: string } | null;
  if (!row) return false;
  const a = Buffer.from(hashToken(token), "hex");
  const b = Buffer.from(row.value, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function clearSetupToken(sqlite: Database): void {
  sqlite.query("DELETE FROM settings WHERE key = ?").run(KEY);
}

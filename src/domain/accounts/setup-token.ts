// The one-time setup token printed at first start: it lets the first person at the browser create the
// admin account. Only its hash is stored; it is disabled once an admin exists.
import type { Database } from "bun:sqlite";
import { hashToken } from "./tokens";
import { timingSafeEqual } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { users } from "../../db/schema";
import { Conflict } from "../../errors";
import { checkPassword, hashPassword, normalizeEmail, userByEmail, type UserRecord } from "./users";

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
  if (hasAdmin(sqlite) || typeof token !== "string" || token.length > 256) return false;
  const row = sqlite.query("SELECT value FROM settings WHERE key = ?").get(KEY) as { value: string } | null;
  if (!row) return false;
  const a = Buffer.from(hashToken(token), "hex");
  const b = Buffer.from(row.value, "hex");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function clearSetupToken(sqlite: Database): void {
  sqlite.query("DELETE FROM settings WHERE key = ?").run(KEY);
}

/**
 * Creates the first admin when `token` is the current setup token, in one transaction that re-checks
 * that no admin exists (two browsers racing get one admin and one 409). Returns null for a wrong token.
 */
export async function completeSetup(db: Db, sqlite: Database, input: { token: string; email: string; password: string }): Promise<UserRecord | null> {
  const email = normalizeEmail(input.email);
  checkPassword(input.password);
  if (hasAdmin(sqlite)) throw new Conflict("Setup is already complete: log in, or ask an admin for an account");
  if (!checkSetupToken(sqlite, input.token)) return null;
  const passwordHash = await hashPassword(input.password);
  return sqlite.transaction(() => {
    if (hasAdmin(sqlite)) throw new Conflict("Setup is already complete: log in, or ask an admin for an account");
    if (userByEmail(db, email)) {
      // An ordinary account with this email exists (created from the CLI): promote it.
      db.update(users).set({ isAdmin: true, passwordHash }).where(eq(users.email, email)).run();
    } else db.insert(users).values({ email, passwordHash, isAdmin: true }).run();
    clearSetupToken(sqlite);
    const row = userByEmail(db, email)!;
    return { id: row.id, email: row.email, isAdmin: row.isAdmin };
  })();
}

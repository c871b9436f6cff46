// Console users and their sessions. Passwords use Bun.password (argon2id); session tokens are 256-bit
// random values stored only as SHA-256 hashes.
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessions, users } from "../../db/schema";
import { BadRequest, Conflict } from "../../errors";
import { hashToken } from "./service";

export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export async function createUser(db: Db, input: { email: string; password: string; isAdmin?: boolean }) {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL_RE.test(email)) throw new BadRequest(`Invalid email address '${input.email}'`);
  if (input.password.length < 10) throw new BadRequest("Password must be at least 10 characters");
  if (input.password.length > 1024) throw new BadRequest("Password must be at most 1024 characters");
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  if (db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) throw new Conflict(`A user with email ${email} already exists`);
  return db.insert(users).values({ email, passwordHash, isAdmin: input.isAdmin ?? false }).returning({ id: users.id, email: users.email, isAdmin: users.isAdmin }).get();
}

function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** Starts a session; returns the raw token for the cookie and the CSRF token for unsafe requests. */
export function createSession(db: Db, userId: number): { token: string; csrfToken: string; expiresAt: number } {
  const token = randomToken();
  const csrfToken = randomToken();
  const expiresAt = Date.now() + SESSION_ABSOLUTE_MS;
  db.insert(sessions).values({ tokenHash: hashToken(token), csrfToken, userId, expiresAt }).run();
  return { token, csrfToken, expiresAt };
}

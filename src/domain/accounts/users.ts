// Console users and their sessions. Passwords use Bun.password (argon2id); session tokens are 256-bit
// random values stored only as SHA-256 hashes. A session ends at the first of: logout, SESSION_IDLE_MS
// without a request, SESSION_ABSOLUTE_MS after login.
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { sessions, users } from "../../db/schema";
import { BadRequest, Conflict } from "../../errors";
import { hashToken, randomToken } from "./tokens";

export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
export const MIN_PASSWORD = 10;
export const MAX_PASSWORD = 1024;

export interface UserRecord {
  id: number;
  email: string;
  isAdmin: boolean;
}

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (!EMAIL_RE.test(email)) throw new BadRequest(`Invalid email address '${raw.slice(0, 320)}'`);
  return email;
}

/**
 * Characters as a person counts them (code points, not UTF-16 units: an emoji is one, not two), up to
 * `stopAfter`: a body may hold megabytes and the answer is the same past the limit.
 */
export function passwordLength(password: string, stopAfter = MAX_PASSWORD + 1): number {
  let n = 0;
  for (const _ of password) if (++n >= stopAfter) break;
  return n;
}

/** The rule for new passwords: 10 to 1024 characters, not only whitespace (ten spaces guess in one try). */
export function checkPassword(password: string): void {
  const length = passwordLength(password);
  if (length < MIN_PASSWORD) throw new BadRequest(`Password must be at least ${MIN_PASSWORD} characters (this one has ${length})`);
  if (length > MAX_PASSWORD) throw new BadRequest(`Password must be at most ${MAX_PASSWORD} characters`);
  if (!/\S/u.test(password)) throw new BadRequest("Password must not be only whitespace");
}

export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

const isUniqueViolation = (err: unknown) => String((err as Error)?.message ?? err).includes("UNIQUE constraint failed");

export function userByEmail(db: Db, email: string) {
  return db.select().from(users).where(eq(users.email, email.trim().toLowerCase())).get();
}

export async function createUser(db: Db, input: { email: string; password: string; isAdmin?: boolean }): Promise<UserRecord> {
  const email = normalizeEmail(input.email);
  checkPassword(input.password);
  if (userByEmail(db, email)) throw new Conflict(`A user with email ${email} already exists`);
  const passwordHash = await hashPassword(input.password);
  try {
    return db.insert(users).values({ email, passwordHash, isAdmin: input.isAdmin ?? false }).returning({ id: users.id, email: users.email, isAdmin: users.isAdmin }).get();
  } catch (err) {
    if (isUniqueViolation(err)) throw new Conflict(`A user with email ${email} already exists`);
    throw err;
  }
}

let dummyHash: Promise<string> | null = null;

/** A user whose password was just verified: `disabled` accounts may not sign in. */
export interface VerifiedLogin extends UserRecord {
  disabled: boolean;
  /** the hash the password matched, so the session is made only if it is still the account's */
  passwordHash: string;
}

/** The user when email and password match; null otherwise, taking as long either way. */
export async function verifyLogin(db: Db, email: string, password: string): Promise<VerifiedLogin | null> {
  const row = passwordLength(password) <= MAX_PASSWORD ? userByEmail(db, email) : undefined;
  if (!row) {
    // Same work for unknown accounts, so response times do not reveal which emails exist.
    dummyHash ??= hashPassword("mapstead-dummy-password");
    await Bun.password.verify(password.slice(0, MAX_PASSWORD), await dummyHash);
    return null;
  }
  return (await Bun.password.verify(password, row.passwordHash))
    ? { id: row.id, email: row.email, isAdmin: row.isAdmin, disabled: row.disabledAt !== null, passwordHash: row.passwordHash }
    : null;
}

/** Starts a session; returns the raw token for the cookie and the CSRF token for unsafe requests. */
export function createSession(db: Db, userId: number): { token: string; csrfToken: string; expiresAt: number; sessionId: number } {
  const token = randomToken();
  const csrfToken = randomToken();
  const now = Date.now();
  const expiresAt = now + SESSION_ABSOLUTE_MS;
  const row = db.insert(sessions).values({ tokenHash: hashToken(token), csrfToken, userId, expiresAt, createdAt: now, lastSeenAt: now }).returning({ id: sessions.id }).get();
  return { token, csrfToken, expiresAt, sessionId: row.id };
}

/**
 * The session of a login whose password check passed, made only if the account still has that password
 * and is not disabled: an admin may have set a new password or disabled it during the (slow) check.
 * Null when that happened.
 */
export function createLoginSession(db: Db, login: VerifiedLogin): ReturnType<typeof createSession> | null {
  return db.$client
    .transaction(() => {
      const same = db.select({ id: users.id }).from(users).where(and(eq(users.id, login.id), eq(users.passwordHash, login.passwordHash), isNull(users.disabledAt))).get();
      return same ? createSession(db, login.id) : null;
    })
    .immediate();
}

export function endSession(db: Db, sessionId: number): void {
  db.delete(sessions).where(eq(sessions.id, sessionId)).run();
}

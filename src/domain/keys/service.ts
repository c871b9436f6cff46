// API key records: create (secret shown once), list, update, revoke, usage. Only the hash of a secret
// is stored. Revoking keeps the row (its usage history stays visible; the secret answers 401).
import { and, asc, desc, eq, gte, isNull, lte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys, keyUsage } from "../../db/schema";
import { BadRequest, NotFound } from "../../errors";
import { displayPrefix, generateSecret, hashSecret } from "./secret";
import { isScope, SCOPES, type Scope } from "./scopes";
import { normalizeOrigins } from "./origins";
import type { ChangePublisher } from "../changes/types";

export interface CreateKeyInput {
  orgId: number;
  name: string;
  scopes: string[];
  allowedOrigins?: string[];
  expiresAt?: number | null;
  rateLimitPerMinute?: number | null;
  monthlyQuota?: number | null;
}

export type UpdateKeyInput = Partial<Omit<CreateKeyInput, "orgId">>;

export const MAX_KEY_NAME = 100;
export const MAX_RATE_LIMIT = 10_000_000;
export const MAX_MONTHLY_QUOTA = 1_000_000_000_000;
const MAX_EXPIRY = Date.UTC(9999, 11, 31);

function checkName(name: unknown): string {
  if (typeof name !== "string" || !name.trim()) throw new BadRequest("Key name must not be empty");
  const n = name.trim();
  if (n.length > MAX_KEY_NAME) throw new BadRequest(`Key name must be at most ${MAX_KEY_NAME} characters`);
  if (/[\u0000-\u001f\u007f]/.test(n)) throw new BadRequest("Key name must not contain control characters");
  return n;
}

function checkScopes(scopes: unknown): Scope[] {
  if (!Array.isArray(scopes) || !scopes.length) throw new BadRequest(`A key needs at least one scope (${SCOPES.join(", ")})`);
  const unknown = scopes.filter((s) => typeof s !== "string" || !isScope(s));
  if (unknown.length) throw new BadRequest(`Unknown scope(s): ${unknown.map((s) => String(s).slice(0, 50)).join(", ")}; known scopes: ${SCOPES.join(", ")}`);
  return [...new Set(scopes as Scope[])];
}

function checkOrigins(origins: string[] | undefined): string[] {
  try {
    return normalizeOrigins(origins ?? []);
  } catch (err) {
    throw new BadRequest(`Invalid allowed_origins: ${(err as Error).message}`);
  }
}

function checkExpiry(expiresAt: number | null | undefined, now = Date.now()): number | null {
  if (expiresAt === null || expiresAt === undefined) return null;
  if (!Number.isFinite(expiresAt) || expiresAt > MAX_EXPIRY) throw new BadRequest("expires_at is not a valid date");
  if (expiresAt <= now) throw new BadRequest(`expires_at must be in the future (got ${new Date(expiresAt).toISOString()})`);
  return Math.floor(expiresAt);
}

function checkPositive(name: string, value: number | null | undefined, max: number): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < 1 || value > max) throw new BadRequest(`${name} must be an integer from 1 to ${max}`);
  return value;
}

/** Parses an ISO 8601 date or date-time (date only = start of that UTC day; no zone = UTC). */
export function parseExpiry(raw: string): number {
  const s = raw.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/i.exec(s);
  const bad = () => new BadRequest(`expires_at '${raw.slice(0, 60)}' is not a valid ISO 8601 date or date-time (2026-12-31 or 2026-12-31T23:59:00Z)`);
  if (!m) throw bad();
  const [y, mo, d, h = "0", mi = "0", sec = "0"] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) => v ?? undefined) as string[];
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCFullYear() !== Number(y) || day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) throw bad();
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) throw bad();
  const t = Date.parse(m[4] === undefined ? `${y}-${mo}-${d}T00:00:00Z` : `${s.replace(" ", "T")}${m[7] ? "" : "Z"}`);
  if (!Number.isFinite(t)) throw bad();
  return t;
}

export function createKey(db: Db, input: CreateKeyInput): { id: number; secret: string; prefix: string } {
  const name = checkName(input.name);
  const scopes = checkScopes(input.scopes);
  const allowedOrigins = checkOrigins(input.allowedOrigins);
  const expiresAt = checkExpiry(input.expiresAt);
  const rateLimitPerMinute = checkPositive("rate_limit_per_minute", input.rateLimitPerMinute, MAX_RATE_LIMIT);
  const monthlyQuota = checkPositive("monthly_quota", input.monthlyQuota, MAX_MONTHLY_QUOTA);
  const secret = generateSecret();
  const row = db
    .insert(apiKeys)
    .values({ orgId: input.orgId, name, prefix: displayPrefix(secret), secretHash: hashSecret(secret), scopes, allowedOrigins, expiresAt, rateLimitPerMinute, monthlyQuota })
    .returning({ id: apiKeys.id, prefix: apiKeys.prefix })
    .get();
  return { id: row.id, secret, prefix: row.prefix };
}

export type KeyRecord = typeof apiKeys.$inferSelect;

export function listKeys(db: Db, orgId: number, opts: { includeRevoked?: boolean } = {}): KeyRecord[] {
  const where = opts.includeRevoked ? eq(apiKeys.orgId, orgId) : and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt));
  // Newest first by id, which is also the order of creation: the position a page of keys is cut at.
  return db.select().from(apiKeys).where(where).orderBy(desc(apiKeys.id)).all();
}

export function getKey(db: Db, orgId: number, id: number): KeyRecord {
  const row = db.select().from(apiKeys).where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id))).get();
  if (!row) throw new NotFound(`No API key ${id} in this organization`);
  return row;
}

/** Applies the given fields (null clears an optional one); revoked keys cannot change. */
export function updateKey(db: Db, changes: ChangePublisher, orgId: number, id: number, input: UpdateKeyInput): KeyRecord {
  const current = getKey(db, orgId, id);
  if (current.revokedAt !== null) throw new BadRequest(`API key ${id} is revoked; create a new key instead`);
  const set: Partial<KeyRecord> = {};
  if (input.name !== undefined) set.name = checkName(input.name);
  if (input.scopes !== undefined) set.scopes = checkScopes(input.scopes);
  if (input.allowedOrigins !== undefined) set.allowedOrigins = checkOrigins(input.allowedOrigins ?? []);
  if (input.expiresAt !== undefined) set.expiresAt = checkExpiry(input.expiresAt);
  if (input.rateLimitPerMinute !== undefined) set.rateLimitPerMinute = checkPositive("rate_limit_per_minute", input.rateLimitPerMinute, MAX_RATE_LIMIT);
  if (input.monthlyQuota !== undefined) set.monthlyQuota = checkPositive("monthly_quota", input.monthlyQuota, MAX_MONTHLY_QUOTA);
  if (!Object.keys(set).length) return current;
  return db.transaction((tx) => {
    const updated = tx.update(apiKeys).set(set).where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id))).returning().get()!;
    changes.publish({ kind: "key", keyId: id });
    return updated;
  });
}

/** Revokes a key; true when it was active. Its secret answers 401 from then on. */
export function revokeKey(db: Db, changes: ChangePublisher, orgId: number, id: number): boolean {
  const current = getKey(db, orgId, id);
  if (current.revokedAt !== null) return false;
  db.transaction((tx) => {
    tx.update(apiKeys).set({ revokedAt: Date.now() }).where(eq(apiKeys.id, id)).run();
    changes.publish({ kind: "key", keyId: id });
  });
  return true;
}

export function usageRows(db: Db, keyId: number, from: string, to: string) {
  return db
    .select({ day: keyUsage.day, service: keyUsage.service, count: keyUsage.count })
    .from(keyUsage)
    .where(and(eq(keyUsage.keyId, keyId), gte(keyUsage.day, from), lte(keyUsage.day, to)))
    .orderBy(asc(keyUsage.day), asc(keyUsage.service))
    .all()
    .filter((r) => r.count > 0);
}

export type KeyStatus = "active" | "expired" | "revoked";

export function keyStatus(k: Pick<KeyRecord, "revokedAt" | "expiresAt">, now = Date.now()): KeyStatus {
  if (k.revokedAt !== null) return "revoked";
  if (k.expiresAt !== null && now >= k.expiresAt) return "expired";
  return "active";
}

const isoOrNull = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** A key as the API and `mapstead keys list --json` show it (never the secret or its hash). */
export function keyView(k: KeyRecord, lastUsedAt: number | null = k.lastUsedAt) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    allowed_origins: k.allowedOrigins,
    expires_at: isoOrNull(k.expiresAt),
    rate_limit_per_minute: k.rateLimitPerMinute,
    monthly_quota: k.monthlyQuota,
    created_at: new Date(k.createdAt).toISOString(),
    last_used_at: isoOrNull(lastUsedAt),
    revoked_at: isoOrNull(k.revokedAt),
    status: keyStatus(k),
  };
}

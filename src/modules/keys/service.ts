// API key records: create (secret shown once), list, revoke. Only the hash of a secret is stored.
import type { Db } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { BadRequest } from "../../errors";
import { displayPrefix, generateSecret, hashSecret } from "./secret";
import { isScope, type Scope } from "./scopes";

export interface CreateKeyInput {
  orgId: number;
  name: string;
  scopes: string[];
  allowedOrigins?: string[];
  expiresAt?: number | null;
  rateLimitPerMinute?: number | null;
  monthlyQuota?: number | null;
}

export function createKey(db: Db, input: CreateKeyInput): { id: number; secret: string; prefix: string } {
  const unknown = input.scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new BadRequest(`Unknown scope(s): ${unknown.join(", ")}`);
  if (!input.name.trim()) throw new BadRequest("Key name must not be empty");
  const secret = generateSecret();
  const row = db
    .insert(apiKeys)
    .values({
      orgId: input.orgId,
      name: input.name.trim(),
      prefix: displayPrefix(secret),
      secretHash: hashSecret(secret),
      scopes: [...new Set(input.scopes)] as Scope[],
      allowedOrigins: input.allowedOrigins ?? [],
      expiresAt: input.expiresAt ?? null,
      rateLimitPerMinute: input.rateLimitPerMinute ?? null,
      monthlyQuota: input.monthlyQuota ?? null,
    })
    .returning({ id: apiKeys.id, prefix: apiKeys.prefix })
    .get();
  return { id: row.id, secret, prefix: row.prefix };
}

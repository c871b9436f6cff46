// API key secrets: "msk_" + 32 random bytes in base62 + a 6-character checksum, so typos and truncated
// copies are refused before any lookup. Only the SHA-256 of the secret is stored: the secret carries
// 190 bits of entropy, so a slow password hash would add cost without adding safety.
import { createHash } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const KEY_PREFIX = "msk_";
const BODY_LENGTH = 43; // ceil(256 / log2(62))
const CHECK_LENGTH = 6;
export const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function base62(bytes: Uint8Array, length: number): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  for (let i = 0; i < length; i++) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  return base62(createHash("sha256").update(body).digest().subarray(0, 8), CHECK_LENGTH);
}

export function generateSecret(): string {
  const body = base62(crypto.getRandomValues(new Uint8Array(32)), BODY_LENGTH);
  return `${KEY_PREFIX}${body}${checksum(body)}`;
}

/** True when the value has the key shape and its checksum matches. */
export function isWellFormedSecret(value: string): boolean {
  if (!KEY_PATTERN.test(value)) return false;
  const body = value.slice(KEY_PREFIX.length, KEY_PREFIX.length + BODY_LENGTH);
  return checksum(body) === value.slice(KEY_PREFIX.length + BODY_LENGTH);
}

export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What lists show: enough to tell keys apart, useless to an attacker. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + 8);
}

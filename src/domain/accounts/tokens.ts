// Random tokens and their stored form. Session tokens and the setup token carry 256 / 192 random bits,
// so a fast hash is enough: nobody can brute-force the preimage.
import { createHash } from "node:crypto";

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export function randomToken(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
}

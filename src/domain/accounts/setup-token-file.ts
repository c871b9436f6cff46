// The one-time setup token is handed to the operator through a file only they can read (DATA_DIR,
// mode 0600), never through the log: logs end up in journald, log shippers and support tickets.
import { chmodSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const SETUP_TOKEN_FILE = "setup-token";

export function setupTokenPath(dataDir: string): string {
  return join(dataDir, SETUP_TOKEN_FILE);
}

/** Writes the token (replacing an older one) via a private temp file, so it is never readable by others. */
export function writeSetupTokenFile(dataDir: string, token: string): string {
  const path = setupTokenPath(dataDir);
  const temp = `${path}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, token + "\n", { mode: 0o600, flag: "wx" });
  chmodSync(temp, 0o600); // the umask cannot widen it, but a pre-existing ACL default could
  renameSync(temp, path);
  return path;
}

/** Once an admin exists the token is void; its file goes too. */
export function removeSetupTokenFile(dataDir: string): void {
  rmSync(setupTokenPath(dataDir), { force: true });
}

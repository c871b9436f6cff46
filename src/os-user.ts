// Who runs this process, by the system's own account list. Bun's os.userInfo().username is only $USER:
// "unknown" under `docker exec` or a service with no USER set, and whatever a caller put there otherwise.
import { readFileSync } from "node:fs";

/** The account name of `uid` from /etc/passwd; null when it has none (a container's bare uid). */
export function userName(uid: number): string | null {
  try {
    const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.split(":")[2] === String(uid));
    return line ? line.split(":")[0]! : null;
  } catch {
    return null;
  }
}

/** The account running this process, by name, or "uid N" when it has none; null off POSIX. */
export function currentAccount(): string | null {
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  return userName(uid) ?? `uid ${uid}`;
}

/** "user NAME" (or "uid N") for messages about the user running this process. */
export function currentUserWords(): string {
  const account = currentAccount();
  return account === null ? "this user" : account.startsWith("uid ") ? account : `user ${account}`;
}

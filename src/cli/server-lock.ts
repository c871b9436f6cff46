// One server per DATA_DIR. Two servers on one data directory both run, each with its own rate-limit
// buckets (twice the calls a key may make) and its own setup token (the second replaced the first's),
// so `serve` takes DATA_DIR/server.lock, naming its pid, host and port, and a second start is refused
// while that server lives. A lock whose process is gone (kill -9, a crash, a container restarted under
// the same pid) is taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

interface LockInfo {
  pid: number;
  host: string;
  port: number;
  /** the server's PUBLIC_URL (its default included): where the URLs the CLI prints must point */
  public_url?: string;
  /** the settings the preflight judges that URL with: the listen address, TRUST_PROXY, whether defaulted */
  listen_host?: string;
  trust_proxy?: boolean;
  public_url_defaulted?: boolean;
  started_at: string;
}

/** What a running server's lock says of its PUBLIC_URL and the settings that go with it. */
export interface ServedUrl {
  publicUrl: string;
  publicUrlDefaulted: boolean;
  /** absent in a lock written before they were recorded */
  host?: string;
  trustProxy?: boolean;
  /** the port it listens on (0: one chosen at start, which the lock does not know) */
  port?: number;
}

export class DataDirInUse extends Error {}

const lockPath = (dataDir: string) => join(dataDir, "server.lock");

function readLock(path: string): LockInfo | null {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as LockInfo;
  } catch {
    return null;
  }
}

/** Whether the lock's server still runs: its process exists on this host and is a Mapstead one. */
function holderAlive(lock: LockInfo): boolean {
  // Another host (a container's new hostname after a restart): nothing to ask; SQLite in DATA_DIR is
  // not shared across machines anyway.
  if (lock.host !== hostname() || lock.pid === process.pid || !Number.isSafeInteger(lock.pid) || lock.pid <= 0) return false;
  try {
    process.kill(lock.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  try {
    // A pid reused by an unrelated process after a crash does not hold the lock.
    const cmdline = readFileSync(`/proc/${lock.pid}/cmdline`, "utf8");
    return /mapstead|main\.ts/.test(cmdline);
  } catch {
    return true;
  }
}

/** Takes DATA_DIR's server lock, or throws DataDirInUse naming the server that holds it. */
export function claimDataDir(dataDir: string, port: number, served: ServedUrl): { release(): void } {
  const path = lockPath(dataDir);
  const info: LockInfo = {
    pid: process.pid,
    host: hostname(),
    port,
    public_url: served.publicUrl,
    public_url_defaulted: served.publicUrlDefaulted,
    listen_host: served.host,
    trust_proxy: served.trustProxy,
    started_at: new Date().toISOString(),
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o640);
      writeSync(fd, JSON.stringify(info) + "\n");
      closeSync(fd);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw err;
      const held = readLock(path);
      if (held && holderAlive(held))
        throw new DataDirInUse(
          `another Mapstead server (pid ${held.pid}, port ${held.port}, since ${held.started_at}) serves DATA_DIR ${dataDir}; stop it first, or give this one another DATA_DIR (${path} says which holds it)`,
        );
      unlinkSync(path);
    }
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      // Only our own lock: a server that took over a lock it thought stale must keep it.
      if (readLock(path)?.pid === process.pid) unlinkSync(path);
    },
  };
}

/**
 * Refuses to upgrade the database under a server that runs on it: the server's binary does not know the
 * new schema (and an older one must not serve an upgraded database). `serve` checks this after taking
 * the lock itself, so only other commands (migrate, and every command that opens DATA_DIR) meet it.
 */
export function refuseUpgradeWhileServed(dataDir: string, pending: readonly string[]): void {
  if (!pending.length) return;
  const held = readLock(lockPath(dataDir));
  if (held && holderAlive(held))
    throw new DataDirInUse(
      `DATA_DIR ${dataDir} needs ${pending.length} database migration(s) (${pending.join(", ")}) that this binary brings, but a Mapstead server (pid ${held.pid}, port ${held.port}) runs on it with the older schema; stop it, then start the new binary (which upgrades at start) or run mapstead migrate`,
    );
}

/**
 * The PUBLIC_URL of the server that runs on DATA_DIR now, or null when none does (or its lock predates
 * the field). A command given no PUBLIC_URL prints URLs that point there, not at its own default port.
 */
export function servedPublicUrl(dataDir: string): ServedUrl | null {
  const held = readLock(lockPath(dataDir));
  if (!held || typeof held.public_url !== "string" || !holderAlive(held)) return null;
  return {
    publicUrl: held.public_url,
    publicUrlDefaulted: held.public_url_defaulted === true,
    host: typeof held.listen_host === "string" ? held.listen_host : undefined,
    trustProxy: typeof held.trust_proxy === "boolean" ? held.trust_proxy : undefined,
    port: typeof held.port === "number" ? held.port : undefined,
  };
}

/** The server that runs on DATA_DIR now (its pid, and the address it listens on), or null when none does. */
export function runningServer(dataDir: string): { pid: number; host?: string; port: number } | null {
  const held = readLock(lockPath(dataDir));
  if (!held || !holderAlive(held)) return null;
  return { pid: held.pid, port: held.port, ...(typeof held.listen_host === "string" ? { host: held.listen_host } : {}) };
}

// Shared start-up for CLI commands: settings, the database (migrated), a context.
import { basePathOf } from "../http/base-path";
import { ConfigError, loadConfig, processEnv, type Config } from "../config";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { databasePath, openDatabase, refuseUnusableDataDir } from "../db/client";
import { upgradeAhead, upgradeDatabase } from "../db/upgrade";
import { refuseUpgradeWhileServed, servedPublicUrl } from "./server-lock";
import { createContext, type AppContext } from "../context";
import { createLogger } from "../log";
import { printErr, red } from "./output";
import { createServices, type Services } from "../services";
import { AppError } from "../errors";

export function configOrExit(overrides: Record<string, string>): Readonly<Config> {
  try {
    const { env, notes } = processEnv();
    for (const note of notes) printErr(`mapstead: ${note}`);
    return loadConfig(env, overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      printErr(`mapstead: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/**
 * A command given no PUBLIC_URL prints the URLs of the server that runs on its DATA_DIR (its lock says
 * where it listens), so `PORT=9000 mapstead serve` and a plain `mapstead styles publish` agree.
 */
function withServedPublicUrl(config: Readonly<Config>): Readonly<Config> {
  if (!config.publicUrlDefaulted) return config;
  const served = servedPublicUrl(config.dataDir);
  return served ? Object.freeze({ ...config, publicUrl: served.publicUrl, basePath: basePathOf(served.publicUrl), publicUrlDefaulted: false }) : config;
}

/**
 * For the preflight given no PUBLIC_URL: the running server's PUBLIC_URL with the settings it is judged
 * by (the listen address, TRUST_PROXY), as that server runs with them, so the check speaks of the URLs
 * clients are sent to. Null when no server runs on DATA_DIR or PUBLIC_URL was given.
 */
export function servedUrlSettings(config: Readonly<Config>): Readonly<Config> | null {
  if (!config.publicUrlDefaulted) return null;
  const served = servedPublicUrl(config.dataDir);
  if (!served) return null;
  return Object.freeze({
    ...config,
    publicUrl: served.publicUrl,
    basePath: basePathOf(served.publicUrl),
    publicUrlDefaulted: served.publicUrlDefaulted,
    host: served.host ?? config.host,
    port: served.port ?? config.port,
    trustProxy: served.trustProxy ?? config.trustProxy,
  });
}

/**
 * What a command needs of the database: `show` (lists, statuses, exports) and `change` (of records that
 * must exist already: an organization's keys, tilesets and styles, an account) find nothing in a new
 * one, so a missing database means a mistyped DATA_DIR. Left out, the command may start a database
 * (`admin create`, `orgs create` before the first `serve`).
 */
export type Existing = "show" | "change";

export interface OpenOptions {
  quiet?: boolean;
  existing?: Existing;
}

/** Opens the data dir and applies migrations; for commands that work on the database directly. */
export function openContext(config: Readonly<Config>, opts: OpenOptions = {}): AppContext {
  // A mistyped DATA_DIR would otherwise get a silent, empty database and the operator's change would
  // never reach the server; creating it is still right before the first `serve`, so say so instead.
  // A command with nothing to do in a new database stops, leaving none behind in the mistyped directory.
  const fresh = !existsSync(databasePath(config.dataDir));
  if (fresh && opts.existing) {
    // What is wrong with DATA_DIR itself is the more useful news.
    refuseUnusableDataDir(config.dataDir);
    printErr(red(`mapstead: DATA_DIR ${config.dataDir} has no Mapstead database (${basename(databasePath(config.dataDir))}), so there is nothing to ${opts.existing}; pass the DATA_DIR the server uses (--data-dir DIR, or DATA_DIR=DIR)`));
    process.exit(1);
  }
  const handle = openDatabase(config.dataDir);
  if (fresh) printErr(`mapstead: created a new database in DATA_DIR ${config.dataDir} (none was there; if the server uses another DATA_DIR, pass that one)`);
  refuseUpgradeWhileServed(config.dataDir, upgradeAhead(handle.sqlite));
  const { copy } = upgradeDatabase(handle.sqlite, config.dataDir);
  if (copy) printErr(`mapstead: kept a copy of the database as it was before the upgrade: ${copy}`);
  const log = createLogger(opts.quiet ? "error" : config.logLevel, (l) => process.stderr.write(l + "\n"));
  return createContext(withServedPublicUrl(config), handle, log);
}

/** Runs a command body on an opened context; an AppError is its one-line message and exit 1. */
export async function withContext(
  overrides: Record<string, string>,
  name: string,
  fn: (ctx: AppContext, services: Services) => Promise<number> | number,
  opts: { existing?: Existing } = {},
): Promise<number> {
  const ctx = openContext(configOrExit(overrides), { quiet: true, existing: opts.existing });
  try {
    return await fn(ctx, createServices(ctx));
  } catch (err) {
    if (err instanceof AppError) {
      printErr(red(`mapstead ${name}: ${err.message}`));
      return 1;
    }
    throw err;
  } finally {
    await ctx.shutdown();
  }
}

// Shared start-up for CLI commands: settings, the database (migrated), a context.
import { ConfigError, loadConfig, processEnv, type Config } from "../config";
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { databasePath, openDatabase } from "../db/client";
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
export function withServedPublicUrl(config: Readonly<Config>): Readonly<Config> {
  if (!config.publicUrlDefaulted) return config;
  const served = servedPublicUrl(config.dataDir);
  return served ? Object.freeze({ ...config, publicUrl: served, publicUrlDefaulted: false }) : config;
}

/** How a command opens the database: `readOnly` ones only read it, so a missing one is a mistake. */
export interface OpenOptions {
  quiet?: boolean;
  readOnly?: boolean;
}

/** Opens the data dir and applies migrations; for commands that work on the database directly. */
export function openContext(config: Readonly<Config>, opts: OpenOptions = {}): AppContext {
  // A mistyped DATA_DIR would otherwise get a silent, empty database and the operator's change would
  // never reach the server; creating it is still right before the first `serve`, so say so instead.
  // A command that only reads (a list, a status, an export) has nothing to show from a new database:
  // it stops, leaving no database behind in the mistyped directory.
  const fresh = !existsSync(databasePath(config.dataDir));
  if (fresh && opts.readOnly) {
    printErr(red(`mapstead: DATA_DIR ${config.dataDir} has no Mapstead database (${basename(databasePath(config.dataDir))}), so there is nothing to show; pass the DATA_DIR the server uses (--data-dir DIR, or DATA_DIR=DIR)`));
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
  opts: { readOnly?: boolean } = {},
): Promise<number> {
  const ctx = openContext(configOrExit(overrides), { quiet: true, readOnly: opts.readOnly });
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

// Shared start-up for CLI commands: settings, the database (migrated), a context.
import { ConfigError, loadConfig, processEnv, type Config } from "../config";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { createContext, type AppContext } from "../context";
import { createLogger } from "../log";
import { printErr } from "./output";

export function configOrExit(overrides: Record<string, string>): Readonly<Config> {
  try {
    return loadConfig(processEnv(), overrides);
  } catch (err) {
    if (err instanceof ConfigError) {
      printErr(`mapstead: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** Opens the data dir and applies migrations; for commands that work on the database directly. */
export function openContext(config: Readonly<Config>, opts: { quiet?: boolean } = {}): AppContext {
  const handle = openDatabase(config.dataDir);
  migrate(handle.sqlite);
  const log = createLogger(opts.quiet ? "error" : config.logLevel, (l) => process.stderr.write(l + "\n"));
  return createContext(config, handle, log);
}

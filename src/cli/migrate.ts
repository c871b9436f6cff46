import type { CliCommand } from "./command";
import { configOrExit } from "./runtime";
import { closeDatabase, openDatabase } from "../db/client";
import { migrationStatus } from "../db/migrate";
import { upgradeAhead, upgradeDatabase } from "../db/upgrade";
import { refuseUpgradeWhileServed } from "./server-lock";
import { print } from "./output";
import { rejectUnknownArgs } from "./args";

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "Apply pending database migrations and exit",
  help: "Usage: mapstead migrate [--data-dir DIR]\n\nApplies the migrations embedded in this binary to DATA_DIR's database. Safe to run while another process starts.\nBefore upgrading a database that has data, it keeps a copy of it in DATA_DIR/upgrade-backups (the newest three).",
  async run(args, overrides) {
    rejectUnknownArgs(args);
    const config = configOrExit(overrides);
    const handle = openDatabase(config.dataDir);
    try {
      refuseUpgradeWhileServed(config.dataDir, upgradeAhead(handle.sqlite));
    } catch (err) {
      closeDatabase(handle.sqlite);
      throw err;
    }
    const { applied, copy } = upgradeDatabase(handle.sqlite, config.dataDir);
    const status = migrationStatus(handle.sqlite);
    closeDatabase(handle.sqlite);
    if (copy) print(`Kept a copy of the database as it was before the upgrade: ${copy}`);
    print(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(", ")}` : `Database is current (${status.applied.length} migration(s) applied)`);
    return 0;
  },
};

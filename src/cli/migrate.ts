import type { CliCommand } from "./command";
import { configOrExit } from "./runtime";
import { openDatabase } from "../db/client";
import { migrate, migrationStatus } from "../db/migrate";
import { print } from "./output";

export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "Apply pending database migrations and exit",
  help: "Usage: mapstead migrate [--data-dir DIR]\n\nApplies the migrations embedded in this binary to DATA_DIR's database. Safe to run while another process starts.",
  async run(_args, overrides) {
    const config = configOrExit(overrides);
    const handle = openDatabase(config.dataDir);
    const applied = migrate(handle.sqlite);
    const status = migrationStatus(handle.sqlite);
    handle.sqlite.close();
    print(applied.length ? `Applied ${applied.length} migration(s): ${applied.join(", ")}` : `Database is current (${status.applied.length} migration(s) applied)`);
    return 0;
  },
};

// Every CLI command, in the order `mapstead --help` lists them. Add a command by adding its file here.
import type { CliCommand } from "./command";
import { rejectUnknownArgs } from "./args";
import { serveCommand } from "./serve";
import { migrateCommand } from "./migrate";
import { preflightCommand } from "./preflight";
import { adminCommand } from "./admin";
import { usersCommand } from "./users";
import { orgsCommand } from "./orgs";
import { keysCommand } from "./keys";
import { fontsCommand } from "./fonts";
import { stylesCommand } from "./styles";
import { tilesetsCommand } from "./tilesets";
import { importTileserverGlCommand } from "./import-tileserver-gl";
import { gazetteerCommand } from "./gazetteer";
import { elevationCommand } from "./elevation";
import { VERSION } from "../build-info";
import { backupCommand } from "./backup";

export const versionCommand: CliCommand = {
  name: "version",
  summary: "Print the version",
  help: "Usage: mapstead version",
  async run(args) {
    rejectUnknownArgs(args);
    process.stdout.write(`mapstead ${VERSION} (bun ${Bun.version})\n`);
    return 0;
  },
};

export const COMMANDS: CliCommand[] = [serveCommand, migrateCommand, preflightCommand, adminCommand, usersCommand, orgsCommand, keysCommand, fontsCommand, tilesetsCommand, stylesCommand, importTileserverGlCommand, gazetteerCommand, elevationCommand, backupCommand, versionCommand];

#!/usr/bin/env bun
// CLI entry: `mapstead [command] [settings] [options]`; serve is the default command.
import { COMMANDS } from "./cli/index";
import { UsageError, settingsHelp, splitSettingFlags } from "./cli/args";
import { JsonTextError } from "./json-text";
import { printErr } from "./cli/output";
import { WORKER_ARG } from "./cluster/protocol";
import { runWorker } from "./cluster/worker";
import { storageProblem } from "./domain/health/storage-errors";

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return [
    "Mapstead: self-hosted map publishing in one executable.",
    "",
    "Usage: mapstead [command] [settings] [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Settings come from the environment or these flags (see `mapstead <command> --help`):",
    settingsHelp(),
    "",
  ].join("\n");
}

/**
 * DATA_DIR holds password, key and session hashes and private archives. Files and directories this
 * process creates (the database and its -wal/-shm, archives, uploads, the gazetteer, DATA_DIR itself when
 * missing) get no access for other users: 0640 and 0750 under the usual umask 022. A stricter umask the
 * operator set is kept; existing files and directories keep their modes (nothing is chmod-ed).
 */
function withholdWorldAccess(): void {
  const operators = process.umask(0o027);
  process.umask(operators | 0o027);
}

/**
 * Settings typed before the command (`mapstead --data-dir /srv/x orgs list`) are taken as if they came
 * after it: a command name counts where every argument before it is a setting flag or its value, and
 * otherwise the first one typed still picks the command, so that its own parser names what is wrong.
 */
function commandFirst(argv: string[]): string[] {
  if (!argv[0]?.startsWith("-")) return argv;
  for (let i = 1; i < argv.length; i++) {
    if (!COMMANDS.some((c) => c.name === argv[i])) continue;
    try {
      if (splitSettingFlags(argv.slice(0, i)).rest.length === 0) return [argv[i]!, ...argv.slice(0, i), ...argv.slice(i + 1)];
    } catch {
      // A flag without its value before the name: left to the usual error.
    }
  }
  // Something before the name is not a setting (a typo such as --data-dri): the command named still
  // reports it, so the error names the command typed, not `serve`.
  const named = argv.findIndex((a, i) => i > 0 && COMMANDS.some((c) => c.name === a));
  return named > 0 ? [argv[named]!, ...argv.slice(0, named), ...argv.slice(named + 1)] : argv;
}

/**
 * A command whose write failed for want of disk space is told so with the fix, as the HTTP API answers
 * 507, instead of SQLite's bare "database or disk is full" or "disk I/O error" (which a full disk gives
 * when SQLite cannot even size its shared-memory file). A refused permission is left as it is: it may be
 * about an input file, not DATA_DIR.
 */
function storageAdvice(err: unknown): string | null {
  const words = err instanceof Error ? err.message : String(err);
  const code = String((err as { code?: unknown } | null)?.code ?? "");
  const check = "`mapstead preflight` shows how much space is left";
  if (storageProblem(err) === "full") return `no space left to write (${words}): free some on the disk holding DATA_DIR (${check}), or on the one of the file written to, then run the command again`;
  if (code.startsWith("SQLITE_IOERR")) return `the database could not be written (${words}, ${code}): the disk holding DATA_DIR may be full or failing (${check}); free some space, or look at the system log for disk errors, then run the command again`;
  return null;
}

async function main(argv: string[]): Promise<number> {
  withholdWorldAccess();
  // The supervisor of `mapstead serve` starts its HTTP workers as this executable with WORKER_ARG.
  if (argv[0] === WORKER_ARG) return runWorker();
  if (argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    process.stdout.write(mainHelp());
    return 0;
  }
  if (argv[0] === "--version" || argv[0] === "-v") argv = ["version", ...argv.slice(1)];
  argv = commandFirst(argv);
  const first = argv[0];
  const named = first && !first.startsWith("-") ? COMMANDS.find((c) => c.name === first) : undefined;
  if (first && !first.startsWith("-") && !named) {
    printErr(`mapstead: unknown command '${first}'. Run \`mapstead --help\` for the list.`);
    return 2;
  }
  const command = named ?? COMMANDS[0]!;
  const args = named ? argv.slice(1) : argv;
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(command.help + "\n");
    return 0;
  }
  try {
    const { overrides, rest } = splitSettingFlags(args);
    return await command.run(rest, overrides);
  } catch (err) {
    if (err instanceof UsageError) {
      printErr(`mapstead ${command.name}: ${err.message}`);
      return 2;
    }
    // A file named on the command line whose contents are wrong: not a usage error.
    if (err instanceof JsonTextError) {
      printErr(`mapstead ${command.name}: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    printErr(`mapstead: ${storageAdvice(err) ?? (err instanceof Error ? err.message : String(err))}`);
    process.exit(1);
  },
);

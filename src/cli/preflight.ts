import type { CliCommand } from "./command";
import { configOrExit, servedUrlSettings } from "./runtime";
import { runningServer } from "./server-lock";
import { ConfigError, loadConfig, processEnv, type Config } from "../config";
import type { PreflightReport } from "../domain/preflight/checks";
import { statSync } from "node:fs";
import { closeDatabase, databasePath, DataDirError, openDatabase, type DbHandle } from "../db/client";
import { runPreflight } from "../domain/preflight/checks";
import { bold, dim, green, print, red, yellow } from "./output";
import { rejectUnknownArgs, settingsHelp } from "./args";

/**
 * Whether DATA_DIR holds no database: known only when the directory may be looked into. One this user
 * may not read is not "no database" (that would send the operator looking for a lost file): opening it
 * then says whose it is.
 */
function databaseAbsent(dataDir: string): boolean {
  try {
    statSync(databasePath(dataDir));
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR";
  }
}

/** Whether `path` is a file (a DATA_DIR that is one is reported by the database's own error). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

export const preflightCommand: CliCommand = {
  name: "preflight",
  summary: "Check this installation and say what to fix (--json for machines; exit 0 when nothing fails)",
  help: `Usage: mapstead preflight [--json] [settings]\n\nRuns the same checks as GET /setup/preflight with this machine's settings. Given no PUBLIC_URL while a\nserver runs on DATA_DIR, the public_url check judges that server's PUBLIC_URL, HOST and TRUST_PROXY.\n\nSettings:\n${settingsHelp()}`,
  async run(args, overrides) {
    rejectUnknownArgs(args, ["--json"]);
    const json = args.includes("--json");
    // A monitor reading --json gets a report even when a setting is bad: the config check, failing.
    const config = json ? configOrReport(overrides) : configOrExit(overrides);
    if (config === null) return 2;
    let handle: DbHandle | null = null;
    let databaseError: string | undefined;
    let databaseFix: string | undefined;
    // A check leaves a new installation as it found it: no database is made where there is none.
    const fresh = databaseAbsent(config.dataDir) && !isFile(config.dataDir);
    try {
      if (!fresh) handle = openDatabase(config.dataDir);
    } catch (err) {
      databaseError = err instanceof DataDirError ? err.problem : err instanceof Error ? err.message : String(err);
      if (err instanceof DataDirError) databaseFix = err.fix;
    }
    const report = await runPreflight({ config, servedUrl: servedUrlSettings(config), running: runningServer(config.dataDir), sqlite: handle?.sqlite ?? null, databaseError, databaseFix, fresh });
    if (handle) closeDatabase(handle.sqlite);
    if (json) {
      print(JSON.stringify(report, null, 2));
    } else {
      const mark = { pass: green("✔ pass"), warn: yellow("! warn"), fail: red("✖ fail") };
      for (const c of report.checks) {
        print(`${mark[c.status]}  ${bold(c.id.padEnd(11))} ${c.message}`);
        if (c.fix) print(`         ${"".padEnd(11)} ${dim("fix:")} ${c.fix}`);
      }
      const failed = report.checks.filter((c) => c.status === "fail").length;
      const warned = report.checks.filter((c) => c.status === "warn").length;
      print();
      print(failed ? red(`${failed} check(s) failed`) + (warned ? `, ${warned} warning(s)` : "") : green("Nothing failed") + (warned ? `, ${warned} warning(s)` : ""));
    }
    return report.ok ? 0 : 1;
  },
};

/** The settings, or null after printing a --json report whose config check fails naming the bad setting. */
function configOrReport(overrides: Record<string, string>): Readonly<Config> | null {
  try {
    const { env } = processEnv();
    return loadConfig(env, overrides);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const report: PreflightReport = { ok: false, checks: [{ id: "config", status: "fail", message: err.message, fix: `Correct ${err.setting} in the environment, the settings file or its --flag` }] };
    print(JSON.stringify(report, null, 2));
    return null;
  }
}

// `mapstead backup --to DIR`: a consistent copy of DATA_DIR taken while the server runs (see
// src/domain/backup/backup.ts for how), with what a restore needs and nothing that is rebuilt.
import { accessSync, constants, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { CliCommand } from "./command";
import { currentUserWords, userName } from "../os-user";
import { UsageError, parse, settingsHelp } from "./args";
import { configOrExit } from "./runtime";
import { bold, dim, green, print, printErr, red } from "./output";
import { databasePath, openDatabase, refuseUnusableDataDir } from "../db/client";
import { migrationStatus, NewerDatabaseError } from "../db/migrate";
import { backupDataDir, BackupUnsettled, MANIFEST_FILE, type BackupResult } from "../domain/backup/backup";
import { VERSION } from "../build-info";
import { fileProblems, MISSING_ARCHIVES_FIX, MISSING_FONTS_FIX, MISSING_SPRITES_FIX } from "../domain/health/published-files";

const HELP = `Usage: mapstead backup --to DIR [--json] [settings]

Copies DATA_DIR into DIR (which must not exist, or be empty) while the server runs: the database
through SQLite's own online copy, then the tile archives, sprites, fonts and queued uploads its rows
refer to, then the gazetteer. Caches (glyphs/, render-cache/), uploads still being received and the
setup token are left out: they are rebuilt or not needed. Files are 0640 and folders 0750. The
backup is complete when DIR holds ${MANIFEST_FILE} (written last).

Run it as the server's user (sudo -u mapstead mapstead backup --to DIR on an install.sh server),
into a directory that user may write, preferably on another disk. Restoring is described in the
README's "Backups" section: stop the server, move DATA_DIR aside, copy DIR in its place, give it
to the server's user, start the server (this or a newer mapstead).

Exit status: 0 done, 1 failed or files missing (the message says which), 2 usage error.

Settings:
${settingsHelp()}`;

function size(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

const currentUser = currentUserWords;

/** Why DIR cannot take a backup (one line naming it and the fix), or null when it can. */
function targetProblem(to: string, dataDir: string): string | null {
  if (to === dataDir || to.startsWith(dataDir + sep)) return `${to} is inside DATA_DIR ${dataDir}; back up to a directory outside it, preferably on another disk`;
  let stat;
  try {
    stat = statSync(to, { throwIfNoEntry: false });
  } catch {
    return mayNotWrite(dirname(to));
  }
  if (stat && !stat.isDirectory()) return `${to} is a file; give a new or empty directory`;
  if (stat && readdirSync(to).length) return `${to} is not empty; give a new or empty directory, e.g. ${unusedBeside(to)}`;
  // The nearest existing directory is where this user must be able to write.
  let writable = to;
  while (!existsSync(writable)) writable = dirname(writable);
  try {
    accessSync(writable, constants.W_OK);
  } catch {
    return mayNotWrite(writable);
  }
  return null;
}

function mayNotWrite(dir: string): string {
  const self = userName(process.getuid?.() ?? 0) ?? "mapstead";
  return `${currentUser()} may not write in ${dir}; back up into a directory this user owns, e.g. one made with sudo install -d -o ${self} -m 0750 /var/backups/mapstead`;
}

/** The first of DIR.2, DIR.3, ... that does not exist: a name beside a used one that is free now. */
function unusedBeside(dir: string): string {
  let n = 2;
  while (existsSync(`${dir}.${n}`)) n++;
  return `${dir}.${n}`;
}

function printResult(r: BackupResult, dataDir: string, seconds: number) {
  const row = (what: string, detail: string, bytes: number) => print(`  ${what.padEnd(10)} ${detail.padEnd(38)} ${size(bytes).padStart(10)}`);
  // A backup without some of the files the database names is still worth keeping (everything else is
  // in it), but must not read as a clean one above the error that follows.
  const heading = r.missing.length ? red(`Backed up all but ${r.missing.length} missing file(s) of`) : green("Backed up");
  print(`${heading} DATA_DIR ${bold(dataDir)} to ${bold(r.to)} in ${seconds.toFixed(1)} s:`);
  row("database", r.database.file, r.database.bytes);
  if (r.gazetteer) row("gazetteer", r.gazetteer.file, r.gazetteer.bytes);
  const f = r.files;
  row("tilesets", `${f.tilesets.count} archive(s)`, f.tilesets.bytes);
  row("sprites", `${f.sprites.count} sprite set(s), ${f.sprites.files} files`, f.sprites.bytes);
  row("fonts", `${f.fonts.count} font file(s)`, f.fonts.bytes);
  if (f.uploads.count) row("uploads", `${f.uploads.count} awaiting processing or import`, f.uploads.bytes);
  row("total", "", r.total_bytes);
  print(dim("Left out (rebuilt or transient): glyphs/, render-cache/, uploads still being received, setup-token."));
  const owner = userName(statSync(dataDir).uid) ?? "mapstead";
  print("To restore: stop the server, then");
  print(`  mv ${dataDir} ${dataDir}.before-restore`);
  print(`  cp -a ${r.to} ${dataDir} && chown -R ${owner}: ${dataDir}`);
  print(`and start it (this mapstead or a newer one; README "Backups").`);
}

export const backupCommand: CliCommand = {
  name: "backup",
  summary: "Copy DATA_DIR consistently while the server runs (--to DIR)",
  help: HELP,
  async run(args, overrides) {
    const parsed = parse(args, { to: { type: "string" }, json: { type: "boolean" } });
    if (parsed.positionals.length) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'; the target goes after --to`);
    if (!parsed.values.to) throw new UsageError("--to DIR is required: the new or empty directory to write the backup into");
    const json = parsed.values.json === true;
    const config = configOrExit(overrides);
    const dataDir = config.dataDir;
    const to = resolve(parsed.values.to);
    const fail = (message: string) => {
      printErr(red(`mapstead backup: ${message}`));
      return 1;
    };

    const problem = targetProblem(to, dataDir);
    if (problem) return fail(problem);
    // Checked before openDatabase, which would create an empty one; a DATA_DIR this user may not open
    // is said as such first (its database would look missing).
    refuseUnusableDataDir(dataDir);
    if (!existsSync(databasePath(dataDir))) return fail(`no database in DATA_DIR ${dataDir}, so nothing to back up; pass the server's DATA_DIR (--data-dir or the DATA_DIR setting)`);
    // Refuses root in the service's DATA_DIR (it could leave root's -wal/-shm there) and says what a
    // user who may not open it should do; the database is only read, never migrated.
    const live = openDatabase(dataDir).sqlite;
    const created = !existsSync(to);
    try {
      const { unknown } = migrationStatus(live);
      if (unknown.length) throw new NewerDatabaseError(unknown);
      mkdirSync(to, { recursive: true });
      const started = performance.now();
      const result = await backupDataDir(dataDir, live, to, (step) => {
        if (!json) printErr(dim(`${step}...`));
      });
      const manifest = { mapstead: VERSION, created_at: new Date().toISOString(), data_dir: dataDir, migrations: migrationStatus(live).applied, ...result };
      await Bun.write(resolve(to, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + "\n");
      if (json) print(JSON.stringify(manifest, null, 2));
      else printResult(result, dataDir, (performance.now() - started) / 1000);
      if (!result.missing.length) return 0;
      // Said with what each file belongs to and its own fix, in the words /health/detailed and the preflight use.
      const known = fileProblems(live, dataDir);
      const fixes = (
        [
          ["tilesets/", `tile archives: ${MISSING_ARCHIVES_FIX}`],
          ["sprites/", `sprites: ${MISSING_SPRITES_FIX}`],
          ["fonts/", `fonts: ${MISSING_FONTS_FIX}`],
        ] as const
      )
        .filter(([dir]) => result.missing.some((m) => m.startsWith(dir)))
        .map(([, fix]) => fix);
      const owners = new Map([...known.archives, ...known.sprites, ...known.fonts].map((p) => [p.path, p.name]));
      const named = result.missing.map((m) => (owners.has(m) ? `${m} (${owners.get(m)})` : m));
      return fail(
        `${result.missing.length} file(s) the database refers to are missing from DATA_DIR itself, so the backup lacks them too: ${named.join(", ")}. ` +
          `${fixes.length ? fixes.join(". ") + ". " : "Put the files back. "}Then back up again`,
      );
    } catch (err) {
      // A partial backup must not pass for one: take away what was written (DIR was new or empty).
      if (created) rmSync(to, { recursive: true, force: true });
      else if (existsSync(to)) for (const name of readdirSync(to)) rmSync(resolve(to, name), { recursive: true, force: true });
      const { code, path } = err as { code?: string; path?: string };
      // SQLite says SQLITE_FULL where the file system says ENOSPC.
      if (code === "ENOSPC" || code === "SQLITE_FULL") return fail(`the disk holding ${to} is full; nothing was kept there. Free space on it, or back up to a bigger disk`);
      if (err instanceof NewerDatabaseError || err instanceof BackupUnsettled) return fail(err.message);
      if ((code === "EACCES" || code === "EPERM") && path)
        return fail(`${currentUser()} may not read ${path}, so no backup was made; run the backup as the server's user, and give that user what another one left in DATA_DIR (chown -R)`);
      throw err;
    } finally {
      // Not closeDatabase: its checkpoint would make the server's writers wait, for a connection that only read.
      live.close();
    }
  },
};

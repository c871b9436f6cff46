// The one set of setup checks behind GET /setup/preflight and `mapstead preflight`. Each check says
// pass, warn or fail, what it saw, and a fix a person can act on. No secret is ever included.
import type { Database } from "bun:sqlite";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { isIP } from "node:net";
import { promises as dns } from "node:dns";
import type { Config } from "../../config";
import { migrationStatus } from "../../db/migrate";
import { probeGeocoder } from "../../backends/geocoder/probe";
import { probeElevationBackend } from "../../backends/elevation/embedded-probe";
import { probeRouter } from "../../backends/routing/probe";
import type { ProbeResult } from "../../backends/probe";
import { FULL_DISK_BYTES, LOW_DISK_BYTES, READ_ONLY_FIX, gib, storageFacts } from "../health/storage";
import { listenProblem } from "./listen-problem";
import { MISSING_ARCHIVES_FIX, MISSING_FONTS_FIX, MISSING_SPRITES_FIX, archivesWords, fileProblems, fontsWords, spritesWords } from "../health/published-files";

export type CheckStatus = "pass" | "warn" | "fail";

export interface Check {
  id: string;
  status: CheckStatus;
  message: string;
  fix: string;
}

export interface PreflightReport {
  ok: boolean;
  checks: Check[];
}

export interface PreflightDeps {
  config: Config;
  /**
   * the settings of the server that runs on DATA_DIR, when the CLI was given no PUBLIC_URL: the URL check
   * judges the URLs clients are really sent to, not the CLI's own default
   */
  servedUrl?: Config | null;
  /** null when the database could not be opened (`databaseError` says why) or is not there yet (`fresh`) */
  sqlite: Database | null;
  databaseError?: string;
  /** the fix for `databaseError`, when its cause is known (run as DATA_DIR's owner, say) */
  databaseFix?: string;
  /** DATA_DIR holds no database yet: a new installation, which the first start sets up */
  fresh?: boolean;
  /** true inside the running server; the CLI checks a configuration nothing listens with yet */
  listening?: boolean;
  /**
   * the server already running on DATA_DIR (from its server.lock), for the CLI: the config check reports
   * where it listens rather than the CLI's own defaults, which it does not use
   */
  running?: { pid: number; host?: string; port: number } | null;
  probeGeocoder?: () => Promise<ProbeResult>;
  probeElevation?: () => Promise<ProbeResult>;
  probeRouter?: () => Promise<ProbeResult>;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);
const isLoopbackHost = (h: string) => LOOPBACK_HOSTS.has(h.toLowerCase()) || h.startsWith("127.");

function publicUrlCheck(config: Config): Check {
  const url = new URL(config.publicUrl);
  const listensPublicly = !isLoopbackHost(config.host);
  if (listensPublicly && isLoopbackHost(url.hostname))
    return {
      id: "public_url",
      status: "warn",
      message: `PUBLIC_URL is ${config.publicUrl}${config.publicUrlDefaulted ? " (the default)" : ""} while HOST=${config.host} accepts connections from other machines; map clients elsewhere will be sent to localhost URLs`,
      fix: "Set PUBLIC_URL to the address clients use, e.g. PUBLIC_URL=https://maps.example.com",
    };
  // Mapstead speaks plain HTTP: an https PUBLIC_URL means a proxy in front, whose clients all arrive from
  // its address unless Mapstead is told to read X-Forwarded-For.
  if (url.protocol === "https:" && !config.trustProxy)
    return {
      id: "public_url",
      status: "warn",
      message: `PUBLIC_URL is ${config.publicUrl}, so a proxy terminates TLS in front of Mapstead, but TRUST_PROXY is off: every client shares the proxy's address for login throttling and rate limits`,
      fix: "Set TRUST_PROXY=true when Mapstead is reachable only through that proxy (which must set X-Forwarded-For)",
    };
  // A PUBLIC_URL on this machine that names another port than the server's sends every TileJSON and
  // style URL to a dead port (a proxy on this machine would have a name of its own, not localhost).
  // With a path prefix the other port is a reverse proxy's on this machine, publishing Mapstead under it.
  const urlPort = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  if (isLoopbackHost(url.hostname) && config.port !== 0 && urlPort !== config.port && !config.basePath)
    return {
      id: "public_url",
      status: "warn",
      message: `PUBLIC_URL is ${config.publicUrl}, port ${urlPort}, while the server listens on port ${config.port}: the URLs in TileJSON and style documents point at port ${urlPort}`,
      fix: `Set PUBLIC_URL=${url.protocol}//${url.hostname}:${config.port}, or leave PUBLIC_URL unset on a single machine`,
    };
  const under = config.basePath
    ? `; a reverse proxy publishes Mapstead under ${config.basePath} (requests are answered with the prefix stripped by the proxy or still in the path)`
    : "";
  return { id: "public_url", status: "pass", message: `Absolute URLs start with ${config.publicUrl}${under}`, fix: "" };
}

/** The nearest directory above `path` that exists. */
function existingAncestor(path: string): string {
  let dir = dirname(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function dataDirChecks(config: Config): Check[] {
  if (!existsSync(config.dataDir)) {
    // A new installation: what matters is whether the first start can create it, and the room there.
    const parent = existingAncestor(config.dataDir);
    const f = storageFacts(parent);
    const parentWritable = (() => {
      try {
        accessSync(parent, constants.W_OK);
        return statSync(parent).isDirectory();
      } catch {
        return false;
      }
    })();
    const dir: Check = parentWritable
      ? { id: "data_dir", status: "pass", message: `DATA_DIR ${config.dataDir} does not exist yet; the first start creates it`, fix: "" }
      : { id: "data_dir", status: "fail", message: `DATA_DIR ${config.dataDir} does not exist and cannot be created (${parent} is not a writable directory)`, fix: `Create it for the service user: sudo install -d -o mapstead ${config.dataDir}` };
    return [dir, diskCheck(f.freeBytes)];
  }
  const f = storageFacts(config.dataDir);
  const dir: Check = f.writable
    ? { id: "data_dir", status: "pass", message: `DATA_DIR ${config.dataDir} is writable`, fix: "" }
    : {
        id: "data_dir",
        status: "fail",
        message: `DATA_DIR ${config.dataDir} is not writable (${f.error})`,
        fix: f.notDirectory
          ? "Point DATA_DIR at a directory (Mapstead creates it when missing), or move the file away"
          : f.readOnly
            ? READ_ONLY_FIX
            : `Give it and everything in it to the service user: sudo install -d -o mapstead ${config.dataDir} && sudo chown -R mapstead: ${config.dataDir}`,
      };
  return [dir, diskCheck(f.freeBytes)];
}

function diskCheck(freeBytes: number | null): Check {
  if (freeBytes === null) return { id: "disk_space", status: "warn", message: "Free space in DATA_DIR could not be read", fix: "Check the file system holding DATA_DIR" };
  if (freeBytes < FULL_DISK_BYTES) return { id: "disk_space", status: "fail", message: `Only ${gib(freeBytes)} free in DATA_DIR`, fix: "Free disk space or move DATA_DIR to a larger volume; uploads and tile builds need room" };
  if (freeBytes < LOW_DISK_BYTES) return { id: "disk_space", status: "warn", message: `Only ${gib(freeBytes)} free in DATA_DIR (under 1 GiB)`, fix: "Free disk space or move DATA_DIR to a larger volume before importing large data" };
  return { id: "disk_space", status: "pass", message: `${gib(freeBytes)} free in DATA_DIR`, fix: "" };
}

function sqliteCheck(sqlite: Database): Check {
  const version = (sqlite.query("SELECT sqlite_version() AS v").get() as { v: string }).v;
  const mode = (sqlite.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const tooOld = major < 3 || (major === 3 && minor < 35);
  if (tooOld) return { id: "sqlite", status: "fail", message: `SQLite ${version} is older than 3.35`, fix: "Use the official mapstead binary, which embeds a current SQLite" };
  if (mode.toLowerCase() !== "wal") return { id: "sqlite", status: "warn", message: `SQLite ${version} in ${mode} mode, not WAL`, fix: "Put DATA_DIR on a local file system (WAL needs shared memory; network file systems refuse it)" };
  return { id: "sqlite", status: "pass", message: `SQLite ${version}, WAL journal`, fix: "" };
}

function migrationsCheck(sqlite: Database): Check {
  const s = migrationStatus(sqlite);
  if (s.unknown.length)
    return { id: "migrations", status: "fail", message: `The database was upgraded by a newer Mapstead (migration(s) ${s.unknown.join(", ")} unknown to this binary)`, fix: "Run the newer binary that upgraded it, or restore the database as it was before the upgrade: DATA_DIR/upgrade-backups keeps a copy from each upgrade (see the README's Backups section)" };
  if (s.pending.length) return { id: "migrations", status: "fail", message: `${s.pending.length} database migration(s) pending: ${s.pending.join(", ")}`, fix: "Run `mapstead migrate` (serve applies them at start-up too)" };
  return { id: "migrations", status: "pass", message: `Database schema current (${s.applied.length} migration(s))`, fix: "" };
}

const ADMIN_FIX = "Run `mapstead admin create --email you@example.com`, or open /setup in a browser with the one-time token from DATA_DIR/setup-token (written anew at every start while no admin exists: restart the server if it is lost)";

function adminCheck(sqlite: Database): Check {
  let admins = 0;
  try {
    admins = (sqlite.query("SELECT COUNT(*) AS n FROM users WHERE is_admin = 1").get() as { n: number }).n;
  } catch {
    return { id: "admin", status: "fail", message: "Users table missing", fix: "Run `mapstead migrate`" };
  }
  if (!admins)
    return { id: "admin", status: "warn", message: "No admin account exists yet", fix: ADMIN_FIX };
  return { id: "admin", status: "pass", message: `${admins} admin account(s)`, fix: "" };
}

function backendCheck(id: string, r: ProbeResult): Check {
  const status: CheckStatus = r.status === "ok" ? "pass" : r.status === "down" ? "fail" : "warn";
  const latency = r.latency_ms !== undefined && r.status !== "not_configured" ? ` (${r.latency_ms} ms)` : "";
  return { id, status, message: `${r.detail}${r.status === "ok" ? "" : latency}`, fix: r.fix ?? "" };
}

/**
 * A HOST name that resolves to nothing (a typo) passes as a well-formed name, then `serve` fails with
 * EINVAL: said here first. The server itself (listening already) has nothing to check.
 */
async function unresolvedHost(host: string): Promise<string | null> {
  if (isIP(host) || host === "localhost") return null;
  try {
    await dns.lookup(host);
    return null;
  } catch {
    return `HOST=${host} does not resolve to an address, so serve cannot listen on it`;
  }
}

/**
 * Every ready tileset version has a readable archive, every style its sprite and every font its file (a
 * restore may have left some out). An archive of a published version is a failure: that map answers 503
 * to every client, so a restore checked by the preflight must not pass with it. The rest only warns, as
 * /health/detailed says degraded: an unpublished version is not served to map clients, and a map
 * without its icons or some labels still draws.
 */
function publishedFilesChecks(sqlite: Database, dataDir: string): Check[] {
  const p = fileProblems(sqlite, dataDir);
  return [
    p.archives.length
      ? { id: "archives", status: p.archives.some((a) => a.published) ? "fail" : "warn", message: archivesWords(p.archives), fix: MISSING_ARCHIVES_FIX }
      : { id: "archives", status: "pass", message: "Every ready tileset version has its archive in DATA_DIR", fix: "" },
    p.sprites.length
      ? { id: "sprites", status: "warn", message: spritesWords(p.sprites), fix: MISSING_SPRITES_FIX }
      : { id: "sprites", status: "pass", message: "Every sprite of a style has its files in DATA_DIR", fix: "" },
    p.fonts.length
      ? { id: "fonts", status: "warn", message: fontsWords(p.fonts), fix: MISSING_FONTS_FIX }
      : { id: "fonts", status: "pass", message: "Every installed font has its file in DATA_DIR", fix: "" },
  ];
}

export async function runPreflight(deps: PreflightDeps): Promise<PreflightReport> {
  const { config, sqlite } = deps;
  const [geo, elev, route] = await Promise.all([
    (deps.probeGeocoder ?? (() => probeGeocoder(config)))(),
    (deps.probeElevation ?? (() => probeElevationBackend(config, sqlite ?? null)))(),
    (deps.probeRouter ?? (() => probeRouter(config)))(),
  ]);
  const dirChecks = dataDirChecks(config);
  const databaseChecks: Check[] = sqlite
    ? [sqliteCheck(sqlite), migrationsCheck(sqlite), adminCheck(sqlite), ...publishedFilesChecks(sqlite, config.dataDir)]
    : deps.fresh && dirChecks[0]!.status === "pass"
      ? [
          { id: "sqlite", status: "pass", message: "No database in DATA_DIR yet: the first start creates it and applies the migrations", fix: "" },
          { id: "admin", status: "warn", message: "No admin account exists yet", fix: ADMIN_FIX },
        ]
      : [
        {
          id: "sqlite",
          status: "fail",
          message: deps.fresh ? "No database in DATA_DIR, and DATA_DIR cannot be made to hold one" : `The database in DATA_DIR could not be opened: ${deps.databaseError ?? "unknown error"}`,
          fix: deps.databaseFix ? capitalized(deps.databaseFix) : databaseFix(deps.databaseError),
        },
      ];
  const unresolved = deps.listening ? null : await unresolvedHost(config.host);
  // The port is tried only where serve would open it next: not inside the server, and not while a server
  // runs on this DATA_DIR (it holds the port; the check says where it listens).
  const blocked = deps.listening || deps.running || unresolved ? null : listenProblem(config.host, config.port);
  const checks: Check[] = [
    unresolved
      ? { id: "config", status: "fail", message: unresolved, fix: "Set HOST to 0.0.0.0 (every interface), 127.0.0.1 (this machine only) or one of this machine's addresses" }
      : blocked
        ? { id: "config", ...blocked }
        : { id: "config", status: "pass", message: `Settings valid; ${listenWords(config, deps)}`, fix: "" },
    publicUrlCheck(deps.servedUrl ?? config),
    ...dirChecks,
    ...databaseChecks,
    backendCheck("geocoder", geo),
    backendCheck("elevation", elev),
    backendCheck("router", route),
  ];
  return { ok: checks.every((c) => c.status !== "fail"), checks };
}

/** Where the server listens: this one, the one running on DATA_DIR (its lock says), or where serve will. */
function listenWords(config: Config, deps: PreflightDeps): string {
  if (deps.listening) return `listening on ${config.host}:${config.port}`;
  const running = deps.running;
  if (!running) return `will listen on ${config.host}:${config.port}`;
  const at = `${running.host ?? "?"}:${running.port === 0 ? "(a port chosen at start)" : running.port}`;
  const same = running.host === config.host && running.port === config.port;
  return `a server (pid ${running.pid}) runs on this DATA_DIR, listening on ${at}${same ? "" : ` (these settings would listen on ${config.host}:${config.port})`}`;
}

/** The fix for a database that could not be opened for a reason openDatabase did not explain. */
function databaseFix(error: string | undefined): string {
  // A damaged file: no permission or mount change helps, only a copy of it does.
  if (error && /not a database|malformed|corrupt/i.test(error))
    return "Stop the service, move DATA_DIR/mapstead.db aside and restore it from a backup (see the README's Backups section), or from the newest copy in DATA_DIR/upgrade-backups";
  return "Make DATA_DIR a writable directory on a local file system for the service user";
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

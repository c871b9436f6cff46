// `mapstead serve`: migrate, listen, print where to go, and shut down cleanly on SIGTERM/SIGINT
// (stop accepting, let in-flight requests finish for up to 10 s, flush, close the database).
// WORKERS=1 serves from this process; above 1 this process supervises that many HTTP workers sharing
// the port and keeps the single-instance duties (src/cluster/supervisor.ts).
import type { CliCommand } from "./command";
import { configOrExit } from "./runtime";
import { claimDataDir, DataDirInUse } from "./server-lock";
import { openDatabase } from "../db/client";
import { upgradeDatabase } from "../db/upgrade";
import { createContext } from "../context";
import { createLogger } from "../log";
import { createApp } from "../app";
import { createServices } from "../services";
import { issueSetupToken } from "../domain/accounts/setup-token";
import { rejectUnknownArgs, settingsHelp } from "./args";
import { bold, printErr } from "./output";
import { removeSetupTokenFile, writeSetupTokenFile } from "../domain/accounts/setup-token-file";
import type { Config } from "../config";
import { drain } from "../cluster/drain";
import { startCluster, type Cluster } from "../cluster/supervisor";
import { BUN_BODY_LIMIT } from "../http/body-limit";
import { explainListenError, probePort } from "../domain/preflight/listen-problem";

/**
 * Binds the port once before anything else happens, so a port in use fails before migrations touch the
 * database (a second `serve` by mistake must not upgrade a data dir it then cannot serve). PORT=0 means
 * "any free port": resolve it here so PUBLIC_URL's default names the real port. The real listen below
 * still handles the port being taken in between.
 */
function claimPort(config: Readonly<Config>): Readonly<Config> {
  const port = probePort(config.host, config.port);
  if (config.port !== 0) return config;
  return Object.freeze({ ...config, port, publicUrl: config.publicUrlDefaulted ? `http://localhost:${port}` : config.publicUrl });
}

function cannotListen(config: Readonly<Config>, err: unknown): number {
  const known = explainListenError(config.host, config.port, err);
  if (known) printErr(`mapstead: cannot listen on ${config.host}:${config.port}: ${known.message}. ${known.fix}`);
  else printErr(`mapstead: cannot listen on ${config.host}:${config.port} (${err instanceof Error ? err.message : String(err)}); choose another PORT or HOST`);
  return 1;
}

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Start the appliance (the default command)",
  help: `Usage: mapstead serve [settings]\n\nApplies database migrations, then serves the API, console and docs.\n\nSettings (environment variables, or these flags):\n${settingsHelp()}`,
  async run(args, overrides) {
    rejectUnknownArgs(args);
    const wanted = configOrExit(overrides);
    let config: Readonly<Config>;
    try {
      config = claimPort(wanted);
    } catch (err) {
      return cannotListen(wanted, err);
    }
    const log = createLogger(config.logLevel);
    const handle = openDatabase(config.dataDir);
    let lock: { release(): void };
    try {
      lock = claimDataDir(config.dataDir, config.port, { publicUrl: config.publicUrl, publicUrlDefaulted: config.publicUrlDefaulted, host: config.host, trustProxy: config.trustProxy });
    } catch (err) {
      if (!(err instanceof DataDirInUse)) throw err;
      handle.sqlite.close();
      printErr(`mapstead: ${err.message}`);
      return 1;
    }
    process.on("exit", () => lock.release());
    const { applied, copy } = upgradeDatabase(handle.sqlite, config.dataDir);
    if (copy) log.info("database copied before the upgrade", { path: copy });
    if (applied.length) log.info("migrations applied", { migrations: applied });
    const ctx = createContext(config, handle, log);
    const services = createServices(ctx);
    const app = config.workers === 1 ? createApp(services) : null;
    let cluster: Cluster | null = null;
    // Built (first start) or opened in the background, so geocoding is ready soon without delaying start-up;
    // with several workers the supervisor builds it and the workers open the finished file.
    void services.embeddedGazetteer()?.start();

    // Handlers go in before listening, so a signal that arrives right after start is not fatal.
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      if (app) await drain(app.server, log, () => ctx.endRequests());
      else await cluster?.stop();
      await ctx.shutdown();
      lock.release();
      log.info("stopped");
      process.exit(0);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));

    try {
      if (app)
        // reusePort off (Elysia turns it on): a second instance on the same port must fail, not share
        // the traffic of the first behind the operator's back.
        app.listen({ hostname: config.host, port: config.port, reusePort: false, development: false, maxRequestBodySize: BUN_BODY_LIMIT });
      else {
        services.startJobs();
        void services.idempotency;
        cluster = startCluster(ctx, services);
        await cluster.ready;
      }
    } catch (err) {
      stopping = true;
      await cluster?.stop();
      await ctx.shutdown();
      return cannotListen(config, err);
    }
    const token = issueSetupToken(handle.sqlite);
    log.info("listening", { url: config.publicUrl, host: config.host, port: config.port, workers: config.workers, render_workers: config.renderWorkers, data_dir: config.dataDir, version: ctx.version });
    // `bun start`, the CLI wrapper and the binary raise Bun's 16 KiB request-head limit; a plain
    // `bun src/main.ts serve` does not, and Bun itself then answers long URLs with a bare 431.
    if (!process.execArgv.some((a) => a.startsWith("--max-http-header-size")))
      log.warn("started without --max-http-header-size", { effect: "request lines and headers over 16 KiB (long static-image overlays) get Bun's own bare 431, not the API's answers", fix: "start with `bun start` (or `bun --max-http-header-size=65536 src/main.ts serve`)" });
    const tokenFile = token ? writeSetupTokenFile(config.dataDir, token) : (removeSetupTokenFile(config.dataDir), null);
    if (tokenFile) log.info("no admin account yet", { setup_url: `${config.publicUrl}/setup`, setup_token_file: tokenFile, alternative: "mapstead admin create --email you@example.com" });
    // stdout carries JSON log lines only; the human banner goes to a terminal when there is one.
    if (process.stderr.isTTY) {
      printErr(`Mapstead ${ctx.version} is running at ${bold(config.publicUrl)}  (console: ${config.publicUrl}/console, API docs: ${config.publicUrl}/docs, setup check: ${config.publicUrl}/setup/preflight)`);
      if (token && tokenFile) {
        printErr(`No admin account yet. Open ${config.publicUrl}/setup and enter this one-time setup token (also in ${tokenFile}, readable only by this user):`);
        printErr(`  ${bold(token)}`);
        printErr(`or run: mapstead admin create --email you@example.com`);
      }
    }
    return await new Promise<number>(() => {});
  },
};

// `mapstead serve`: migrate, listen, print where to go, and shut down cleanly on SIGTERM/SIGINT
// (stop accepting, let in-flight requests finish for up to 10 s, flush, close the database).
import type { CliCommand } from "./command";
import { configOrExit } from "./runtime";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { createContext } from "../context";
import { createLogger } from "../log";
import { createApp } from "../app";
import { gazetteerFor } from "../backends/geocoder/select";
import { issueSetupToken } from "../modules/auth/setup-token";
import { rejectUnknownArgs, settingsHelp } from "./args";
import { bold, print, printErr } from "./output";
import type { Config } from "../config";

const DRAIN_MS = 10_000;

/** PORT=0 means "any free port"; resolve it first so PUBLIC_URL's default names the real port. */
function withConcretePort(config: Readonly<Config>): Readonly<Config> {
  if (config.port !== 0) return config;
  const probe = Bun.serve({ hostname: config.host, port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return Object.freeze({ ...config, port, publicUrl: config.publicUrlDefaulted ? `http://localhost:${port}` : config.publicUrl });
}

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "Start the appliance (the default command)",
  help: `Usage: mapstead serve [settings]\n\nApplies database migrations, then serves the API, console and docs.\n\nSettings (environment variables, or these flags):\n${settingsHelp()}`,
  async run(args, overrides) {
    rejectUnknownArgs(args);
    const config = withConcretePort(configOrExit(overrides));
    const log = createLogger(config.logLevel);
    const handle = openDatabase(config.dataDir);
    const applied = migrate(handle.sqlite);
    if (applied.length) log.info("migrations applied", { migrations: applied });
    const ctx = createContext(config, handle, log);
    const app = createApp(ctx);
    // Built (first start) or opened in the background, so geocoding is ready soon without delaying start-up.
    if (config.geocoder === "embedded") void gazetteerFor(ctx).start();

    // Handlers go in before listening, so a signal that arrives right after start is not fatal.
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      const server = app.server;
      if (server) {
        const drained = server.stop(false);
        const timedOut = await Promise.race([drained.then(() => false), Bun.sleep(DRAIN_MS).then(() => true)]);
        if (timedOut) {
          log.warn("in-flight requests did not finish within 10 s; closing them");
          await server.stop(true);
        }
      }
      // After-response hooks (the access-log lines of the drained requests) run on a later tick.
      await Bun.sleep(20);
      await ctx.shutdown();
      log.info("stopped");
      process.exit(0);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));

    try {
      // reusePort off (Elysia turns it on): a second instance on the same port must fail, not share
      // the traffic of the first behind the operator's back.
      app.listen({ hostname: config.host, port: config.port, reusePort: false, development: false, maxRequestBodySize: config.maxUploadMb * 1024 * 1024 + 1024 * 1024 });
    } catch (err) {
      await ctx.shutdown();
      printErr(`mapstead: cannot listen on ${config.host}:${config.port} (${err instanceof Error ? err.message : String(err)}); choose another PORT or HOST`);
      return 1;
    }
    const token = issueSetupToken(handle.sqlite);
    log.info("listening", { url: config.publicUrl, host: config.host, port: app.server!.port, data_dir: config.dataDir, version: ctx.version });
    print(`Mapstead ${ctx.version} is running at ${bold(config.publicUrl)}  (API docs: ${config.publicUrl}/docs, setup check: ${config.publicUrl}/setup/preflight)`);
    if (token) {
      print(`No admin account yet. Open ${config.publicUrl}/setup and enter this one-time setup token:`);
      print(`  ${bold(token)}`);
      print(`or run: mapstead admin create --email you@example.com`);
    }
    return await new Promise<number>(() => {});
  },
};

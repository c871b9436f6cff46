// Builds a real app on a temporary data dir with a real SQLite file. `fetch` goes through
// app.handle (no socket); `serveTestApp` listens on a free loopback port for real HTTP clients.
import { rmSync } from "node:fs";
import { loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { migrate } from "../../src/db/migrate";
import { createContext, type AppContext } from "../../src/context";
import { createApp, type App } from "../../src/app";
import { createServices, type Services } from "../../src/services";
import { silentLogger, type Logger } from "../../src/log";
import { tempDir } from "./temp";
import { BUN_BODY_LIMIT } from "../../src/http/body-limit";

export interface TestApp {
  app: App;
  ctx: AppContext;
  services: Services;
  dataDir: string;
  baseUrl: string;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export { tempDir };

export async function makeTestApp(env: Record<string, string> = {}, opts: { dataDir?: string; log?: Logger } = {}): Promise<TestApp> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = loadConfig({ DATA_DIR: dataDir, PORT: "8080", LOG_LEVEL: "error", ...env });
  const handle = openDatabase(config.dataDir);
  migrate(handle.sqlite);
  const ctx = createContext(config, handle, opts.log ?? silentLogger);
  const services = createServices(ctx);
  const app = createApp(services);
  return {
    app,
    ctx,
    services,
    dataDir,
    baseUrl: config.publicUrl,
    fetch: (path, init) => app.handle(new Request(config.publicUrl + path, init)),
    async close() {
      await ctx.shutdown();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether a server started on 127.0.0.1:`port` answers /health within `tries` tenths of a second. */
export async function answersHealth(port: number, tries = 100): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) return true;
    await Bun.sleep(100);
  }
  return false;
}

export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * Listens on 127.0.0.1 as `mapstead serve` does (src/cli/serve.ts), so tests and benches see the server
 * that ships: Elysia's listen() otherwise turns on Bun's development mode and port sharing.
 */
export function listenAsServed(app: App, port: number): void {
  app.listen({ hostname: "127.0.0.1", port, reusePort: false, development: false, maxRequestBodySize: BUN_BODY_LIMIT });
}

/** A listening app on 127.0.0.1 with PUBLIC_URL set to its own address (for browsers and real HTTP). */
export async function serveTestApp(env: Record<string, string> = {}, opts: { dataDir?: string; log?: Logger } = {}): Promise<TestApp> {
  const port = freePort();
  const t = await makeTestApp({ HOST: "127.0.0.1", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, opts);
  listenAsServed(t.app, port);
  const close = t.close;
  return {
    ...t,
    fetch: (path, init) => fetch(t.baseUrl + path, init),
    async close() {
      await t.app.server?.stop(true);
      await close();
    },
  };
}

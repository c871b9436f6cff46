// `mapstead preflight` beside a running server: its config check names where that server listens (from
// DATA_DIR/server.lock), as its public_url check already judges that server's URL, instead of the
// CLI's own default address, which nothing uses.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { answersHealth, freePort, tempDir } from "../../../support/app";

const MAIN = join(import.meta.dir, "../../../../src/main.ts");
const env = { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error", MAPSTEAD_ENV_FILE: "none" };

async function preflight(dataDir: string, extra: Record<string, string> = {}) {
  const p = Bun.spawn(["bun", MAIN, "preflight", "--json"], { env: { ...env, DATA_DIR: dataDir, ...extra }, stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  return (JSON.parse(out).checks as { id: string; message: string }[]).find((c) => c.id === "config")!.message;
}

test("the config check reports the running server's address from its lock, and its own again once it stops", async () => {
  const dataDir = join(tempDir("mapstead-running-"), "data");
  const port = freePort();
  const server = Bun.spawn(["bun", MAIN, "serve"], { env: { ...env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" }, stdout: "ignore", stderr: "ignore" });
  try {
    expect(await answersHealth(port)).toBe(true);
    expect(await preflight(dataDir)).toBe(`Settings valid; a server (pid ${server.pid}) runs on this DATA_DIR, listening on 127.0.0.1:${port} (these settings would listen on 0.0.0.0:8080)`);
    expect(await preflight(dataDir, { PORT: String(port), HOST: "127.0.0.1" })).toBe(`Settings valid; a server (pid ${server.pid}) runs on this DATA_DIR, listening on 127.0.0.1:${port}`);
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  expect(await preflight(dataDir)).toBe("Settings valid; will listen on 0.0.0.0:8080");
}, 60_000);

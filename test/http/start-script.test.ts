// `bun start` (the Quick start's way to run the appliance from a checkout) lets request heads through
// up to the compiled binary's 64 KiB ceiling, so that oversized headers get the app's own 431 in the
// error envelope with a request id, not Bun's bare 431 (which it answers above 16 KiB by default).
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, tempDir } from "../support/app";

const ROOT = join(import.meta.dir, "../..");
const start = (await Bun.file(join(ROOT, "package.json")).json()).scripts.start as string;
const servers: ReturnType<typeof Bun.spawn>[] = [];
afterAll(() => servers.forEach((s) => s.kill("SIGKILL")));

// With WORKERS=2 the supervisor starts the processes that answer; they need the same runtime flag.
test.each(["1", "2"])("the start script with WORKERS=%s answers 20 KiB of headers with the envelope's 431", async (workers) => {
  const [command, ...args] = start.split(" ");
  expect(command).toBe("bun");
  const port = freePort();
  servers.push(
    Bun.spawn([process.execPath, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: tempDir(), HOST: "127.0.0.1", PORT: String(port), WORKERS: workers, LOG_LEVEL: "error" },
      stdout: "ignore",
      stderr: "ignore",
    }),
  );
  const url = `http://127.0.0.1:${port}/health`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) break;
    await Bun.sleep(100);
  }
  // Several connections, so that each worker gets some.
  for (let i = 0; i < 8; i++) {
    const res = await fetch(url, { headers: { "x-padding": "p".repeat(20 * 1024), connection: "close" } });
    expect(res.status).toBe(431);
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(await res.json()).toMatchObject({ error: { code: "BAD_REQUEST" } });
  }
}, 60_000);

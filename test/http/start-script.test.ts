// `bun start` (the Quick start's way to run the appliance from a checkout) lets request heads through
// up to the compiled binary's 64 KiB ceiling, so that oversized headers get the app's own 431 in the
// error envelope with a request id, not Bun's bare 431 (which it answers above 16 KiB by default).
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { freePort, tempDir } from "../support/app";

const ROOT = join(import.meta.dir, "../..");
const start = (await Bun.file(join(ROOT, "package.json")).json()).scripts.start as string;
let server: ReturnType<typeof Bun.spawn> | null = null;
afterAll(() => server?.kill("SIGKILL"));

test("the start script answers 20 KiB of headers with the envelope's 431", async () => {
  const [command, ...args] = start.split(" ");
  expect(command).toBe("bun");
  const port = freePort();
  server = Bun.spawn([process.execPath, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: tempDir(), HOST: "127.0.0.1", PORT: String(port), WORKERS: "1", LOG_LEVEL: "error" },
    stdout: "ignore",
    stderr: "ignore",
  });
  const url = `http://127.0.0.1:${port}/health`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(url).then((r) => r.ok, () => false)) break;
    await Bun.sleep(100);
  }
  const res = await fetch(url, { headers: { "x-padding": "p".repeat(20 * 1024) } });
  expect(res.status).toBe(431);
  expect(res.headers.get("x-request-id")).toBeTruthy();
  expect(await res.json()).toMatchObject({ error: { code: "BAD_REQUEST" } });
}, 60_000);

// `mapstead serve` from source without Bun's raised request-head limit (a plain `bun src/main.ts serve`)
// says so in its log, with the fix: otherwise a long URL meets Bun's bare 431 with no word why.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { answersHealth, freePort, tempDir } from "../support/app";

const MAIN = join(import.meta.dir, "../../src/main.ts");

/** The log lines of a server started with `bunFlags`, read until it listens, and its answer to a 20 KiB URL. */
async function startAndAsk(bunFlags: string[]): Promise<{ lines: { msg: string; fix?: string }[]; longUrl: number }> {
  const port = freePort();
  const env = { ...process.env, NO_COLOR: "1", LOG_LEVEL: "warn", MAPSTEAD_ENV_FILE: "none", DATA_DIR: join(tempDir("mapstead-headers-"), "data"), PORT: String(port), HOST: "127.0.0.1" };
  const server = Bun.spawn(["bun", ...bunFlags, MAIN, "serve"], { env, stdout: "pipe", stderr: "ignore" });
  try {
    expect(await answersHealth(port)).toBe(true);
    const longUrl = (await fetch(`http://127.0.0.1:${port}/health?pad=${"x".repeat(20 * 1024)}`)).status;
    // The port answers before the start-up lines are written: read until the "listening" line, which
    // the warning follows at once (a warning also flushes the lines before it).
    let out = "";
    const reader = server.stdout.getReader();
    const decoder = new TextDecoder();
    const until = Date.now() + 10_000;
    while (!out.includes('"msg":"listening"') && Date.now() < until) {
      const chunk = await Promise.race([reader.read(), Bun.sleep(200).then(() => null)]);
      if (chunk?.done) break;
      if (chunk?.value) out += decoder.decode(chunk.value, { stream: true });
    }
    // Anything already written with it (the warning is written in the same turn).
    await Bun.sleep(100);
    const rest = await Promise.race([reader.read(), Bun.sleep(100).then(() => null)]);
    if (rest?.value) out += decoder.decode(rest.value);
    reader.releaseLock();
    return { lines: out.split("\n").filter((l) => l.startsWith("{") && l.endsWith("}")).map((l) => JSON.parse(l)), longUrl };
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}

test("without --max-http-header-size the log warns and names the fix; with it, no warning and long URLs are answered", async () => {
  const plain = await startAndAsk([]);
  expect(plain.longUrl).toBe(431);
  const warning = plain.lines.find((l) => l.msg === "started without --max-http-header-size");
  expect(warning?.fix).toContain("bun start");

  const raised = await startAndAsk(["--max-http-header-size=65536"]);
  expect(raised.longUrl).toBe(200);
  expect(raised.lines.some((l) => l.msg === "started without --max-http-header-size")).toBe(false);
}, 60_000);

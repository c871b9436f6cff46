// Runs the CLI from source against one data directory, as an operator would on the machine.
import { join } from "node:path";

const MAIN = join(import.meta.dir, "../../src/main.ts");

export function runCli(dataDir: string, ...args: string[]) {
  const r = Bun.spawnSync(["bun", MAIN, ...args, "--data-dir", dataDir, "--public-url", "https://maps.example.com"], {
    env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

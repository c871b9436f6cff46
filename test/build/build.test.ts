// `bun run build`: one executable per release target, each for the right CPU, from locked runtimes.
import { expect, test } from "bun:test";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { TARGETS } from "../../scripts/build";

const ROOT = resolve(import.meta.dir, "..", "..");

function elfMachine(path: string): number {
  const fd = openSync(path, "r");
  const header = Buffer.alloc(20);
  readSync(fd, header, 0, 20, 0);
  closeSync(fd);
  expect(header.toString("latin1", 0, 4)).toBe("\x7fELF");
  return header.readUInt16LE(18);
}

test(
  "bun run build writes dist/mapstead-linux-x64, -x64-baseline and -arm64 for their CPUs",
  () => {
    const r = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const output = r.stdout.toString() + r.stderr.toString();
    expect(output).not.toContain("Not built");
    expect(r.exitCode).toBe(0);
    expect(TARGETS.map((t) => t.name)).toEqual(["linux-x64", "linux-x64-baseline", "linux-arm64"]);
    for (const target of TARGETS) {
      const file = join(ROOT, "dist", `mapstead-${target.name}`);
      expect(statSync(file).mode & 0o111).not.toBe(0);
      expect(elfMachine(file)).toBe(target.elfMachine);
      expect(output).toContain(`built dist/mapstead-${target.name}`);
    }
    if (process.arch === "x64") {
      for (const name of ["linux-x64", "linux-x64-baseline"]) {
        const v = Bun.spawnSync([join(ROOT, "dist", `mapstead-${name}`), "version"], { cwd: "/" });
        expect(v.stdout.toString()).toStartWith("mapstead ");
      }
    }
  },
  180_000,
);

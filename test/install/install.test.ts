// install.sh into a temp prefix: install twice (idempotent, settings kept), uninstall (data kept),
// purge; and shellcheck on the script.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ensureBinary } from "../support/binary";
import { tempDir } from "../support/app";
import { SETTINGS } from "../../src/config";
import { migrations } from "../../drizzle/index";

const SCRIPT = resolve(import.meta.dir, "..", "..", "install.sh");
let binary: string;

beforeAll(async () => {
  binary = await ensureBinary();
}, 120_000);

function install(args: string[]) {
  const r = Bun.spawnSync(["bash", SCRIPT, ...args], { cwd: tempDir("mapstead-install-cwd-"), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

test("install.sh is shellcheck-clean", () => {
  const r = Bun.spawnSync(["shellcheck", "--severity=style", SCRIPT], { stdout: "pipe", stderr: "pipe" });
  expect(r.stdout.toString() + r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
}, 60_000);

test("install.sh makes no network access", () => {
  const text = readFileSync(SCRIPT, "utf8");
  expect(text).not.toMatch(/\b(curl|wget|apt-get|npm|bun install|git clone|nc)\b/);
}, 60_000);

describe("a prefix install", () => {
  const prefix = tempDir("mapstead-install-");
  const at = (p: string) => join(prefix, p);

  test("installs the binary, settings, data dir and a hardened unit, then runs migrate and preflight", () => {
    const r = install(["--prefix", prefix, "--binary", binary]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(statSync(at("usr/local/bin/mapstead")).mode & 0o777).toBe(0o755);
    expect(Bun.spawnSync([at("usr/local/bin/mapstead"), "version"]).stdout.toString()).toStartWith("mapstead ");
    expect(existsSync(at("var/lib/mapstead/mapstead.db"))).toBe(true);
    expect(r.stdout).toContain(`Applied ${migrations.length} migration(s)`);
    expect(r.stdout).toMatch(/pass\s+migrations/);
    expect(r.stdout).toContain("Nothing failed");

    const env = readFileSync(at("etc/mapstead/mapstead.env"), "utf8");
    expect(env).toMatch(/^DATA_DIR=\/var\/lib\/mapstead$/m);
    for (const s of SETTINGS) if (s.name !== "DATA_DIR") expect(env).toMatch(new RegExp(`^#${s.name}=`, "m"));
    expect(statSync(at("etc/mapstead/mapstead.env")).mode & 0o777).toBe(0o640);

    const unit = readFileSync(at("etc/systemd/system/mapstead.service"), "utf8");
    for (const line of [
      "User=mapstead",
      "EnvironmentFile=/etc/mapstead/mapstead.env",
      "ExecStart=/usr/local/bin/mapstead serve",
      "NoNewPrivileges=yes",
      "ProtectSystem=strict",
      "ReadWritePaths=/var/lib/mapstead",
      "Restart=on-failure",
      "RestartPreventExitStatus=2",
      "ProtectHome=yes",
      "PrivateTmp=yes",
      "CapabilityBoundingSet=",
    ])
      expect(unit).toMatch(new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`, "m"));
    expect(unit).not.toContain(prefix);
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute/m);
  }, 60_000);

  test("running it again is harmless: the operator's settings and the data are kept", () => {
    const envPath = at("etc/mapstead/mapstead.env");
    writeFileSync(envPath, readFileSync(envPath, "utf8").replace("#LOG_LEVEL=info", "LOG_LEVEL=warn"));
    const dbBefore = statSync(at("var/lib/mapstead/mapstead.db")).ino;
    const r = install(["--prefix", prefix, "--binary", binary]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("kept existing settings");
    expect(r.stdout).toContain("Database is current");
    expect(readFileSync(envPath, "utf8")).toContain("\nLOG_LEVEL=warn\n");
    expect(statSync(at("var/lib/mapstead/mapstead.db")).ino).toBe(dbBefore);
  }, 60_000);

  test("--uninstall removes the binary and unit but keeps settings and data", () => {
    const r = install(["--prefix", prefix, "--uninstall"]);
    expect(r.exitCode).toBe(0);
    expect(existsSync(at("usr/local/bin/mapstead"))).toBe(false);
    expect(existsSync(at("etc/systemd/system/mapstead.service"))).toBe(false);
    expect(existsSync(at("var/lib/mapstead/mapstead.db"))).toBe(true);
    expect(existsSync(at("etc/mapstead/mapstead.env"))).toBe(true);
  }, 60_000);

  test("--uninstall --purge removes settings and data too", () => {
    const r = install(["--prefix", prefix, "--uninstall", "--purge"]);
    expect(r.exitCode).toBe(0);
    expect(existsSync(at("var/lib/mapstead"))).toBe(false);
    expect(existsSync(at("etc/mapstead"))).toBe(false);
  }, 60_000);
});

describe("options and mistakes", () => {
  test("--no-systemd writes no unit", () => {
    const prefix = tempDir("mapstead-install-");
    const r = install(["--prefix", prefix, "--no-systemd", "--binary", binary]);
    expect(r.exitCode).toBe(0);
    expect(existsSync(join(prefix, "usr/local/bin/mapstead"))).toBe(true);
    expect(existsSync(join(prefix, "etc/systemd/system/mapstead.service"))).toBe(false);
  }, 60_000);

  test("a missing or foreign binary is refused before anything is replaced", () => {
    const prefix = tempDir("mapstead-install-");
    const missing = install(["--prefix", prefix, "--binary", join(prefix, "nope")]);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("not found");
    const fake = join(prefix, "fake");
    writeFileSync(fake, "#!/bin/sh\necho hello\n", { mode: 0o755 });
    const foreign = install(["--prefix", prefix, "--binary", fake]);
    expect(foreign.exitCode).toBe(1);
    expect(foreign.stderr).toContain("not a mapstead binary");
    expect(existsSync(join(prefix, "usr/local/bin/mapstead"))).toBe(false);
  }, 60_000);

  test("a file that does not run is named for what it is: a saved web page, another CPU's build, a cut-off copy", () => {
    const prefix = tempDir("mapstead-install-");
    const refused = (content: Uint8Array | string) => {
      const file = join(prefix, "mapstead-linux-x64");
      writeFileSync(file, content, { mode: 0o755 });
      const r = install(["--prefix", prefix, "--binary", file]);
      expect(r.exitCode).toBe(1);
      return r.stderr;
    };
    expect(refused("<!DOCTYPE html>\n<html><head><title>Releases</title>")).toContain("is an HTML page, not a program");
    expect(refused("PK\u0003\u0004 not a program")).toContain("is not a Linux executable");
    // An ELF header whose machine field (byte 18) names a CPU that is not this one.
    const elf = new Uint8Array(64);
    elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    const here = process.arch === "arm64" ? "aarch64" : "x86_64";
    elf[18] = here === "x86_64" ? 0xb7 : 0x3e;
    expect(refused(elf)).toContain(`is built for ${here === "x86_64" ? "aarch64" : "x86_64"}, and this machine is`);
    // The first kilobytes of a real executable of this machine: a copy cut off on the way.
    expect(refused(readFileSync(process.execPath).subarray(0, 4096))).toContain("does not run here; check that it was copied whole");
    expect(existsSync(join(prefix, "usr/local/bin/mapstead"))).toBe(false);
  }, 60_000);

  test("unknown options exit 2; --help explains", () => {
    const bad = install(["--frobnicate"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--frobnicate");
    const purgeAlone = install(["--prefix", tempDir(), "--purge"]);
    expect(purgeAlone.exitCode).toBe(2);
    const help = install(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("--prefix DIR");
    expect(help.stdout).toContain("--uninstall");
  }, 60_000);
});

test("a binary copied without its execute bit installs (it gets one), instead of being blamed on the CPU", () => {
  const copy = join(tempDir("mapstead-install-noexec-"), "mapstead");
  writeFileSync(copy, readFileSync(binary));
  chmodSync(copy, 0o644);
  const prefix = tempDir("mapstead-install-noexec-prefix-");
  const r = install(["--prefix", prefix, "--binary", copy]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  expect(statSync(join(prefix, "usr/local/bin/mapstead")).mode & 0o777).toBe(0o755);
}, 120_000);

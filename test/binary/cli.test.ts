// The compiled binary's command line: help, version, settings errors, migrate and preflight exit codes.
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runBinary } from "../support/binary";
import { tempDir } from "../support/app";
import pkg from "../../package.json";
import { migrations } from "../../drizzle/index";

beforeAll(async () => {
  await ensureBinary();
}, 120_000);

const dataDir = () => join(tempDir("mapstead-cli-"), "data");

describe("help and version", () => {
  test("mapstead --help lists the commands and the settings", async () => {
    const r = await runBinary(["--help"]);
    expect(r.exitCode).toBe(0);
    for (const cmd of ["serve", "migrate", "preflight", "version"]) expect(r.stdout).toMatch(new RegExp(`^  ${cmd}\\s`, "m"));
    for (const flag of ["--public-url", "--port", "--data-dir", "--geocoder-internal-url", "--log-level"]) expect(r.stdout).toContain(flag);
  }, 60_000);

  test("mapstead serve --help explains serve without starting it", async () => {
    const r = await runBinary(["serve", "--help"], { timeoutMs: 5000 });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toStartWith("Usage: mapstead serve");
    expect(r.stdout).toContain("--data-dir");
  }, 60_000);

  test("every command has its own --help", async () => {
    for (const cmd of ["migrate", "preflight", "version"]) {
      const r = await runBinary([cmd, "--help"]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toStartWith(`Usage: mapstead ${cmd}`);
    }
  }, 60_000);

  test("mapstead version and --version print the version", async () => {
    for (const args of [["version"], ["--version"]]) {
      const r = await runBinary(args, { timeoutMs: 5000 });
      expect(r.exitCode).toBe(0);
      // The commit the test binary was built from (a development tree may have changes: ".dirty").
      expect(r.stdout.trim()).toMatch(new RegExp(`^mapstead ${pkg.version.replaceAll(".", "\\.")}\\+[0-9a-f]{12}(\\.dirty)? \\(bun 1\\.4\\.4\\)$`));
    }
  }, 60_000);

  test("an unknown command or option exits 2 with one line", async () => {
    const cmd = await runBinary(["frobnicate"]);
    expect(cmd.exitCode).toBe(2);
    expect(cmd.stderr.trim().split("\n")).toHaveLength(1);
    expect(cmd.stderr).toContain("frobnicate");
    const opt = await runBinary(["preflight", "--jsno"], { env: { DATA_DIR: dataDir() } });
    expect(opt.exitCode).toBe(2);
    expect(opt.stderr.trim()).toBe("mapstead preflight: unknown option or argument '--jsno'; see --help");
    const version = await runBinary(["version", "--foo"]);
    expect([version.exitCode, version.stderr.trim()]).toEqual([2, "mapstead version: unknown option or argument '--foo'; see --help"]);
    // Subcommands that parse options say it the same way, in one line.
    const sub = await runBinary(["orgs", "list", "--bogus"], { env: { DATA_DIR: dataDir() } });
    expect(sub.exitCode).toBe(2);
    expect(sub.stderr.trim()).toBe("mapstead orgs: unknown option '--bogus'; see --help");
  }, 60_000);

  test("settings typed before the command apply to it, as after it", async () => {
    const dir = dataDir();
    expect((await runBinary(["--data-dir", dir, "orgs", "create", "--slug", "acme"])).exitCode).toBe(0);
    const listed = await runBinary(["--data-dir=" + dir, "--log-level", "warn", "orgs", "list", "--json"]);
    expect(listed.exitCode).toBe(0);
    expect((JSON.parse(listed.stdout) as { slug: string }[]).map((o) => o.slug)).toEqual(["acme"]);
    // A command name given as a setting's value is that value, not the command.
    const value = await runBinary(["--data-dir", "orgs", "version"], { timeoutMs: 5000 });
    expect([value.exitCode, value.stdout.startsWith("mapstead ")]).toEqual([0, true]);
    // A typo before the command is the command's usage error, not `serve`'s.
    const typo = await runBinary(["--data-dri", dir, "orgs", "list"]);
    expect([typo.exitCode, typo.stderr.trim()]).toEqual([2, "mapstead orgs: unknown option '--data-dri'; see --help"]);
  }, 60_000);

  test("files that are not there are named as such, without a system error or an internal path", async () => {
    const dir = dataDir();
    const style = await runBinary(["styles", "create", "--org", "acme", "--slug", "s", "/nonexistent/style.json"], { env: { DATA_DIR: dir } });
    expect(style.exitCode).toBe(2);
    expect(style.stderr.trim()).toBe("mapstead styles: /nonexistent/style.json does not exist");
    for (const [args, group] of [[["fonts", "add", "/nonexistent/font.ttf"], "fonts"], [["gazetteer", "import", "/nonexistent/allCountries.zip"], "gazetteer"], [["tilesets", "import", "--org", "acme", "--slug", "p", "/nonexistent/p.geojson"], "tilesets"]] as const) {
      const r = await runBinary([...args], { env: { DATA_DIR: dir } });
      expect(r.stderr.trim()).toBe(`mapstead ${group}: ${args[args.length - 1]} does not exist`);
    }
    const folder = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "p", import.meta.dir], { env: { DATA_DIR: dir } });
    expect(folder.stderr.trim()).toBe(`mapstead tilesets: ${import.meta.dir} is a directory; name the file itself`);
    const out = await runBinary(["tilesets", "export", "--org", "acme", "--slug", "places", "/nonexistent/out.mbtiles"], { env: { DATA_DIR: dir } });
    expect(out.exitCode).toBe(2);
    expect(out.stderr.trim()).toBe("mapstead tilesets: /nonexistent/out.mbtiles: the directory /nonexistent does not exist");
  }, 60_000);
});

describe("bad settings", () => {
  const cases: { env?: Record<string, string>; args?: string[]; setting: string; accepts: string }[] = [
    { env: { PORT: "eighty" }, setting: "PORT", accepts: "an integer from 0 to 65535" },
    { args: ["--port", "70000"], setting: "PORT", accepts: "an integer from 0 to 65535" },
    { env: { PUBLIC_URL: "maps.example.com" }, setting: "PUBLIC_URL", accepts: "an http(s) origin, scheme://host[:port]" },
    { args: ["--geocoder-internal-url=ftp://pelias/v1"], setting: "GEOCODER_INTERNAL_URL", accepts: "http(s)" },
    { env: { LOG_LEVEL: "loud" }, setting: "LOG_LEVEL", accepts: "one of debug, info, warn, error" },
    { env: { TRUST_PROXY: "maybe" }, setting: "TRUST_PROXY", accepts: "true or false" },
  ];
  for (const c of cases) {
    test(`${c.setting} ${JSON.stringify(c.env ?? c.args)} exits 2 naming the setting and what it accepts`, async () => {
      const r = await runBinary(["serve", ...(c.args ?? [])], { env: { DATA_DIR: dataDir(), ...c.env }, timeoutMs: 5000 });
      expect(r.exitCode).toBe(2);
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith(`mapstead: ${c.setting}`);
      expect(lines[0]).toContain(c.accepts);
      expect(r.stdout).toBe("");
    });
  }

  test("a flag without its value exits 2", async () => {
    const r = await runBinary(["serve", "--data-dir"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe("mapstead serve: --data-dir needs a value");
  }, 60_000);
});

describe("migrate", () => {
  test("applies the embedded migrations once, then reports the database current", async () => {
    const dir = dataDir();
    const first = await runBinary(["migrate", "--data-dir", dir]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain(`Applied ${migrations.length} migration(s): ${migrations.map((m) => m.tag).join(", ")}`);
    const again = await runBinary(["migrate"], { env: { DATA_DIR: dir } });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain(`Database is current (${migrations.length} migration(s) applied)`);
  }, 60_000);
});

describe("preflight", () => {
  test("a HOST name that resolves to nothing fails the config check before serve would fail on it", async () => {
    // .invalid never resolves (RFC 2606).
    const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dataDir(), HOST: "notahost.invalid" } });
    expect(r.exitCode).toBe(1);
    const config = JSON.parse(r.stdout).checks[0];
    expect(config).toMatchObject({ id: "config", status: "fail", message: "HOST=notahost.invalid does not resolve to an address, so serve cannot listen on it" });
    expect(config.fix).toContain("0.0.0.0");
  }, 60_000);

  test("a port another program holds fails the config check, naming it, before serve would crash on it", async () => {
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("other") });
    try {
      const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dataDir(), HOST: "127.0.0.1", PORT: String(other.port) } });
      expect(r.exitCode).toBe(1);
      const config = JSON.parse(r.stdout).checks[0];
      expect(config).toMatchObject({ id: "config", status: "fail", message: `Port ${other.port} is already in use on 127.0.0.1 by another program` });
      expect(config.fix).toContain("set PORT to a free port");
    } finally {
      other.stop(true);
    }
  }, 60_000);

  test("a localhost PUBLIC_URL naming another port than the server's is a warning", async () => {
    const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dataDir(), HOST: "127.0.0.1", PORT: "18160", PUBLIC_URL: "http://localhost:18999" } });
    expect(r.exitCode).toBe(0);
    const publicUrl = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === "public_url");
    expect(publicUrl).toMatchObject({ status: "warn", message: "PUBLIC_URL is http://localhost:18999, port 18999, while the server listens on port 18160: the URLs in TileJSON and style documents point at port 18999" });
    expect(publicUrl.fix).toBe("Set PUBLIC_URL=http://localhost:18160, or leave PUBLIC_URL unset on a single machine");
  }, 60_000);

  test("--json with a bad setting still prints a report (its config check failing, naming it) and exits 2", async () => {
    const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dataDir(), PORT: "eighty" } });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      checks: [{ id: "config", status: "fail", message: 'PORT="eighty" is invalid: expected an integer from 0 to 65535', fix: "Correct PORT in the environment, the settings file or its --flag" }],
    });
  });

  test("--json on a migrated data dir: exit 0, every check with a fix when not passing", async () => {
    const dir = dataDir();
    await runBinary(["migrate"], { env: { DATA_DIR: dir } });
    const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dir, HOST: "127.0.0.1" } });
    expect(r.exitCode).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(true);
    const ids = report.checks.map((c: { id: string }) => c.id);
    expect(ids).toEqual(["config", "public_url", "data_dir", "disk_space", "sqlite", "migrations", "admin", "archives", "sprites", "fonts", "geocoder", "elevation", "router"]);
    // Nothing listens during `mapstead preflight`: it checks what serve will do.
    expect(report.checks[0].message).toBe("Settings valid; will listen on 127.0.0.1:8080");
    for (const c of report.checks) {
      expect(["pass", "warn", "fail"]).toContain(c.status);
      if (c.status !== "pass") expect(c.fix.length).toBeGreaterThan(10);
    }
    expect(report.checks.find((c: { id: string }) => c.id === "migrations").status).toBe("pass");
    expect(report.checks.find((c: { id: string }) => c.id === "admin").status).toBe("warn");
  }, 60_000);

  test("exits 1 when a check fails: pending migrations and a dead geocoder", async () => {
    const dir = dataDir();
    // A database no migration has run on (a new DATA_DIR without one is left alone: see the next test).
    mkdirSync(dir, { recursive: true });
    new Database(join(dir, "mapstead.db")).close();
    const r = await runBinary(["preflight", "--json", "--geocoder-internal-url", "http://127.0.0.1:9/v1"], { env: { DATA_DIR: dir } });
    expect(r.exitCode).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.ok).toBe(false);
    const byId = Object.fromEntries(report.checks.map((c: { id: string; status: string }) => [c.id, c]));
    expect(byId.migrations.status).toBe("fail");
    expect(byId.migrations.fix).toContain("mapstead migrate");
    expect(byId.geocoder.status).toBe("fail");
    expect(byId.geocoder.fix).toContain("127.0.0.1:9");
  }, 60_000);

  test("a new DATA_DIR is checked without being made: exit 0, the first start creates it", async () => {
    const dir = dataDir();
    const r = await runBinary(["preflight", "--json"], { env: { DATA_DIR: dir, HOST: "127.0.0.1" } });
    expect(r.exitCode).toBe(0);
    const byId = Object.fromEntries(JSON.parse(r.stdout).checks.map((c: { id: string; status: string; message: string }) => [c.id, c]));
    expect(byId.data_dir).toMatchObject({ status: "pass", message: expect.stringContaining("does not exist yet; the first start creates it") });
    expect(byId.sqlite).toMatchObject({ status: "pass", message: expect.stringContaining("No database in DATA_DIR yet") });
    expect(byId.admin.status).toBe("warn");
    expect(byId.admin.fix).toContain("DATA_DIR/setup-token");
    expect(existsSync(dir)).toBe(false);
  }, 60_000);

  test("an unusable DATA_DIR is reported as failing checks, not a crash", async () => {
    if (process.getuid?.() === 0) {
      // root ignores permissions; a DATA_DIR under a regular file cannot be created by anyone.
      const parent = tempDir("mapstead-cli-");
      await Bun.write(join(parent, "file"), "x");
      const r = await runBinary(["preflight"], { env: { DATA_DIR: join(parent, "file", "data") } });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/fail\s+data_dir/);
      expect(r.stdout).toMatch(/fail\s+sqlite/);
      expect(r.stdout).toContain("check(s) failed");
    } else {
      const dir = dataDir();
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o500);
      const r = await runBinary(["preflight"], { env: { DATA_DIR: dir } });
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/fail\s+data_dir/);
    }
  }, 60_000);

  test("a DATA_DIR that is a file fails the data_dir check (a file is writable, but holds nothing) and commands say so", async () => {
    const file = join(tempDir("mapstead-cli-"), "file");
    await Bun.write(file, "x");
    const r = await runBinary(["preflight"], { env: { DATA_DIR: file } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/fail\s+data_dir\s+DATA_DIR \S+ is not writable \(it is a file, not a directory\)/);
    expect(r.stdout).toMatch(/fail\s+sqlite\s+The database in DATA_DIR could not be opened: DATA_DIR \S+ is a file, not a directory\n\s+fix: Point DATA_DIR at a directory \(it is created when missing\)/);
    expect(r.stdout).not.toContain("EEXIST");
    const orgs = await runBinary(["orgs", "list"], { env: { DATA_DIR: file } });
    expect(orgs.exitCode).toBe(1);
    expect(orgs.stderr.trim()).toBe(`mapstead: DATA_DIR ${file} is a file, not a directory; point DATA_DIR at a directory (it is created when missing)`);
  }, 60_000);

  test("the human summary is plain text without colour codes when not on a terminal", async () => {
    const dir = dataDir();
    await runBinary(["migrate"], { env: { DATA_DIR: dir } });
    const r = await runBinary(["preflight"], { env: { DATA_DIR: dir, HOST: "127.0.0.1" } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain("\x1b[");
    expect(r.stdout).toMatch(/pass\s+migrations\s+Database schema current/);
    expect(r.stdout).toContain("Nothing failed");
  }, 60_000);
});

describe("embedded worker", () => {
  test("tile processing runs in the worker thread compiled into the binary, from any cwd", async () => {
    const dir = dataDir();
    const cwd = tempDir("mapstead-cli-");
    const geojson = join(cwd, "points.geojson");
    await Bun.write(geojson, JSON.stringify({ type: "FeatureCollection", features: [{ type: "Feature", geometry: { type: "Point", coordinates: [7.9, 46.5] }, properties: { name: "a" } }] }));
    expect((await runBinary(["orgs", "create", "--slug", "acme"], { env: { DATA_DIR: dir }, cwd })).exitCode).toBe(0);
    const r = await runBinary(["tilesets", "import", "--org", "acme", "--slug", "pts", "--create", geojson], { env: { DATA_DIR: dir }, cwd, timeoutMs: 60_000 });
    expect(r.stdout + r.stderr).not.toContain("failed");
    expect(r.stdout).toContain("Ready: acme/pts v1");
    // Not published: its URL works for the organization only, and the output says so.
    expect(r.stdout).toContain("/tiles/v1/acme/pts@1.json (members only until published: mapstead tilesets publish --org acme --slug pts --version 1)");
    expect(r.exitCode).toBe(0);
  }, 60_000);
});

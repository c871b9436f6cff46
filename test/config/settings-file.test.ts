// The installed settings file (/etc/mapstead/mapstead.env, or MAPSTEAD_ENV_FILE): every command reads it,
// under the environment and flags, so commands run by hand on a server use the service's settings.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { environmentNotes, readSettingsFile } from "../../src/settings-file";
import { SETTINGS } from "../../src/config";
import { tempDir } from "../support/temp";

const KNOWN = new Set(SETTINGS.map((s) => s.name));
const MAIN = join(import.meta.dir, "../../src/main.ts");

/** Runs the CLI from source with only the environment given (no --data-dir: the file must supply it). */
function cli(env: Record<string, string>, ...args: string[]) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !KNOWN.has(k) && k !== "MAPSTEAD_ENV_FILE"));
  const r = Bun.spawnSync(["bun", MAIN, ...args], { env: { ...base, NO_COLOR: "1", LOG_LEVEL: "error", ...env }, stdout: "pipe", stderr: "pipe", cwd: tempDir("mapstead-cwd-") });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("the settings file", () => {
  test("install.sh's format: comments, quotes, export; names it does not know are noted, not taken", () => {
    const dir = tempDir("mapstead-envfile-");
    const path = join(dir, "mapstead.env");
    writeFileSync(path, ["# a comment", "", "DATA_DIR=/var/lib/mapstead", 'PUBLIC_URL="https://maps.example.com"  # where people open it, "quoted" too', "export PORT='9090'", "#HOST=0.0.0.0", "LOG_LEVEL=warn # inline comment", "DATADIR=/typo", "not a setting line"].join("\n"));
    const file = readSettingsFile(path, KNOWN);
    // A quoted value is what is between the quotes; a comment after it is dropped.
    expect(file.values).toEqual({ DATA_DIR: "/var/lib/mapstead", PUBLIC_URL: "https://maps.example.com", PORT: "9090", LOG_LEVEL: "warn" });
    expect(file.notes).toEqual([`${path} line 8: DATADIR is not a Mapstead setting (did you mean DATA_DIR?); it is ignored`, `${path} line 9 is not NAME=value; it is ignored`]);
  });

  test("a command takes DATA_DIR and PUBLIC_URL from it; the environment wins over it", () => {
    const dir = tempDir("mapstead-envfile-");
    const dataDir = join(dir, "data");
    const path = join(dir, "mapstead.env");
    writeFileSync(path, `DATA_DIR=${dataDir}\nPUBLIC_URL=https://maps.example.com\n`);
    const created = cli({ MAPSTEAD_ENV_FILE: path }, "orgs", "create", "--slug", "acme", "--name", "Acme");
    expect(created.code).toBe(0);
    // The database went where the file says, not into ./data of the working directory.
    expect(created.err).toContain(`created a new database in DATA_DIR ${dataDir}`);
    const listed = cli({ MAPSTEAD_ENV_FILE: path }, "orgs", "list", "--json");
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out).map((o: { slug: string }) => o.slug)).toEqual(["acme"]);
    const preflight = cli({ MAPSTEAD_ENV_FILE: path }, "preflight", "--json");
    expect(JSON.stringify(JSON.parse(preflight.out))).toContain("https://maps.example.com");
    // The environment wins: another DATA_DIR, with no database.
    const other = cli({ MAPSTEAD_ENV_FILE: path, DATA_DIR: join(dir, "other") }, "orgs", "list", "--json");
    expect(other.code).toBe(1);
    expect(other.err).toContain(`DATA_DIR ${join(dir, "other")} has no Mapstead database`);
  });

  test("a named file that is missing is said on stderr; MAPSTEAD_ENV_FILE=none reads none", () => {
    const missing = join(tempDir("mapstead-envfile-"), "nope.env");
    expect(readSettingsFile(missing, KNOWN).notes).toEqual([`cannot read the settings file ${missing} (it does not exist); its settings are not applied`]);
    expect(readSettingsFile("none", KNOWN)).toEqual({ path: null, values: {}, notes: [] });
    const r = cli({ MAPSTEAD_ENV_FILE: missing, DATA_DIR: join(tempDir("mapstead-envfile-"), "d") }, "migrate");
    expect(r.code).toBe(0);
    expect(r.err).toContain(`mapstead: cannot read the settings file ${missing}`);
  });
});

describe("the environment", () => {
  test("a name meant for Mapstead but not one of its settings is named, with the setting it is near; other programs' are not", () => {
    const names = ["ROUTING_INTERNAL_URLS", "GEOCODER_URL", "DATADIR", "PUBLIC_URL", "HOME", "HOSTNAME", "PATH", "PWD", "LOGNAME", "XDG_DATA_HOME", "TERM_PROGRAM"];
    expect(environmentNotes(names, KNOWN)).toEqual([
      "ROUTING_INTERNAL_URLS in the environment is not a Mapstead setting (did you mean ROUTING_INTERNAL_URL?); it is ignored (the README's Settings table lists them)",
      "GEOCODER_URL in the environment is not a Mapstead setting; it is ignored (the README's Settings table lists them)",
      "DATADIR in the environment is not a Mapstead setting (did you mean DATA_DIR?); it is ignored (the README's Settings table lists them)",
    ]);
  });

  test("every command says so on stderr, and still runs", () => {
    const r = cli({ MAPSTEAD_ENV_FILE: "none", DATA_DIR: join(tempDir("mapstead-envfile-"), "d"), ROUTING_INTERNAL_URLS: "http://osrm:5000" }, "migrate");
    expect(r.code).toBe(0);
    expect(r.err).toContain("mapstead: ROUTING_INTERNAL_URLS in the environment is not a Mapstead setting (did you mean ROUTING_INTERNAL_URL?)");
    expect(r.err).not.toContain("HOME in the environment");
  });
});

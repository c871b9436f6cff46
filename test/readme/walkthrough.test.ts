// The README's "From zero to a published map" walkthrough, run as written: the `mapstead` command comes
// from `bun run link-cli` (as the Quick start says), each shell line runs in a fresh directory, and the
// map it publishes is then served by an app on the same data directory.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../support/app";

const ROOT = join(import.meta.dir, "../..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const section = readme.slice(readme.indexOf("## From zero to a published map"));
const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2]! }));
const work = tempDir("mapstead-readme-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("README walkthrough", () => {
  test("link-cli --help shows its usage and writes nothing; an unknown argument is refused", () => {
    const bin = join(work, "help-bin");
    const help = Bun.spawnSync(["bun", "run", "link-cli", "--help", "--bin-dir", bin], { cwd: ROOT });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toContain("usage: bun run link-cli [--bin-dir DIR]");
    const typo = Bun.spawnSync(["bun", "run", "link-cli", "--bindir", bin], { cwd: ROOT });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr.toString()).toContain("unknown argument '--bindir'");
    expect(existsSync(bin)).toBe(false);
  });

  test("link-cli, then every command of the walkthrough, publishes a map that is served", async () => {
    const bin = join(work, "bin");
    const link = Bun.spawnSync(["bun", "run", "link-cli", "--bin-dir", bin], { cwd: ROOT });
    expect(link.exitCode).toBe(0);

    const shell = blocks.find((b) => b.lang === "sh");
    const style = blocks.find((b) => b.lang === "json");
    expect(shell && style).toBeTruthy();
    const cwd = join(work, "site");
    mkdirSync(cwd);
    writeFileSync(join(cwd, "style.json"), style!.body);
    // The README's own data file: the walkthrough's printed output below is what it gives.
    const places = blocks.find((b) => b.lang === "geojson");
    expect(places).toBeTruthy();
    writeFileSync(join(cwd, "places.geojson"), places!.body);
    const commands = shell!.body.split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
    expect(commands.length).toBeGreaterThanOrEqual(5);
    for (const command of commands) {
      expect(command).toContain("mapstead ");
      const run = Bun.spawnSync(["sh", "-c", command], {
        cwd,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, NO_COLOR: "1", LOG_LEVEL: "error" },
      });
      if (run.exitCode !== 0) throw new Error(`\`${command}\` exited ${run.exitCode}: ${run.stderr.toString()}`);
      // The import prints what the README shows under it (but for the time it took).
      if (command.includes("tilesets import")) {
        const lines = shell!.body.split("\n");
        const shown = lines.slice(lines.indexOf(command) + 1).filter((_, i, rest) => rest.slice(0, i + 1).every((l) => l.startsWith("#   "))).map((l) => l.slice(4));
        const untimed = (text: string) => text.replace(/ in [\d.]+ s$/m, " in T s");
        expect(untimed(run.stdout.toString().trim())).toBe(untimed(shown.join("\n")));
      }
    }

    const app = await makeTestApp({}, { dataDir: join(cwd, "data") });
    try {
      const styleRes = await app.fetch("/styles/v1/acme/basic@1");
      expect(styleRes.status).toBe(200);
      const served = await styleRes.json();
      expect(served.sources.places.url).toBe(`${app.baseUrl}/tiles/v1/acme/places@1.json`);
      expect((await app.fetch("/tiles/v1/acme/places.json")).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});

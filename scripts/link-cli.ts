// `bun run link-cli`: puts a `mapstead` command on the PATH that runs this checkout's CLI, so the README's
// walkthroughs and the hints the app prints (`mapstead admin create ...`) work as written before any
// binary is built or installed. It writes a two-line shell wrapper into npm's global bin directory (where
// `npm install -g bun` put `bun`), or into --bin-dir DIR. An installed binary (install.sh) replaces it.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const MARKER = "# mapstead checkout wrapper";
const main = resolve(import.meta.dir, "../src/main.ts");

function globalBinDir(): string {
  const npm = Bun.spawnSync(["npm", "prefix", "-g"], { stderr: "ignore" });
  const prefix = npm.stdout.toString().trim();
  if (npm.exitCode !== 0 || !prefix) throw new Error("cannot find npm's global prefix; pass --bin-dir DIR (a directory on your PATH)");
  return join(prefix, "bin");
}

const USAGE = `usage: bun run link-cli [--bin-dir DIR]

Writes a \`mapstead\` command (a two-line wrapper running this checkout's src/main.ts with bun) into npm's
global bin directory, beside \`bun\`, or into DIR. A mapstead binary already there is left as it is.`;
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
// Anything else unknown is refused rather than ignored: the script writes outside the checkout.
const unknown = args.filter((a, i) => a !== "--bin-dir" && args[i - 1] !== "--bin-dir");
if (unknown.length || (args.includes("--bin-dir") && !args[args.indexOf("--bin-dir") + 1])) {
  console.error(`link-cli: ${unknown.length ? `unknown argument '${unknown[0]}'` : "--bin-dir needs a directory"}\n${USAGE}`);
  process.exit(2);
}
const flag = process.argv.indexOf("--bin-dir");
const dir = flag > 0 ? resolve(process.argv[flag + 1] ?? ".") : globalBinDir();
const target = join(dir, "mapstead");
// Never overwrite a real mapstead binary (install.sh puts one in /usr/local/bin; another prefix may hold one).
if (existsSync(target) && !readFileSync(target).subarray(0, 200).toString("latin1").includes(MARKER)) {
  console.error(`${target} exists and is not a checkout wrapper; left as it is`);
  process.exit(1);
}
mkdirSync(dir, { recursive: true });
const quoted = `'${main.replaceAll("'", `'\\''`)}'`;
// The header ceiling the compiled binary has (scripts/build.ts), so `mapstead serve` answers oversized
// headers with the app's own 431 envelope, not Bun's bare one.
writeFileSync(target, `#!/bin/sh\n${MARKER}: ${main}\nexec bun --max-http-header-size=65536 ${quoted} "$@"\n`);
chmodSync(target, 0o755);
console.log(`mapstead -> bun ${main}  (${target})`);

// `bun run build`: one self-contained executable per release target in dist/.
//
//   bun run build                         all targets
//   bun run build --target linux-arm64    only the named target(s)
//
// Identifiers are never minified (Elysia reads function and class names at run time); whitespace and
// syntax minification are safe. --bytecode ships precompiled JavaScript bytecode, which roughly halves
// the time from exec to the first answered request. Each binary embeds the Bun runtime of its target,
// taken from the npm packages locked in scripts/runtimes/ (installed on first use with --cpu='*', since
// a plain install skips packages built for another CPU), never the running bun: an npm-installed bun
// may itself be the baseline build. If a runtime cannot be had, the script names the missing target
// and exits 1.
import { existsSync, mkdirSync, openSync, readSync, closeSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const RUNTIMES_DIR = join(ROOT, "scripts", "runtimes");
export const ENTRY = join(ROOT, "src", "main.ts");
export const BUN_VERSION = "1.4.4";
const MAX_HTTP_HEADER_BYTES = 64 * 1024;

export interface Target {
  /** dist/mapstead-<name> */
  name: string;
  /** bun build --target value */
  bunTarget: string;
  /** npm package holding this target's runtime */
  runtimePackage: string;
  /** ELF e_machine of the result: 0x3e x86-64, 0xb7 aarch64 */
  elfMachine: number;
}

export const TARGETS: Target[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", runtimePackage: "@oven/bun-linux-x64", elfMachine: 0x3e },
  { name: "linux-x64-baseline", bunTarget: "bun-linux-x64-baseline", runtimePackage: "@oven/bun-linux-x64-baseline", elfMachine: 0x3e },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", runtimePackage: "@oven/bun-linux-aarch64", elfMachine: 0xb7 },
];

/** The target the running bun itself is (its executable can be embedded as is). */
export function hostTarget(): Target | undefined {
  if (process.platform !== "linux") return undefined;
  if (process.arch === "x64") return TARGETS[0];
  if (process.arch === "arm64") return TARGETS[2];
  return undefined;
}

/**
 * Worker entry points: every `new URL("<file>.ts", import.meta.url)` in src/ names a file that must be
 * compiled in as its own entry point, or `new Worker` finds nothing inside the binary. In the binary
 * an entry point lives at /$bunfs/root/<path relative to src/>, so workers should be started with
 * `new Worker("./tiles/worker-thread.ts")`-style specifiers there (relative to src/).
 */
export function workerEntrypoints(): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name)) {
        for (const m of readFileSync(path, "utf8").matchAll(/new URL\(\s*["'](\.{1,2}\/[^"']+\.tsx?)["']\s*,\s*import\.meta\.url\s*\)/g)) {
          const target = resolve(dirname(path), m[1]!);
          if (existsSync(target)) found.add(target);
        }
      }
    }
  };
  walk(join(ROOT, "src"));
  return [...found].sort();
}

/**
 * The commit being built, for the binary's version (src/build-info.ts): 12 hex digits, ".dirty" when
 * the working tree has changes; null outside a git checkout.
 */
export function buildCommit(): string | null {
  const git = (...a: string[]) => Bun.spawnSync(["git", ...a], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  const head = git("rev-parse", "--short=12", "HEAD");
  if (head.exitCode !== 0) return null;
  const dirty = git("status", "--porcelain", "--untracked-files=no").stdout.toString().trim() !== "";
  return head.stdout.toString().trim() + (dirty ? ".dirty" : "");
}

/** Compiles src/main.ts into `outfile` (written to a temp name first, so a failed build leaves no half file). */
export function compile(opts: { outfile: string; bunTarget?: string; executablePath?: string; quiet?: boolean }): { ok: boolean; output: string } {
  const tmp = `${opts.outfile}.tmp-${process.pid}`;
  const args = [process.execPath, "build", ENTRY, ...workerEntrypoints().map((w) => relative(ROOT, w)), "--compile", "--bytecode", "--minify-whitespace", "--minify-syntax", "--outfile", tmp];
  // Bun's HTTP parser answers a bare 431 above 16 KiB of headers; raising its ceiling lets the app's own
  // 16 KiB check answer in the error envelope with a request id instead.
  args.push(`--compile-exec-argv=--max-http-header-size=${MAX_HTTP_HEADER_BYTES}`);
  const commit = buildCommit();
  if (commit) args.push("--define", `MAPSTEAD_BUILD=${JSON.stringify(commit)}`);
  if (opts.bunTarget) args.push("--target", opts.bunTarget);
  if (opts.executablePath) args.push("--compile-executable-path", opts.executablePath);
  const r = Bun.spawnSync(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
  const output = r.stdout.toString() + r.stderr.toString();
  if (r.exitCode !== 0 || !existsSync(tmp)) {
    rmSync(tmp, { force: true });
    return { ok: false, output };
  }
  renameSync(tmp, opts.outfile);
  return { ok: true, output };
}

function runtimePath(pkg: string): string {
  return join(RUNTIMES_DIR, "node_modules", pkg, "bin", "bun");
}

let runtimesInstalled = false;
/** Installs the locked runtime packages from the npm registry, all CPUs (a plain install skips foreign ones). */
function installRuntimes(): string {
  if (runtimesInstalled) return "";
  runtimesInstalled = true;
  const r = Bun.spawnSync([process.execPath, "install", "--frozen-lockfile", "--cpu=*", "--os=linux"], { cwd: RUNTIMES_DIR, stdout: "pipe", stderr: "pipe" });
  return r.exitCode === 0 ? "" : (r.stdout.toString() + r.stderr.toString()).trim();
}

function elfMachine(path: string): number | null {
  const fd = openSync(path, "r");
  try {
    const header = Buffer.alloc(20);
    if (readSync(fd, header, 0, 20, 0) < 20 || header.toString("latin1", 0, 4) !== "\x7fELF") return null;
    return header.readUInt16LE(18);
  } finally {
    closeSync(fd);
  }
}

/** Where the Bun runtime for `target` comes from, or why it cannot be had. */
export function resolveRuntime(target: Target): { path?: string; problem?: string } {
  const path = runtimePath(target.runtimePackage);
  if (existsSync(path)) return { path };
  const installError = installRuntimes();
  if (existsSync(path)) return { path };
  return {
    problem: `no ${target.runtimePackage}@${BUN_VERSION} runtime: ${installError || `scripts/runtimes does not lock it (add it there with bun add -d --exact ${target.runtimePackage}@${BUN_VERSION})`}`,
  };
}

function build(names: string[]): number {
  const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
  if (unknown.length) {
    console.error(`Unknown target(s): ${unknown.join(", ")}. Known: ${TARGETS.map((t) => t.name).join(", ")}`);
    return 2;
  }
  if (Bun.version !== BUN_VERSION) console.warn(`warning: building with bun ${Bun.version}; releases are built with bun ${BUN_VERSION}`);
  const wanted = names.length ? TARGETS.filter((t) => names.includes(t.name)) : TARGETS;
  const distDir = join(ROOT, "dist");
  mkdirSync(distDir, { recursive: true });
  const missing: string[] = [];
  for (const target of wanted) {
    const outfile = join(distDir, `mapstead-${target.name}`);
    const runtime = resolveRuntime(target);
    if (!runtime.path) {
      missing.push(`${target.name}: ${runtime.problem}`);
      continue;
    }
    const started = performance.now();
    const r = compile({ outfile, bunTarget: target.bunTarget, executablePath: runtime.path });
    if (!r.ok) {
      missing.push(`${target.name}: bun build failed:\n${r.output.trim()}`);
      continue;
    }
    const machine = elfMachine(outfile);
    if (machine !== target.elfMachine) {
      rmSync(outfile, { force: true });
      missing.push(`${target.name}: the result is not a ${target.name} executable (ELF machine ${machine})`);
      continue;
    }
    if (target === hostTarget()) {
      const v = Bun.spawnSync([outfile, "version"], { cwd: "/", stdout: "pipe", stderr: "pipe" });
      if (v.exitCode !== 0) {
        missing.push(`${target.name}: the built binary does not run: ${v.stderr.toString().trim()}`);
        continue;
      }
    }
    const mib = (statSync(outfile).size / 1024 ** 2).toFixed(1);
    console.log(`built dist/mapstead-${target.name}  (${mib} MiB, ${Math.round(performance.now() - started)} ms)`);
  }
  if (missing.length) {
    console.error(`\nNot built:\n${missing.map((m) => `  - ${m}`).join("\n")}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) {
  const names: string[] = [];
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--target") names.push(argv[++i] ?? "");
    else if (a.startsWith("--target=")) names.push(a.slice("--target=".length));
    else if (a === "--help" || a === "-h") {
      console.log(`Usage: bun run build [--target NAME]...\nTargets: ${TARGETS.map((t) => t.name).join(", ")} (default: all)`);
      process.exit(0);
    } else {
      console.error(`Unknown argument ${a}; try --help`);
      process.exit(2);
    }
  }
  process.exit(build(names));
}

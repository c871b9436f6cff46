// `bun run bench [name ...]`: runs bench/*.bench.ts one after another (each in its own process so one
// does not warm or load the next) and repeats every printed figure at the end.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dir;
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => !only.length || only.some((o) => f.includes(o)))
  .sort();
const lines: string[] = [];
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const proc = Bun.spawn(["bun", join(dir, file)], { stdout: "pipe", stderr: "inherit", cwd: join(dir, "..") });
  const decoder = new TextDecoder();
  let buffered = "";
  const reader = proc.stdout.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    const text = decoder.decode(r.value, { stream: true });
    process.stdout.write(text);
    buffered += text;
  }
  if ((await proc.exited) !== 0) {
    failed++;
    lines.push(`${file}: FAILED (exit code ${proc.exitCode})`);
  }
  lines.push(...buffered.split("\n").filter((l) => l.startsWith("bench: ")).map((l) => `${file.replace(".bench.ts", "")}: ${l.slice(7)}`));
}
console.log("\n=== summary");
for (const l of lines) console.log(l);
process.exit(failed ? 1 : 0);

// The house's arrows point one way (routes -> http/read -> domain -> db and cores): a file that imports
// against them, or a registry that looks services up by context, fails here with its name.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(SRC, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))
    .map((f) => join(SRC, dir, f));
}

/** The top-level folder (or file) under src/ of every relative import of `file`. */
function importedAreas(file: string): string[] {
  const areas: string[] = [];
  for (const m of readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = relative(SRC, resolve(dirname(file), m[1]!));
    if (!target.startsWith("..")) areas.push(target.split("/")[0]!.replace(/\.ts$/, ""));
  }
  return areas;
}

const rules: [area: string, forbidden: string[]][] = [
  ["domain", ["routes", "http", "read", "web", "services", "app"]],
  ["read", ["routes", "web", "services", "app"]],
  ["http", ["routes", "web", "services", "app"]],
  ["jobs", ["routes", "http", "read", "web", "domain", "services", "app"]],
];

for (const [area, forbidden] of rules) {
  test(`src/${area} imports nothing from ${forbidden.join(", ")}`, () => {
    const offences = sourcesUnder(area).flatMap((file) =>
      importedAreas(file)
        .filter((a) => forbidden.includes(a))
        .map((a) => `${relative(SRC, file)} -> ${a}/`),
    );
    expect(offences).toEqual([]);
  });
}

test("no service is looked up by context: services come from createServices", () => {
  const all = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  const registries = all.filter((f) => /WeakMap<\s*AppContext\b/.test(readFileSync(join(SRC, f), "utf8")));
  expect(registries).toEqual([]);
});

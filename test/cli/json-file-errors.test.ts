// A JSON file named on the command line that does not parse: every command names the line and column
// (and says "looks truncated" when the file ends early), and exits 1, a bad file's contents, not 2, a
// usage error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/app";
import { runCli } from "../support/cli";
import { parseJsonText } from "../../src/json-text";

let dir: string;
const cli = (...args: string[]) => runCli(join(dir, "data"), ...args);
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

beforeAll(() => {
  dir = tempDir("mapstead-json-errors-");
  expect(cli("orgs", "create", "--slug", "acme").code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("styles create: a truncated style names line and column, says it looks truncated, exits 1", () => {
  const path = file("trunc-style.json", '{"version": 8,\n  "sources": {},\n  "layers": [{"id": "a",');
  const r = cli("styles", "create", "--org", "acme", "--slug", "s", path);
  expect(r.err.trim()).toBe(`mapstead styles: ${path} is not valid JSON: the file ends before the JSON is complete (3 unclosed brackets at line 3, column 25): it looks truncated`);
  expect(r.code).toBe(1);
  // A bad flag is still a usage error.
  expect(cli("styles", "create", "--org", "acme", "--slug", "s", path, "--nope").code).toBe(2);
});

test("styles create: a syntax error in the middle names its line and column", () => {
  const path = file("comma.json", '{\n  "version": 8,\n  "sources": {},\n  "layers": [],\n}\n');
  const r = cli("styles", "create", "--org", "acme", "--slug", "s", path);
  expect(r.err.trim()).toBe(`mapstead styles: ${path} is not valid JSON: a trailing comma before '}' at line 5, column 1`);
  expect(r.code).toBe(1);
});

test("import-tileserver-gl: a broken config.json names line and column, exit 1", () => {
  const path = file("config.json", '{"options": {}\n  "data": {}}');
  const r = cli("import-tileserver-gl", path, "--org", "acme");
  expect(r.err.trim()).toBe(`mapstead import-tileserver-gl: config: ${path} is not valid JSON: expected ',' or '}', found '"' at line 2, column 3; fix the file`);
  expect(r.code).toBe(1);
});

test("tilesets import --recipe: a truncated recipe names where it ends, exit 1", () => {
  const data = file("one.geojson", '{"type":"FeatureCollection","features":[]}');
  const recipe = file("recipe.json", '{"minzoom": 2,\n "maxzoom": 6');
  const r = cli("tilesets", "import", "--org", "acme", "--slug", "t", "--create", data, "--recipe", recipe);
  expect(r.err.trim()).toBe(`mapstead tilesets: --recipe ${recipe} is not valid JSON: the file ends before the JSON is complete (1 unclosed bracket at line 2, column 14): it looks truncated`);
  expect(r.code).toBe(1);
});

test("parseJsonText: the place and the words of common mistakes", () => {
  const problem = (text: string) => {
    try {
      parseJsonText(text, "f.json");
      return null;
    } catch (err) {
      return (err as Error).message.replace("f.json is not valid JSON: ", "");
    }
  };
  expect(problem('{"a": [1, 2]}')).toBeNull();
  expect(problem('{"a": "abc')).toBe("the file ends inside a string (line 1, column 11): it looks truncated");
  expect(problem("{'a': 1}")).toBe("expected a property name in double quotes, found ''' at line 1, column 2");
  expect(problem('{"a": 1} x')).toBe("unexpected 'x' after the end of the JSON at line 1, column 10");
  expect(problem('{"a": tru')).toBe("the file ends before the JSON is complete (1 unclosed bracket at line 1, column 10): it looks truncated");
  expect(problem("")).toBe("the file is empty");
});

test("parseJsonText: a byte order mark before valid JSON (as Windows editors save it) is no error", () => {
  expect(parseJsonText('\uFEFF{"version":8}', "style.json")).toEqual({ version: 8 });
});

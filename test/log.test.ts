// The JSON-lines logger: base fields (a cluster worker's number) reach both the lines it serializes and
// the pre-serialized access-log lines.
import { describe, expect, test } from "bun:test";
import { createLogger } from "../src/log";
import { logRequest } from "../src/http/request-rules";

describe("logger base fields", () => {
  test("every line carries the base fields, pre-serialized ones too", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l), { worker: 3 });
    log.info("hello", { a: 1 });
    log.writeLine("info", `{"msg":"request","status":200${log.lineEnd}`);
    log.debug("dropped");
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { time: expect.any(String), level: "info", msg: "hello", worker: 3, a: 1 },
      { msg: "request", status: 200, worker: 3 },
    ]);
  });

  test("without base fields lines are written as given", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l));
    log.writeLine("info", `{"msg":"request"${log.lineEnd}`);
    expect(lines).toEqual([`{"msg":"request"}`]);
  });
});

describe("access-log lines", () => {
  test("every path is valid JSON in its line: plain ASCII as it is, anything else escaped", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l));
    const paths = ["/tiles/v1/acme/world@1/0/0/0.mvt", '/a"b', "/a\\b", "/tab\there", "/é/ü", "/\u2028", "/emoji/😀", "/del\u007f"];
    for (const path of paths) logRequest(log, "GET", path, 200, 1.234, "id-1");
    expect(lines.map((l) => (JSON.parse(l) as { path: string }).path)).toEqual(paths);
    expect(lines[0]).toContain(`"path":"/tiles/v1/acme/world@1/0/0/0.mvt"`);
  });
});

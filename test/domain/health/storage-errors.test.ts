// DATA_DIR's own failures (disk full, not writable) are answered as the operator's to fix, naming the
// cause, instead of "internal error": from SQLite's and the file system's own errors, over HTTP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { refuseUploadWithoutRoom, storageFailure, storageProblem } from "../../../src/domain/health/storage-errors";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedOrg, seedSession } from "../../support/seed";
import { createLogger } from "../../../src/log";

let t: TestApp;
let headers: Record<string, string>;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await makeTestApp({ MAX_UPLOAD_MB: "1048576" }, { log: createLogger("info", (line) => logLines.push(JSON.parse(line))) });
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
});
afterAll(() => t.close());

test("the errors SQLite and the file system give are told apart from others", () => {
  expect(storageProblem(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }))).toBe("full");
  expect(storageProblem(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" }))).toBe("full");
  expect(storageProblem("Error: database or disk is full")).toBe("full");
  expect(storageProblem(Object.assign(new Error("attempt to write a readonly database"), { code: "SQLITE_READONLY" }))).toBe("read-only");
  expect(storageProblem(Object.assign(new Error("EROFS"), { code: "EROFS" }))).toBe("read-only");
  expect(storageProblem(new TypeError("x is undefined"))).toBeNull();
  expect(storageFailure(new Error("boom"))).toBeNull();
});

test("an upload the disk cannot hold is refused before it is written: the file, its tiles and a margin", () => {
  const mib = 1024 ** 2;
  expect(() => refuseUploadWithoutRoom(1000 * mib, 100 * mib)).not.toThrow();
  expect(() => refuseUploadWithoutRoom(null, 100 * mib)).not.toThrow();
  expect(() => refuseUploadWithoutRoom(200 * mib, 100 * mib)).toThrow("it needs about 264 MiB (the file, its tiles and a margin), 200 MiB is free");
});

test("a write on a full database answers 507 INSUFFICIENT_STORAGE saying what to do, and the server goes on", async () => {
  const pages = (t.ctx.sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  // SQLite's own "database or disk is full": the file may not grow past the pages it has.
  t.ctx.sqlite.exec(`PRAGMA max_page_count = ${pages}`);
  try {
    // Room left in the last pages takes a few; then the file must grow, and cannot.
    let res: Response | undefined;
    for (let i = 0; i < 500; i++) {
      res = await t.fetch("/api/v1/orgs", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: `more-${i}`, name: `Organization number ${i} with a long name` }) });
      if (res.status !== 201) break;
    }
    expect(res!.status).toBe(507);
    const { error } = await res!.json();
    expect(error.code).toBe("INSUFFICIENT_STORAGE");
    expect(error.message).toContain("The disk holding DATA_DIR is full");
    // Logged as the operator's to fix, a warning with the fix and no stack: not as a server failure.
    expect(logLines.find((l) => l.msg === "request refused: DATA_DIR" && l.status === 507)).toMatchObject({ level: "warn", fix: error.message });
    expect(logLines.filter((l) => l.msg === "request failed")).toEqual([]);
  } finally {
    t.ctx.sqlite.exec("PRAGMA max_page_count = 1073741823");
  }
  expect((await t.fetch("/health")).status).toBe(200);
});

test("an upload declaring more than the disk has free is 507 before a byte is stored", async () => {
  expect((await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "big" }) })).status).toBe(201);
  const res = await t.fetch("/api/v1/orgs/acme/tilesets/big/versions", {
    method: "POST",
    headers: { ...headers, "content-type": "application/geo+json", "content-length": String(1024 ** 4 - 1) },
    body: "{}",
  });
  expect(res.status).toBe(507);
  expect((await res.json()).error.message).toStartWith("Not enough free space in DATA_DIR for this upload");
});

// A client that hangs up in the middle of an upload is not a server failure: no error in the log, a
// 499 in the access log (as nginx writes it), and nothing of the upload left behind.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { serveTestApp, type TestApp } from "../support/app";
import { seedOrg, seedSession } from "../support/seed";
import { createLogger } from "../../src/log";

let t: TestApp;
let headers: Record<string, string>;
const logLines: string[] = [];

beforeAll(async () => {
  t = await serveTestApp({ LOG_LEVEL: "info" }, { log: createLogger("info", (line) => logLines.push(line)) });
  const org = seedOrg(t.ctx, "acme");
  headers = (await seedSession(t.ctx, { orgId: org.id })).headers;
  expect((await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "cut" }) })).status).toBe(201);
});
afterAll(() => t.close());

test("an upload cut off by the client: access log 499, no error logged, no version or file left", async () => {
  const { port } = new URL(t.baseUrl);
  const head = [`POST /api/v1/orgs/acme/tilesets/cut/versions HTTP/1.1`, `Host: 127.0.0.1:${port}`, "Content-Type: application/geo+json", "Content-Length: 50000000", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  await new Promise<void>((resolve) => {
    void Bun.connect({
      hostname: "127.0.0.1",
      port: Number(port),
      socket: {
        open(s) {
          s.write(head.join("\r\n") + "\r\n\r\n" + '{"type":"FeatureCollection","features":[' + " ".repeat(200_000));
          setTimeout(() => s.end(), 300);
        },
        data() {},
        close: () => resolve(),
        error: () => resolve(),
      },
    });
  });
  let access: { status?: number } | undefined;
  for (let i = 0; i < 50 && !access; i++) {
    await Bun.sleep(100);
    access = logLines.map((l) => JSON.parse(l)).find((e) => e.path === "/api/v1/orgs/acme/tilesets/cut/versions" && e.status !== undefined);
  }
  expect(access?.status).toBe(499);
  expect(logLines.map((l) => JSON.parse(l)).filter((e) => e.level === "error")).toEqual([]);
  const versions = await (await t.fetch("/api/v1/orgs/acme/tilesets/cut/versions", { headers })).json();
  expect(versions.versions).toEqual([]);
  const uploads = join(t.dataDir, "uploads");
  expect(readdirSync(uploads, { withFileTypes: true }).filter((e) => e.isFile())).toEqual([]);
  expect((await t.fetch("/health")).status).toBe(200);
});

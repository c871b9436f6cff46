// Writes made by another process (the real CLI on the same DATA_DIR) reach a running app's caches
// through the change bus's data_version watcher within a second or two. (A CLI `tilesets publish` is
// covered by test/routes/public/tiles/serving.test.ts.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { authTestApp } from "../routes/management/auth/support";
import { seedKey, seedOrg } from "../support/seed";
import type { TestApp } from "../support/app";
import type { Change } from "../../src/domain/changes/types";

const MAIN = join(import.meta.dir, "../../src/main.ts");
let t: TestApp;
let orgId: number;
const heard: Change[] = [];

async function cli(args: string[]) {
  const proc = Bun.spawn(["bun", MAIN, ...args], { env: { ...process.env, DATA_DIR: t.dataDir, LOG_LEVEL: "error", NO_COLOR: "1" }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}

/** Polls every 50 ms for up to two seconds. */
async function within2s(done: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 40 && !(await done()); i++) await Bun.sleep(50);
}

beforeAll(async () => {
  t = await authTestApp();
  orgId = seedOrg(t.ctx, "acme").id;
  t.services.changes.on((c) => heard.push(c));
});
afterAll(() => t.close());

test("`mapstead keys revoke` in another process: the running app hears it and refuses the key", async () => {
  const key = seedKey(t.ctx, orgId, ["geocoding"]);
  const geo = () => t.fetch("/probe/geo", { headers: { "x-api-key": key.secret } });
  expect((await geo()).status).toBe(200);
  const r = await cli(["keys", "revoke", "--org", "acme", String(key.id)]);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  await within2s(() => heard.some((c) => c.kind === "key" && c.keyId === key.id));
  expect(heard).toContainEqual({ kind: "key", keyId: key.id });
  expect((await geo()).status).toBe(401);
});

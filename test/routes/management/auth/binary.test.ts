// The compiled binary, the way an operator meets auth: the setup token file written at first start, the web
// setup, a key with a quota, usage that survives a restart (SIGTERM flushes it), and CLI revocation
// against the running server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, runBinary, startBinary, type RunningBinary } from "../../../support/binary";
import { tempDir } from "../../../support/app";
import { startFakePelias, type FakePelias } from "../../../support/fake-pelias";

let pelias: FakePelias;
beforeAll(async () => {
  await ensureBinary();
  pelias = startFakePelias();
}, 180_000);
afterAll(() => pelias?.stop());

const post = (app: RunningBinary, path: string, body: unknown, headers: Record<string, string> = {}) =>
  app.fetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("auth in the compiled binary", () => {
  test("setup token, web setup, key with quota, usage across a restart, CLI revocation", async () => {
    const dataDir = join(tempDir("mapstead-auth-bin-"), "data");
    // One worker: the usage page reads the daily table, which a multi-worker supervisor writes every 10 s
    // (README, Workers); cross-worker usage is proven in test/cluster.
    const env = { GEOCODER_INTERNAL_URL: pelias.url, WORKERS: "1" };
    let app = await startBinary({ dataDir, env });
    try {
      // The token reaches the operator through DATA_DIR/setup-token (mode 0600), never through the log.
      await app.waitForLog((l) => l.msg === "no admin account yet");
      const tokenFile = join(dataDir, "setup-token");
      expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
      const token = readFileSync(tokenFile, "utf8").trim();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const hint = app.logs().find((l) => l.msg === "no admin account yet")!;
      expect(hint.setup_token_file).toBe(tokenFile);
      // stdout is the JSON log and nothing else (no banner without a terminal), and it never holds the token
      for (const line of app.lines) expect(() => JSON.parse(line)).not.toThrow();
      expect(app.lines.join("\n") + app.stderr()).not.toContain(token);

      const setup = await post(app, "/api/v1/setup", { token, email: "ops@example.com", password: "operator password" });
      expect(setup.status).toBe(201);
      const cookie = setup.headers.get("set-cookie")!.split(";")[0]!;
      const { csrf_token } = await setup.json();
      const session = { cookie, "x-csrf-token": csrf_token };
      expect((await post(app, "/api/v1/orgs", { slug: "ops", name: "Ops" }, session)).status).toBe(201);
      const created = await post(app, "/api/v1/orgs/ops/keys", { name: "quota", scopes: ["geocoding"], monthly_quota: 3 }, session);
      expect(created.status).toBe(201);
      const { key, secret } = await created.json();

      for (const q of ["alpha", "beta"]) {
        const res = await app.fetch(`/geocoding/v1/forward?q=${q}`, { headers: { "x-api-key": secret } });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-ratelimit-limit")).toBe("600");
      }
      expect(await app.stop("SIGTERM")).toBe(0);

      app = await startBinary({ dataDir, env });
      const third = await app.fetch("/geocoding/v1/forward?q=gamma", { headers: { "x-api-key": secret } });
      expect(third.status).toBe(200);
      expect(third.headers.get("x-quota-used")).toBe("3");
      expect(third.headers.get("x-quota-remaining")).toBe("0");
      const over = await app.fetch("/geocoding/v1/forward?q=delta", { headers: { "x-api-key": secret } });
      expect(over.status).toBe(429);
      expect((await over.json()).error.code).toBe("QUOTA_EXCEEDED");
      // no new setup token once an admin exists (its file is gone); the session survived the restart too
      expect(existsSync(tokenFile)).toBe(false);
      expect(app.logs().some((l) => l.msg === "no admin account yet")).toBe(false);
      const usage = await (await app.fetch(`/api/v1/orgs/ops/keys/${key.id}/usage`, { headers: session })).json();
      expect(usage.total).toBe(3);

      const other = await (await post(app, "/api/v1/orgs/ops/keys", { name: "cli-revoked", scopes: ["geocoding"] }, session)).json();
      expect((await app.fetch("/geocoding/v1/forward?q=alpha", { headers: { "x-api-key": other.secret } })).status).toBe(200);
      const revoke = await runBinary(["keys", "revoke", "--org", "ops", String(other.key.id)], { env: { DATA_DIR: dataDir } });
      expect(revoke.exitCode).toBe(0);
      const since = Date.now();
      let status = 200;
      while (status === 200 && Date.now() - since < 6_000) {
        status = (await app.fetch("/geocoding/v1/forward?q=alpha", { headers: { "x-api-key": other.secret } })).status;
        if (status === 200) await Bun.sleep(200);
      }
      expect(status).toBe(401);
      expect(Date.now() - since).toBeLessThanOrEqual(5_000);
    } finally {
      await app.stop();
    }
  }, 120_000);
});

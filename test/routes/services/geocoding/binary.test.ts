// The compiled binary keeps Idempotency-Key records across a restart: a replayed batch is served from
// SQLite by the new process without touching the geocoder.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { makeTestApp, tempDir } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { startBinary, type RunningBinary } from "../../../support/binary";
import { startFakePelias } from "../../../support/fake-pelias";

const root = tempDir("mapstead-geo-bin-");
const dataDir = join(root, "data");
const fake = startFakePelias();
let running: RunningBinary | null = null;

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  await fake.stop();
  rmSync(root, { recursive: true, force: true });
});

test("idempotent batch replay survives a restart of the compiled binary", async () => {
  const seeded = await makeTestApp({}, { dataDir });
  const secret = seedKey(seeded.ctx, seedOrg(seeded.ctx, "bin").id, ["geocoding"]).secret;
  await seeded.close();
  const env = { GEOCODER_INTERNAL_URL: fake.url };
  const init = { method: "POST", headers: { "x-api-key": secret, "content-type": "application/json", "idempotency-key": "bin-replay-1" }, body: JSON.stringify({ queries: [{ type: "forward", q: "binary" }, { type: "reverse", lon: 7, lat: 46 }] }) };

  running = await startBinary({ dataDir, env });
  const first = await running.fetch("/geocoding/v1/batch", init);
  expect(first.status).toBe(200);
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  const body = await first.text();
  expect(JSON.parse(body).summary).toEqual({ total: 2, succeeded: 2, failed: 0 });
  expect(fake.calls).toHaveLength(2);
  expect(await running.stop()).toBe(0);

  running = await startBinary({ dataDir, env });
  const replay = await running.fetch("/geocoding/v1/batch", init);
  expect(replay.status).toBe(200);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(await replay.text()).toBe(body);
  expect(fake.calls).toHaveLength(2);
  const conflict = await running.fetch("/geocoding/v1/batch", { ...init, body: JSON.stringify({ queries: [{ type: "forward", q: "other" }] }) });
  expect(conflict.status).toBe(409);
  expect((await conflict.json()).error.code).toBe("IDEMPOTENCY_CONFLICT");
  expect(await running.stop()).toBe(0);
  running = null;
}, 240_000);

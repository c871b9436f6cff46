// The compiled binary routes through OSRM with instruction texts: osrm-text-instructions' language files
// are bundled into the executable, and the router settings work as flags the way an operator runs it.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { makeTestApp, tempDir } from "../../../support/app";
import { seedKey, seedOrg } from "../../../support/seed";
import { startBinary, type RunningBinary } from "../../../support/binary";
import { startFakeOsrm } from "../../../support/fake-osrm";

const root = tempDir("mapstead-route-bin-");
const dataDir = join(root, "data");
const fake = startFakeOsrm();
let running: RunningBinary | null = null;

afterAll(async () => {
  if (running) await running.stop("SIGKILL");
  await fake.stop();
  rmSync(root, { recursive: true, force: true });
});

test("the compiled binary answers a route with German instructions, and its health shows the router", async () => {
  const seeded = await makeTestApp({}, { dataDir });
  const secret = seedKey(seeded.ctx, seedOrg(seeded.ctx, "bin").id, ["routing"]).secret;
  await seeded.close();
  running = await startBinary({ dataDir, env: { ROUTING_INTERNAL_URL: fake.url, ROUTING_ENGINE: "osrm" } });
  const res = await running.fetch("/routing/v1/driving/13.38886,52.517037;13.397634,52.529407?steps=true&language=de", { headers: { "x-api-key": secret } });
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.routes[0].legs[0].steps[1].maneuver.instruction).toBe("Links abbiegen auf Street 40-53");
  expect(fake.calls[0]!.path).toBe("/route/v1/car/13.38886,52.517037;13.397634,52.529407");
  const health = await (await running.fetch("/health/detailed")).json();
  expect(health.components.router.status).toBe("ok");
  expect(await running.stop()).toBe(0);
  running = null;
}, 240_000);

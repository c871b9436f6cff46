// The two routing engines a routing test runs against: an app per engine in front of its fake (real
// HTTP, the engine's wire format), with a routing key, set up and torn down around the test file.
import { afterAll, beforeAll, beforeEach, expect } from "bun:test";
import { makeTestApp, type TestApp } from "./app";
import { seedKey, seedOrg } from "./seed";
import { startFakeOsrm, type FakeRouter } from "./fake-osrm";
import { startFakeValhalla } from "./fake-valhalla";

export interface Engine {
  name: "osrm" | "valhalla";
  fake: FakeRouter;
  t: TestApp;
  headers: Record<string, string>;
}

/** Registers the file's hooks and returns the engines, filled in before its first test. */
export function routingEngines(): { osrm: Engine; valhalla: Engine } {
  const osrm = { name: "osrm" } as Engine;
  const valhalla = { name: "valhalla" } as Engine;
  beforeAll(async () => {
    for (const e of [osrm, valhalla]) {
      e.fake = e.name === "osrm" ? startFakeOsrm() : startFakeValhalla();
      e.t = await makeTestApp({ ROUTING_INTERNAL_URL: e.fake.url, ROUTING_ENGINE: e.name, ROUTING_TIMEOUT_MS: "300" });
      e.headers = { "x-api-key": seedKey(e.t.ctx, seedOrg(e.t.ctx, "route").id, ["routing"]).secret };
    }
  });
  afterAll(async () => {
    for (const e of [osrm, valhalla]) {
      await e.t.close();
      await e.fake.stop();
    }
  });
  beforeEach(() => {
    osrm.fake.reset();
    valhalla.fake.reset();
  });
  return { osrm, valhalla };
}

/** Asserts the contract's 400 naming `parameter` and returns the body, for what the test checks beyond. */
export async function refused(res: Response, parameter: string): Promise<{ error: { code: string; message: string; details: { parameter: string } } }> {
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error.code).toBe("BAD_REQUEST");
  expect(body.error.details.parameter).toBe(parameter);
  return body;
}

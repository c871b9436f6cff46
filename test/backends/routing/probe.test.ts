// The router probe behind /health/detailed and preflight, against the fake OSRM and Valhalla servers:
// what it reports when all is well, and the fix it gives for each way a setup goes wrong.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeRouter } from "../../../src/backends/routing/probe";
import { startFakeOsrm, type FakeRouter } from "../../support/fake-osrm";
import { startFakeValhalla } from "../../support/fake-valhalla";
import { freePort, makeTestApp } from "../../support/app";

let osrm: FakeRouter;
let valhalla: FakeRouter;
beforeAll(() => {
  osrm = startFakeOsrm();
  valhalla = startFakeValhalla();
});
afterAll(async () => {
  await osrm.stop();
  await valhalla.stop();
});
beforeEach(() => {
  osrm.reset();
  valhalla.reset();
});

const probe = (env: Record<string, string>) => probeRouter(loadConfig({ DATA_DIR: "/tmp", ...env }));
const asOsrm = (extra: Record<string, string> = {}) => probe({ ROUTING_INTERNAL_URL: osrm.url, ...extra });
const asValhalla = (extra: Record<string, string> = {}) => probe({ ROUTING_INTERNAL_URL: valhalla.url, ROUTING_ENGINE: "valhalla", ...extra });

test("not configured says so and how to configure either engine", async () => {
  const r = await probe({});
  expect(r.status).toBe("not_configured");
  expect(r.detail).toContain("ROUTER_NOT_CONFIGURED");
  expect(r.fix).toContain("ROUTING_INTERNAL_URL");
  expect(r.fix).toContain("ROUTING_ENGINE=valhalla");
});

describe("OSRM", () => {
  test("working: finds the dataset with nearest, then routes on it with every profile", async () => {
    const r = await asOsrm();
    expect(r.status).toBe("ok");
    expect(typeof r.latency_ms).toBe("number");
    expect(r.detail).toContain("nearest road to the sample point 13.38886,52.517037 is at 13.3889,52.517 (Street 39-52), 5 m away");
    expect(r.detail).toContain("routes answered for driving=car, walking=foot, cycling=bike");
    expect(osrm.calls.map((c) => c.path).sort()).toEqual(["/nearest/v1/car/13.38886,52.517037", "/route/v1/bike/13.3889,52.517;13.3889,52.517", "/route/v1/car/13.3889,52.517;13.3889,52.517", "/route/v1/foot/13.3889,52.517;13.3889,52.517"]);
  });

  test("a profile the server does not have: degraded, naming the profile and ROUTING_PROFILES", async () => {
    osrm.profiles = ["car", "foot"];
    const r = await asOsrm();
    expect(r.status).toBe("degraded");
    expect(r.detail).toContain('cycling="bike": no such profile (HTTP 404)');
    expect(r.fix).toContain("ROUTING_PROFILES (cycling=NAME)");
  });

  test("no driving profile at all: down, saying what the URL and ROUTING_PROFILES should be", async () => {
    osrm.profiles = ["driving"];
    const r = await asOsrm();
    expect(r.status).toBe("down");
    expect(r.detail).toContain("HTTP 404");
    expect(r.fix).toContain('driving profile "car"');
    expect(r.fix).toContain("ROUTING_PROFILES");
  });

  test("a dataset without roads, or a profile whose dataset lacks the area", async () => {
    osrm.emptyProfiles = ["car"];
    const empty = await asOsrm();
    expect(empty.status).toBe("down");
    expect(empty.detail).toContain("NoSegment");
    expect(empty.fix).toContain("osrm-extract");
    osrm.emptyProfiles = ["foot"];
    const partial = await asOsrm();
    expect(partial.status).toBe("degraded");
    expect(partial.detail).toContain('walking="foot": its dataset does not contain the area of the driving one (around 13.3889,52.517)');
  });

  test("pointed at Valhalla: the fix says to set ROUTING_ENGINE=valhalla", async () => {
    const r = await probe({ ROUTING_INTERNAL_URL: valhalla.url });
    expect(r.status).toBe("down");
    expect(r.detail).toContain("the way Valhalla does");
    expect(r.fix).toBe("The server at ROUTING_INTERNAL_URL is Valhalla: set ROUTING_ENGINE=valhalla");
  });

  test("a failing server, and a web page instead of OSRM", async () => {
    osrm.status = 500;
    const failing = await asOsrm();
    expect(failing.status).toBe("down");
    expect(failing.fix).toContain("logs");
    osrm.status = null;
    osrm.mode = "html";
    const html = await asOsrm();
    // every routing call fails against it, as against nothing listening: down, not degraded
    expect(html.status).toBe("down");
    expect(html.detail).toContain("an HTML page");
    expect(html.fix).toContain("osrm-routed");
  });
});

describe("Valhalla", () => {
  test("working: version, roads at the sample point, every costing answered", async () => {
    const r = await asValhalla();
    expect(r.status).toBe("ok");
    expect(r.detail).toContain("Valhalla 3.5.1: roads found at the sample point 13.38886,52.517037");
    expect(r.detail).toContain("costings answered for driving=auto, walking=pedestrian, cycling=bicycle");
    expect(valhalla.calls[0]!.path).toBe("/status");
    expect(valhalla.calls.slice(1).map((c) => JSON.parse(c.params.get("json")!).costing).sort()).toEqual(["auto", "bicycle", "pedestrian"]);
  });

  test("a costing Valhalla does not know (error 125): degraded, with the costing to use", async () => {
    const r = await asValhalla({ ROUTING_PROFILES: "cycling=mtb" });
    expect(r.status).toBe("degraded");
    expect(r.detail).toContain('cycling="mtb": Valhalla has no such costing');
    expect(r.fix).toContain("cycling=bicycle");
  });

  test("tiles that do not cover the sample point are fine for a regional dataset", async () => {
    valhalla.emptyProfiles = ["auto", "pedestrian", "bicycle"];
    const r = await asValhalla();
    expect(r.status).toBe("ok");
    expect(r.detail).toContain("no roads near the sample point");
    expect(r.detail).toContain("fine for a regional dataset");
  });

  test("pointed at OSRM: the fix says to set ROUTING_ENGINE=osrm", async () => {
    const r = await probe({ ROUTING_INTERNAL_URL: osrm.url, ROUTING_ENGINE: "valhalla" });
    expect(r.status).toBe("down");
    expect(r.fix).toBe("The server at ROUTING_INTERNAL_URL is OSRM: set ROUTING_ENGINE=osrm");
  });

  test("something else answering 404 at /status: the fix says what the base URL should be", async () => {
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("Not Found", { status: 404 }) });
    try {
      const r = await probe({ ROUTING_INTERNAL_URL: `http://127.0.0.1:${other.port}/valhalla`, ROUTING_ENGINE: "valhalla" });
      expect(r.status).toBe("down");
      expect(r.detail).toContain("status (GET /valhalla/status) answered HTTP 404");
      expect(r.fix).toContain("base URL without a path, e.g. http://valhalla:8002");
    } finally {
      await other.stop(true);
    }
  });
});

test("nothing listening, and no answer in time, give fixes naming what to check", async () => {
  const port = freePort();
  for (const engine of ["osrm", "valhalla"]) {
    const refused = await probe({ ROUTING_INTERNAL_URL: `http://127.0.0.1:${port}`, ROUTING_ENGINE: engine });
    expect(refused.status).toBe("down");
    expect(refused.detail).toContain("connection refused");
    expect(refused.fix).toContain(`Nothing accepts connections at 127.0.0.1:${port}`);
    expect(refused.fix).toContain("ROUTING_INTERNAL_URL");
  }
  osrm.delayMs = 1000;
  const slow = await asOsrm({ ROUTING_TIMEOUT_MS: "100" });
  expect(slow.status).toBe("down");
  // The time is said once, and the fix offers the setting only where raising it would change the check.
  expect(slow.detail).toEndWith("no answer within 100 ms");
  expect(slow.fix).toBe("No answer within 100 ms: check that the service is up and not overloaded and that no firewall drops the traffic, or raise ROUTING_TIMEOUT_MS (now 100 ms) if it is only slow");
  osrm.delayMs = 3500;
  const capped = await asOsrm({ ROUTING_TIMEOUT_MS: "5000" });
  expect(capped.detail).toEndWith("no answer within 3000 ms");
  expect(capped.fix).toBe(
    "No answer within 3000 ms, the longest a health check waits: check that the service is up and not overloaded and that no firewall drops the traffic (API requests wait up to ROUTING_TIMEOUT_MS, now 5000 ms)",
  );
  osrm.delayMs = 0;
}, 15_000);

test("/health/detailed and preflight carry the probe as the router component and check", async () => {
  const app = await makeTestApp({ ROUTING_INTERNAL_URL: valhalla.url });
  try {
    const health = await (await app.fetch("/health/detailed")).json();
    expect(health.status).toBe("degraded");
    expect(health.components.router.status).toBe("down");
    // like the preflight, health says how to fix what is down
    expect(health.components.router.fix).toContain("ROUTING_ENGINE=valhalla");
    const preflight = await (await app.fetch("/setup/preflight", { headers: { accept: "application/json" } })).json();
    const check = preflight.checks.find((c: { id: string }) => c.id === "router");
    expect(check.status).toBe("fail");
    expect(check.fix).toBe("The server at ROUTING_INTERNAL_URL is Valhalla: set ROUTING_ENGINE=valhalla");
    expect(preflight.ok).toBe(false);
  } finally {
    await app.close();
  }
  const fine = await makeTestApp({ ROUTING_INTERNAL_URL: osrm.url });
  try {
    const health = await (await fine.fetch("/health/detailed")).json();
    expect(health.components.router.status).toBe("ok");
  } finally {
    await fine.close();
  }
});

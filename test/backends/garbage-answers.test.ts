// A backend URL that reaches a server answering garbage (a web page, JSON of another service) is as
// broken as one nothing listens at: every API call through it is 502. The operator must hear it as a
// failure: preflight fails (exit 1, so install.sh does not restart onto it), /health/detailed says down.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTestApp, tempDir } from "../support/app";
import { seedKey, seedOrg } from "../support/seed";

const MAIN = join(import.meta.dir, "../../src/main.ts");
let html: ReturnType<typeof Bun.serve>;
let otherJson: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  html = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<html><body>It works!</body></html>", { headers: { "content-type": "text/html" } }) });
  otherJson = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
});
afterAll(async () => {
  await html.stop(true);
  await otherJson.stop(true);
});

const urls = (origin: string) => ({ GEOCODER_INTERNAL_URL: `${origin}/v1`, ELEVATION_INTERNAL_URL: `${origin}/v1/srtm30m`, ROUTING_INTERNAL_URL: origin });

// Spawned without blocking: the fake servers answer from this process.
async function preflight(env: Record<string, string>) {
  const r = Bun.spawn(["bun", MAIN, "preflight", "--json"], { env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "error", DATA_DIR: join(tempDir("mapstead-garbage-"), "data"), HOST: "127.0.0.1", ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(r.stdout).text(), r.exited]);
  const report = JSON.parse(out);
  return { code, byId: Object.fromEntries(report.checks.map((c: { id: string }) => [c.id, c])) as Record<string, { status: string; message: string; fix: string }> };
}

test("backends answering an HTML page fail preflight (exit 1) and are down in /health/detailed, as their API calls are 502", async () => {
  const origin = `http://127.0.0.1:${html.port}`;
  const { code, byId } = await preflight(urls(origin));
  expect(code).toBe(1);
  for (const [id, setting] of [["geocoder", "GEOCODER_INTERNAL_URL"], ["elevation", "ELEVATION_INTERNAL_URL"], ["router", "ROUTING_INTERNAL_URL"]] as const) {
    expect(byId[id]!.status).toBe("fail");
    expect(byId[id]!.message).toContain("an HTML page");
    expect(byId[id]!.fix).toContain(setting);
  }
  const app = await makeTestApp(urls(origin));
  try {
    const health = await (await app.fetch("/health/detailed")).json();
    for (const c of ["geocoder", "elevation", "router"]) expect(health.components[c].status).toBe("down");
    const key = seedKey(app.ctx, seedOrg(app.ctx, "garbage").id, ["geocoding"]).secret;
    expect((await app.fetch("/geocoding/v1/forward?q=london", { headers: { "x-api-key": key } })).status).toBe(502);
  } finally {
    await app.close();
  }
}, 60_000);

test("backends answering JSON of another shape fail preflight too, and the router's fix says the URL is wrong, not the data", async () => {
  const { code, byId } = await preflight(urls(`http://127.0.0.1:${otherJson.port}`));
  expect(code).toBe(1);
  expect(byId.geocoder!.status).toBe("fail");
  expect(byId.geocoder!.message).toContain("not a GeoJSON FeatureCollection");
  expect(byId.elevation!.status).toBe("fail");
  expect(byId.elevation!.message).toContain("without a one-element results array");
  expect(byId.router!.status).toBe("fail");
  expect(byId.router!.message).toContain('without OSRM\'s "code": not an OSRM server');
  expect(byId.router!.fix).toContain("not OSRM: check ROUTING_INTERNAL_URL");
  expect(byId.router!.fix).not.toContain("osrm-extract");
  const valhalla = await preflight({ ROUTING_INTERNAL_URL: `http://127.0.0.1:${otherJson.port}`, ROUTING_ENGINE: "valhalla" });
  expect(valhalla.byId.router!.status).toBe("fail");
  expect(valhalla.byId.router!.fix).toContain("not Valhalla: check ROUTING_INTERNAL_URL");
}, 60_000);

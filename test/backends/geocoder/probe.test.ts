// The geocoder probe behind /health/detailed and preflight, against the fake Pelias and a few impostors.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeGeocoder } from "../../../src/backends/geocoder/probe";
import { startFakePelias, type FakePelias } from "../../support/fake-pelias";
import { freePort, makeTestApp } from "../../support/app";

let fake: FakePelias;
beforeAll(() => {
  fake = startFakePelias();
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const probe = (url?: string, extra: Record<string, string> = {}) => probeGeocoder(loadConfig({ DATA_DIR: "/tmp", ...(url ? { GEOCODER_INTERNAL_URL: url } : {}), ...extra }));

test("not configured says so and how to configure it", async () => {
  const r = await probe(undefined, { GEOCODER: "off" });
  expect(r.status).toBe("not_configured");
  expect(r.fix).toContain("GEOCODER_INTERNAL_URL");
});

test("a working geocoder: sample query, latency and what the answer looked like", async () => {
  const r = await probe(fake.url);
  expect(r.status).toBe("ok");
  expect(typeof r.latency_ms).toBe("number");
  expect(r.detail).toContain('sample search "london"');
  expect(r.detail).toContain('first "london 0, Zürich, Switzerland" (venue, openstreetmap)');
  expect(fake.calls[0]!.search).toBe("text=london&size=1&lang=en");
});

test("a URL without the /v1 prefix: the fix says to add it", async () => {
  const r = await probe(fake.origin);
  expect(r.status).toBe("down");
  expect(r.fix).toBe(`GEOCODER_INTERNAL_URL answers 404 at /search: it should include the /v1 prefix, e.g. ${fake.origin}/v1`);
});

test("a versioned URL that still 404s points at the wrong service", async () => {
  const r = await probe(`${fake.origin}/v2`);
  expect(r.status).toBe("down");
  expect(r.fix).toContain("answers 404 at /v2/search");
  expect(r.fix).toContain("Pelias API service");
});

test("a failing geocoder shows its own error; HTML and non-GeoJSON are flagged", async () => {
  fake.status = 500;
  const failing = await probe(fake.url);
  expect(failing.status).toBe("down");
  expect(failing.detail).toContain("HTTP 500 (backend says 500)");
  expect(failing.fix).toContain("logs");
  // A status no Pelias gives a well-formed search (here a 400): every call gets it, so down too.
  fake.status = 400;
  const refusing = await probe(fake.url);
  expect(refusing.status).toBe("down");
  expect(refusing.detail).toContain("HTTP 400");
  expect(refusing.fix).toContain("Pelias-compatible API");
  fake.status = null;
  fake.mode = "html";
  const html = await probe(fake.url);
  // every geocoding call fails against these, as against nothing listening: down, not degraded
  expect(html.status).toBe("down");
  expect(html.detail).toContain("an HTML page");
  fake.mode = "not-geojson";
  const other = await probe(fake.url);
  expect(other.status).toBe("down");
  expect(other.detail).toContain("keys: hello");
});

test("Elasticsearch instead of the Pelias API is recognised", async () => {
  const es = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ name: "es01", cluster_name: "pelias", tagline: "You Know, for Search" }) });
  try {
    const r = await probe(`http://127.0.0.1:${es.port}`);
    expect(r.status).toBe("down");
    expect(r.fix).toContain("not at Elasticsearch");
  } finally {
    await es.stop(true);
  }
});

test("nothing listening, and no answer in time, give fixes naming what to check", async () => {
  const port = freePort();
  const refused = await probe(`http://127.0.0.1:${port}/v1`);
  expect(refused.status).toBe("down");
  expect(refused.detail).toContain("connection refused");
  expect(refused.fix).toContain(`Nothing accepts connections at 127.0.0.1:${port}`);
  fake.delayMs = 1000;
  const slow = await probe(fake.url, { GEOCODER_TIMEOUT_MS: "100" });
  expect(slow.status).toBe("down");
  expect(slow.detail).toContain("no answer within 100 ms");
  expect(slow.fix).toContain("GEOCODER_TIMEOUT_MS");
});

test("/health/detailed and preflight carry the probe", async () => {
  const app = await makeTestApp({ GEOCODER_INTERNAL_URL: fake.origin });
  try {
    const health = await (await app.fetch("/health/detailed")).json();
    expect(health.components.geocoder.status).toBe("down");
    expect(health.components.geocoder.detail).toContain("HTTP 404");
    const preflight = await (await app.fetch("/setup/preflight", { headers: { accept: "application/json" } })).json();
    const check = preflight.checks.find((c: { id: string }) => c.id === "geocoder");
    expect(check.status).toBe("fail");
    expect(check.fix).toContain("it should include the /v1 prefix");
  } finally {
    await app.close();
  }
});

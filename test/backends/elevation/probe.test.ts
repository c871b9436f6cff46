// The elevation probe behind /health/detailed and preflight, against the fake OpenTopoData.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { loadConfig } from "../../../src/config";
import { probeElevation } from "../../../src/backends/elevation/probe";
import { fakeElevation, startFakeOpenTopoData, type FakeOpenTopoData } from "../../support/fake-opentopodata";
import { freePort, makeTestApp } from "../../support/app";

let fake: FakeOpenTopoData;
beforeAll(() => {
  fake = startFakeOpenTopoData();
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const probe = (url?: string) => probeElevation(loadConfig({ DATA_DIR: "/tmp", ...(url ? { ELEVATION_INTERNAL_URL: url } : {}) }));

test("not configured says so", async () => {
  const r = await probe();
  expect(r.status).toBe("not_configured");
  expect(r.fix).toContain("ELEVATION_INTERNAL_URL");
});

test("a working dataset: the sample point's elevation, dataset and latency", async () => {
  const r = await probe(fake.url);
  expect(r.status).toBe("ok");
  expect(r.detail).toContain(`answered ${fakeElevation(46.5, 7.9)} m from dataset test30m`);
  expect(typeof r.latency_ms).toBe("number");
  expect(fake.calls[0]!.search).toBe("locations=46.5,7.9&interpolation=bilinear");
  expect(r.detail).toContain(`(GET ${fake.url}?locations=…)`);
});

test("a dataset at the server's root names the server, not a bare /", async () => {
  const r = await probe(fake.origin);
  expect(r.detail).toContain(`(GET ${fake.origin}?locations=…)`);
  expect(r.detail).not.toContain("GET /?");
});

test("a URL without a dataset name: the fix says to add one", async () => {
  const r = await probe(`${fake.origin}/v1`);
  expect(r.status).toBe("down");
  expect(r.fix).toContain("ELEVATION_INTERNAL_URL answers 404 at /v1: it should name a dataset after the /v1 prefix");
});

test("an unknown dataset shows OpenTopoData's own message", async () => {
  const r = await probe(`${fake.origin}/v1/srtm90m`);
  expect(r.status).toBe("down");
  expect(r.detail).toContain("Dataset 'srtm90m' not in config.");
  expect(r.fix).toContain('does not serve the dataset "srtm90m"');
});

test("failing and unreachable services are down with a fix", async () => {
  fake.status = 500;
  const failing = await probe(fake.url);
  expect(failing.status).toBe("down");
  expect(failing.detail).toContain("HTTP 500 (Server error.)");
  fake.status = null;
  fake.mode = "no-results";
  const odd = await probe(fake.url);
  // every elevation call fails against it: down, as when nothing listens
  expect(odd.status).toBe("down");
  const port = freePort();
  const refused = await probe(`http://127.0.0.1:${port}/v1/x`);
  expect(refused.status).toBe("down");
  expect(refused.fix).toContain(`Nothing accepts connections at 127.0.0.1:${port}`);
});

test("/health/detailed reports the component", async () => {
  const app = await makeTestApp({ ELEVATION_INTERNAL_URL: fake.url });
  try {
    const health = await (await app.fetch("/health/detailed")).json();
    expect(health.components.elevation.status).toBe("ok");
    expect(health.components.elevation.detail).toContain("dataset test30m");
  } finally {
    await app.close();
  }
});

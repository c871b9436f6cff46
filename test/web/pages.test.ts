// The plain pages a new operator meets lead to the console: the landing page, the setup page (before and
// after setup) and the preflight page; and the browser's automatic /favicon.ico request finds the logo.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../support/app";
import { seedSession } from "../support/seed";
import { readPng } from "../../src/sprites/png";

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.close());

const html = async (path: string) => (await t.fetch(path, { headers: { accept: "text/html" } })).text();

describe("pages lead to the console", () => {
  test("before setup: the landing page's main link is the setup, and names where the token is", async () => {
    const page = await html("/");
    expect(page).toContain('<p class="go"><a href="/setup">Set up the admin account</a>');
    expect(page).toContain("DATA_DIR/setup-token");
    expect(page).toContain('href="/console"');
  });

  test("the landing page gives each component that is not ok its fix", async () => {
    const dead = await makeTestApp({ GEOCODER_INTERNAL_URL: "http://127.0.0.1:9/v1" });
    try {
      const page = await (await dead.fetch("/")).text();
      expect(page).toMatch(/<td>geocoder<\/td><td[^>]*>down<\/td><td>[^<]*<br><span class="fix">Fix: Nothing accepts connections at 127\.0\.0\.1:9/);
      expect(page).toContain('<a href="/setup/preflight">setup checks</a>');
    } finally {
      await dead.close();
    }
  });

  test("after setup: the landing page's main link opens the console; setup and preflight link it too", async () => {
    await seedSession(t.ctx, { isAdmin: true });
    expect(await html("/")).toContain('<p class="go"><a href="/console">Open the console</a>');
    const setup = await html("/setup");
    expect(setup).toContain('Setup is complete');
    expect(setup).toContain('<a href="/console">Open the console</a>');
    expect(await html("/setup/preflight")).toContain('<a href="/console">Open the console</a>');
  });

  test("the setup form sends the new admin to the console", async () => {
    const fresh = await makeTestApp();
    try {
      expect(await (await fresh.fetch("/setup")).text()).toContain('location.assign("/console")');
    } finally {
      await fresh.close();
    }
  });
});

test("/favicon.ico is the logo: an ICO holding a 32x32 PNG", async () => {
  const res = await t.fetch("/favicon.ico");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/x-icon");
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect([...bytes.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  const png = readPng(bytes.subarray(22), { pixels: true });
  expect([png.width, png.height]).toEqual([32, 32]);
});

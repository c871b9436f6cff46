// The console's behaviour under double clicks, slow or failing networks, refusals, narrow screens and
// assistive technology, driven in Chromium against a real server (some answers delayed or replaced with
// page.route to make a slow network or an outage reproducible).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { launchBrowser } from "../support/browser";
import { seedOrg, seedSession } from "../support/seed";
import { SESSION_COOKIE } from "../../src/domain/accounts/auth";

let t: TestApp;
let browser: Browser;
let orgId: number;
let admin: Awaited<ReturnType<typeof seedSession>>;

beforeAll(async () => {
  t = await serveTestApp();
  browser = await launchBrowser();
  orgId = seedOrg(t.ctx, "acme").id;
  admin = await seedSession(t.ctx, { orgId, role: "owner", isAdmin: true, email: "owner@example.com" });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A signed-in page (the seeded session's cookie) on `hash`, with every page error collected. */
async function open(hash: string, opts: { width?: number; height?: number; cookie?: string } = {}): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 } });
  const token = (opts.cookie ?? admin.cookie).split("=")[1]!;
  await context.addCookies([{ name: SESSION_COOKIE, value: token, url: t.baseUrl, httpOnly: true }]);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  await page.goto(`${t.baseUrl}/console${hash}`);
  await page.waitForSelector("#app-view:not([hidden])");
  return { page, context, errors };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("busy forms and buttons", () => {
  test("a double click on Create key sends one request; the button is busy until the answer", async () => {
    const { page, context, errors } = await open("#/acme/keys");
    await page.waitForSelector("#new-key-form");
    let posts = 0;
    await page.route("**/api/v1/orgs/acme/keys", async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      posts++;
      await delay(700);
      await route.continue();
    });
    await page.fill("#key-name", "double");
    await page.dblclick("#create-key");
    await page.waitForSelector("#create-key[aria-busy=true]");
    expect(await page.$eval("#create-key", (b) => (b as HTMLButtonElement).disabled)).toBe(true);
    // Enter in the name field cannot submit it again either.
    await page.press("#key-name", "Enter");
    await page.waitForSelector("#key-secret");
    await page.waitForSelector("#create-key:not([aria-busy])");
    expect(await page.$eval("#create-key", (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    expect(posts).toBe(1);
    const keys = (await (await t.fetch("/api/v1/orgs/acme/keys", { headers: admin.headers })).json()) as { keys: { name: string }[] };
    expect(keys.keys.filter((k) => k.name === "double")).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  test("a double click on Create organization sends one POST", async () => {
    const { page, context } = await open("#/acme/new-org");
    await page.waitForSelector("#new-org-form");
    let posts = 0;
    await page.route("**/api/v1/orgs", async (route) => {
      if (route.request().method() === "POST") {
        posts++;
        await delay(500);
      }
      await route.continue();
    });
    await page.fill("#org-slug", "twice");
    await page.dblclick("#new-org-form button[type=submit]");
    await page.waitForSelector(".stats");
    expect(posts).toBe(1);
    expect(await page.$("#new-org-form .alert-error")).toBeNull();
    await context.close();
  }, 30_000);
});

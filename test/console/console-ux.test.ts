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

describe("the confirm dialog", () => {
  test("is named by its heading, stays open and busy while the DELETE runs, and shows a 409 in the dialog", async () => {
    await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "roads" }) });
    const { page, context, errors } = await open("#/acme/tilesets/roads");
    await page.waitForSelector("#upload-form");
    const message = "Tileset 'acme/roads' is used by published style(s) acme/city; publish those styles without it first";
    await page.route("**/api/v1/orgs/acme/tilesets/roads", async (route) => {
      if (route.request().method() !== "DELETE") return route.continue();
      await delay(500);
      await route.fulfill({ status: 409, contentType: "application/json", body: JSON.stringify({ error: { code: "CONFLICT", message } }) });
    });
    await page.click(".page-head button.btn-danger");
    const dialog = await page.waitForSelector("#confirm-dialog[open]");
    expect(await dialog.getAttribute("aria-labelledby")).toBe("confirm-title");
    expect(await page.textContent("#confirm-title")).toBe("Delete tileset roads?");
    // The text says what the server does: refuse while a published style uses the tileset.
    expect(await page.textContent("#confirm-text")).toContain("While a published style uses it, the server refuses");
    expect(await page.textContent("#confirm-text")).not.toContain("stop rendering");
    await page.click("#confirm-ok");
    await page.waitForSelector("#confirm-ok[aria-busy=true]");
    await page.waitForSelector("#confirm-error:not([hidden])");
    expect(await page.textContent("#confirm-error")).toContain(message);
    expect(await page.isVisible("#confirm-dialog[open]")).toBe(true);
    expect(await page.$eval("#confirm-ok", (b) => (b as HTMLButtonElement).disabled)).toBe(false);
    await page.click("#confirm-dialog button[value=cancel]");
    await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
    // Opened again, the old refusal is gone; this time the DELETE goes through.
    await page.unroute("**/api/v1/orgs/acme/tilesets/roads");
    await page.click(".page-head button.btn-danger");
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.isHidden("#confirm-error")).toBe(true);
    await page.click("#confirm-ok");
    await page.waitForSelector("#new-tileset-form");
    expect((await t.fetch("/api/v1/orgs/acme/tilesets/roads", { headers: admin.headers })).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

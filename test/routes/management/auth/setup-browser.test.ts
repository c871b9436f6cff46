// The first-run setup page in a real browser: its script posts the form, the browser keeps the session
// cookie, and the browser's own same-origin requests pass the CSRF check while another origin's do not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../../../support/browser";
import { serveTestApp, type TestApp } from "../../../support/app";
import { issueSetupToken } from "../../../../src/domain/accounts/setup-token";

let t: TestApp;
let browser: Browser;
let token: string;

beforeAll(async () => {
  t = await serveTestApp();
  token = issueSetupToken(t.ctx.sqlite)!;
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("setup page in Chromium", () => {
  test("opened at another address than PUBLIC_URL, the landing and setup pages say which setting to change", async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    const other = t.baseUrl.replace("127.0.0.1", "localhost");
    for (const path of ["/", "/setup"]) {
      await page.goto(`${other}${path}`);
      await page.waitForSelector("#address-warning:not([hidden])");
      expect(await page.textContent("#address-warning")).toBe(
        `You opened this page at ${other}, but Mapstead's PUBLIC_URL is ${t.baseUrl}: signing in and setup from this address will be refused. If ${other} is this server's address, set PUBLIC_URL=${other} and restart Mapstead; otherwise open ${t.baseUrl}.`,
      );
      // At PUBLIC_URL itself there is nothing to say.
      await page.goto(`${t.baseUrl}${path}`);
      await page.waitForLoadState("load");
      expect(await page.isHidden("#address-warning")).toBe(true);
    }
    // The landing page's inline script runs under its CSP (allowed by hash), and nothing else complains.
    expect(problems).toEqual([]);
    expect((await fetch(`${t.baseUrl}/`)).headers.get("content-security-policy")).toContain("script-src 'sha256-");
    await page.close();
  });

  test("mismatched passwords are caught in the page; the right token logs the new admin in", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const outside: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(t.baseUrl)) outside.push(r.url());
    });
    await page.goto(`${t.baseUrl}/setup`);
    await page.fill("#token", token);
    await page.fill("#email", "admin@example.com");
    await page.fill("#password", "browser password");
    await page.fill("#confirm", "different password");
    await page.click("button[type=submit]");
    await page.waitForSelector("#message.error");
    expect(await page.textContent("#message")).toContain("differ");

    await page.fill("#token", "wrong-token");
    await page.fill("#confirm", "browser password");
    await page.click("button[type=submit]");
    await page.waitForFunction(() => document.querySelector("#message")?.textContent?.includes("setup token is wrong"));

    await page.fill("#token", token);
    // Setup leads straight into the console, signed in.
    await Promise.all([page.waitForURL(`${t.baseUrl}/console`), page.click("button[type=submit]")]);
    const cookies = await context.cookies(t.baseUrl);
    const session = cookies.find((c) => c.name === "mapstead_session");
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Lax");

    // The browser's own same-origin POST carries Origin and passes the CSRF check without a token.
    const created = await page.evaluate(async () => {
      const res = await fetch("/api/v1/orgs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ slug: "from-browser" }) });
      return res.status;
    });
    expect(created).toBe(201);
    const me = await page.evaluate(async () => (await fetch("/api/v1/session")).json());
    expect(me.user).toMatchObject({ email: "admin@example.com", is_admin: true });
    expect(me.orgs.map((o: { slug: string }) => o.slug)).toEqual(["from-browser"]);
    expect(outside).toEqual([]);
    await context.close();
  }, 60_000);

  test("a page on another origin cannot make the logged-in browser change anything", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // log in on the appliance
    await page.goto(`${t.baseUrl}/setup`);
    const login = await page.evaluate(async () => (await fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "admin@example.com", password: "browser password" }) })).status);
    expect(login).toBe(200);
    // An attacker's page posts a form to the appliance. From another site (localhost instead of
    // 127.0.0.1) SameSite=Lax keeps the cookie home: 401. From the same site on another port the cookie
    // goes along, and the Origin check refuses it: 403.
    const evil = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          `<!doctype html><form id="f" method="POST" action="${t.baseUrl}/api/v1/orgs" enctype="text/plain"><input name='{"slug":"evil","x":"' value='"}'></form><script>document.getElementById("f").submit()</script>`,
          { headers: { "content-type": "text/html" } },
        ),
    });
    try {
      for (const [host, status] of [["localhost", 401], ["127.0.0.1", 403]] as const) {
        const answer = page.waitForResponse((r) => r.url() === `${t.baseUrl}/api/v1/orgs`);
        await page.goto(`http://${host}:${evil.port}/`);
        expect((await answer).status()).toBe(status);
      }
      expect(t.ctx.sqlite.query("SELECT COUNT(*) AS n FROM orgs WHERE slug = 'evil'").get()).toEqual({ n: 0 });
    } finally {
      evil.stop(true);
      await context.close();
    }
  }, 60_000);
});

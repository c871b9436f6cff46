// The console's Users page (instance admins), driven in Chromium against a real server: disable and
// enable an account, grant and revoke instance admin, sign a user out, set a password, and delete, with
// the API's refusal (an organization's only owner) shown in the dialog. Each change is checked through
// the API as the affected user sees it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { launchBrowser } from "../support/browser";
import { seedOrg, seedSession } from "../support/seed";
import { SESSION_COOKIE } from "../../src/domain/accounts/auth";
import { addMember } from "../../src/domain/orgs/service";

let t: TestApp;
let browser: Browser;
let admin: Awaited<ReturnType<typeof seedSession>>;

beforeAll(async () => {
  t = await serveTestApp();
  browser = await launchBrowser();
  const orgId = seedOrg(t.ctx, "acme").id;
  admin = await seedSession(t.ctx, { orgId, role: "owner", isAdmin: true, email: "admin@example.com" });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const me = (cookie: string) => t.fetch("/api/v1/session", { headers: { cookie } });
const login = (email: string, password: string) =>
  t.fetch("/api/v1/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) });
const rowOf = (email: string) => `tr[data-user="${email}"]`;

/** Clicks a row's action, confirms in the dialog and waits for the dialog to close. */
async function confirmAction(page: Page, email: string, action: string, title: string) {
  await page.click(`${rowOf(email)} button[data-action="${action}"]`);
  await page.waitForSelector("#confirm-dialog[open]");
  expect(await page.textContent("#confirm-title")).toBe(title);
  await page.click("#confirm-ok");
  await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
}

describe("Users page", () => {
  test("an admin disables, enables, promotes, signs out, sets a password and deletes accounts", async () => {
    const bob = await seedSession(t.ctx, { email: "bob@example.com" });
    const carol = await seedSession(t.ctx, { email: "carol@example.com" });
    const bobsOrg = seedOrg(t.ctx, "bobs-maps");
    addMember(t.ctx.db, bobsOrg.id, bob.user.id, "owner");

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.addCookies([{ name: SESSION_COOKIE, value: admin.cookie.split("=")[1]!, url: t.baseUrl, httpOnly: true }]);
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${t.baseUrl}/console#/acme/users`);
    await page.waitForSelector(rowOf("bob@example.com"));
    expect(await page.title()).toBe("Users · acme · Mapstead console");
    // Your own row: no way to disable or delete yourself.
    expect(await page.textContent(rowOf("admin@example.com"))).toContain("(you)");
    expect(await page.$(`${rowOf("admin@example.com")} button[data-action="disable"]`)).toBeNull();
    expect(await page.$(`${rowOf("admin@example.com")} button[data-action="delete"]`)).toBeNull();

    // Disable: bob's session ends and the row says so.
    expect((await me(bob.cookie)).status).toBe(200);
    await confirmAction(page, "bob@example.com", "disable", "Disable bob@example.com?");
    await page.waitForSelector(`${rowOf("bob@example.com")} .badge-bad`);
    expect(await page.textContent(`${rowOf("bob@example.com")} .badge-bad`)).toBe("disabled");
    expect((await me(bob.cookie)).status).toBe(401);
    expect((await login(bob.email, bob.password)).status).toBe(403);
    await page.click(`${rowOf("bob@example.com")} button[data-action="enable"]`);
    await page.waitForSelector(`${rowOf("bob@example.com")} .badge-ok`);
    const bobAgain = await login(bob.email, bob.password);
    expect(bobAgain.status).toBe(200);
    const bobCookie = bobAgain.headers.get("set-cookie")!.split(";")[0]!;

    // Instance admin, granted and revoked.
    await confirmAction(page, "bob@example.com", "grant-admin", "Make bob@example.com an instance admin?");
    await page.waitForSelector(`${rowOf("bob@example.com")} button[data-action="revoke-admin"]`);
    expect((await (await me(bobCookie)).json()).user.is_admin).toBe(true);
    await confirmAction(page, "bob@example.com", "revoke-admin", "Revoke instance admin from bob@example.com?");
    await page.waitForSelector(`${rowOf("bob@example.com")} button[data-action="grant-admin"]`);
    expect((await (await me(bobCookie)).json()).user.is_admin).toBe(false);

    // Sign out everywhere.
    await confirmAction(page, "bob@example.com", "end-sessions", "Sign bob@example.com out everywhere?");
    expect((await me(bobCookie)).status).toBe(401);

    // Set a password from the row: the form picks the account and focuses the password field.
    await page.click(`${rowOf("carol@example.com")} button[data-action="set-password"]`);
    expect(await page.$eval("#password-user", (s) => (s as HTMLSelectElement).selectedOptions[0]!.textContent)).toBe("carol@example.com");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("password-new");
    await page.fill("#password-new", "carol's new password");
    await page.click("#password-form button[type=submit]");
    await page.waitForSelector('.toast:has-text("New password set for carol@example.com; 1 session ended")');
    expect((await me(carol.cookie)).status).toBe(401);
    expect((await login(carol.email, carol.password)).status).toBe(401);
    expect((await login(carol.email, "carol's new password")).status).toBe(200);

    // Delete: the API's refusal for an organization's only owner stays in the dialog.
    await page.click(`${rowOf("bob@example.com")} button[data-action="delete"]`);
    await page.waitForSelector("#confirm-dialog[open]");
    await page.click("#confirm-ok");
    await page.waitForSelector("#confirm-error:not([hidden])");
    expect(await page.textContent("#confirm-error")).toContain("it is the only owner of organization bobs-maps; make someone else owner there first");
    await page.click("#confirm-dialog button[value=cancel]");
    await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
    expect(await page.$(rowOf("bob@example.com"))).not.toBeNull();

    await confirmAction(page, "carol@example.com", "delete", "Delete carol@example.com?");
    await page.waitForSelector(rowOf("carol@example.com"), { state: "detached" });
    expect((await login(carol.email, "carol's new password")).status).toBe(401);

    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  test("a plain member sees no Users section", async () => {
    const member = await seedSession(t.ctx, { orgId: seedOrg(t.ctx, "team").id, role: "member" });
    const context = await browser.newContext();
    await context.addCookies([{ name: SESSION_COOKIE, value: member.cookie.split("=")[1]!, url: t.baseUrl, httpOnly: true }]);
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/console#/team/overview`);
    await page.waitForSelector("#app-view:not([hidden])");
    expect(await page.isVisible('#nav a[data-section="users"]')).toBe(false);
    await context.close();
  }, 30_000);
});

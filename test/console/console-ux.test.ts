// The console's behaviour under double clicks, slow or failing networks, refusals, narrow screens and
// assistive technology, driven in Chromium against a real server (some answers delayed or replaced with
// page.route to make a slow network or an outage reproducible).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { serveTestApp, type TestApp } from "../support/app";
import { launchBrowser } from "../support/browser";
import { seedOrg, seedSession } from "../support/seed";
import { SESSION_COOKIE } from "../../src/domain/accounts/auth";
import { createTileset, publish, upload, waitForVersion } from "../routes/management/tilesets/fixtures";
import { pinSvg } from "../sprites/fixtures";

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

/** A published one-point tileset and a published style of acme, made over the API. */
async function publishedTilesetAndStyle(tileset: string, style: string) {
  const json = { ...admin.headers, "content-type": "application/json" };
  await createTileset(t, "acme", admin.headers, { slug: tileset });
  const points = { type: "FeatureCollection", features: [{ type: "Feature", properties: {}, geometry: { type: "Point", coordinates: [8.5, 47.4] } }] };
  expect((await upload(t, "acme", tileset, admin.headers, JSON.stringify(points), `?filename=${tileset}.geojson`)).status).toBe(202);
  expect((await waitForVersion(t, "acme", tileset, 1, admin.headers)).state).toBe("ready");
  expect((await publish(t, "acme", tileset, 1, admin.headers)).status).toBe(200);
  await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: json, body: JSON.stringify({ slug: style, style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background" }] } }) });
  expect((await t.fetch(`/api/v1/orgs/acme/styles/${style}/publish`, { method: "POST", headers: json, body: "{}" })).status).toBe(200);
}

describe("unpublishing", () => {
  test("a tileset and a style are unpublished after a confirmation; their stable URLs answer 404 and the page follows", async () => {
    await publishedTilesetAndStyle("towns", "townmap");

    const { page, context, errors } = await open("#/acme/tilesets/towns");
    await page.waitForSelector('tr[data-version="1"] #unpublish-tileset');
    // The published version has no Delete until it is unpublished.
    expect(await page.$('tr[data-version="1"] .btn-danger')).toBeNull();
    await page.click("#unpublish-tileset");
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-title")).toBe("Unpublish towns?");
    // Cancelled, nothing happens.
    await page.click("#confirm-dialog button[value=cancel]");
    expect((await t.fetch("/tiles/v1/acme/towns.json")).status).toBe(200);
    await page.click("#unpublish-tileset");
    await page.click("#confirm-ok");
    await page.waitForSelector('tr[data-version="1"] .btn-danger');
    expect(await page.$("#unpublish-tileset")).toBeNull();
    expect(await page.$('tr[data-version="1"] button[data-publish="1"]')).not.toBeNull();
    expect(await page.textContent(".page-head")).toContain("unpublished");
    expect(await page.$('#tileset-urls code[data-url="Stable"]')).toBeNull();
    expect((await t.fetch("/tiles/v1/acme/towns.json")).status).toBe(404);
    expect((await t.fetch("/tiles/v1/acme/towns@1.json")).status).toBe(200);

    await page.goto(`${t.baseUrl}/console#/acme/styles/townmap`);
    await page.click("#unpublish-style");
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-title")).toBe("Unpublish style townmap?");
    await page.click("#confirm-ok");
    await page.waitForSelector("#unpublish-style", { state: "detached" });
    expect(await page.textContent(".page-head")).toContain("draft only");
    expect(await page.$('#style-urls code[data-url="Stable"]')).toBeNull();
    expect(await page.inputValue("#preview-mode")).toBe("draft");
    expect((await t.fetch("/styles/v1/acme/townmap")).status).toBe(404);
    expect((await t.fetch("/styles/v1/acme/townmap@1")).status).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe("publishing a style with unsaved edits", () => {
  test("Publish draft saves what the editor shows first; an invalid edit is listed and nothing is published", async () => {
    const json = { ...admin.headers, "content-type": "application/json" };
    await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: json, body: JSON.stringify({ slug: "edited", style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "#ffffff" } }] } }) });
    const { page, context, errors } = await open("#/acme/styles/edited");
    await page.waitForSelector("#draft-json");
    const edit = async (color: string, type = "background") => {
      const draft = JSON.parse(await page.inputValue("#draft-json"));
      draft.layers[0] = { ...draft.layers[0], type, paint: { "background-color": color } };
      await page.fill("#draft-json", JSON.stringify(draft, null, 2));
    };
    const published = async () => (await t.fetch("/styles/v1/acme/edited")).json() as Promise<{ layers: { paint: Record<string, string> }[] }>;

    await edit("#ff0000");
    await page.click("#publish-style");
    await page.waitForSelector('#style-urls code[data-url="Stable"]');
    expect((await published()).layers[0]!.paint["background-color"]).toBe("#ff0000");

    await edit("#00ff00", "no-such-type");
    await page.click("#publish-style");
    await page.waitForSelector("#draft-errors .alert-error");
    expect(await page.textContent("#draft-errors")).toContain("layers[0].type");
    await page.waitForSelector("#publish-style:not([disabled])");
    expect((await published()).layers[0]!.paint["background-color"]).toBe("#ff0000");
    const versions = (await (await t.fetch("/api/v1/orgs/acme/styles/edited/versions", { headers: admin.headers })).json()) as { versions: unknown[] };
    expect(versions.versions).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("private URLs", () => {
  test("the URL cards say what a private tileset's or style's URLs need, as soon as the settings make it private", async () => {
    await publishedTilesetAndStyle("hidden", "hiddenmap");
    const json = { ...admin.headers, "content-type": "application/json" };

    const { page, context, errors } = await open("#/acme/tilesets/hidden");
    await page.waitForSelector('#tileset-urls code[data-url="Stable"]');
    expect(await page.$("#tileset-urls .private-urls")).toBeNull();
    await page.selectOption("#tileset-settings select[name=visibility]", "private");
    await page.click("#tileset-settings button[type=submit]");
    await page.waitForSelector("#tileset-urls .private-urls");
    expect(await page.textContent("#tileset-urls .private-urls")).toContain("maps:read scope, sent in the X-API-Key header");
    // What the note says: the bare URL is a 404 outside, a maps:read key in X-API-Key opens it.
    expect((await t.fetch("/tiles/v1/acme/hidden.json")).status).toBe(404);
    const key = ((await (await t.fetch("/api/v1/orgs/acme/keys", { method: "POST", headers: json, body: JSON.stringify({ name: "reader", scopes: ["maps:read"] }) })).json()) as { secret: string }).secret;
    expect((await t.fetch("/tiles/v1/acme/hidden.json", { headers: { "x-api-key": key } })).status).toBe(200);

    await page.goto(`${t.baseUrl}/console#/acme/styles/hiddenmap`);
    await page.waitForSelector('#style-urls code[data-url="Stable"]');
    expect(await page.$("#style-urls .private-urls")).toBeNull();
    await page.selectOption("#style-settings select[name=visibility]", "private");
    await page.click("#style-settings button[type=submit]");
    await page.waitForSelector("#style-urls .private-urls");
    // The raster tile card follows too.
    await page.waitForSelector("text=This style is private");
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe("API key limits", () => {
  test("the create form sets a rate limit and a monthly quota; the list shows them and this month's use", async () => {
    // A key made elsewhere whose quota is used up this month.
    const made = await t.fetch("/api/v1/orgs/acme/keys", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ name: "spent", scopes: ["geocoding"], monthly_quota: 2 }) });
    const spent = ((await made.json()) as { key: { id: number } }).key;
    t.ctx.sqlite.query("INSERT INTO key_usage (key_id, day, service, count) VALUES (?, ?, 'geocoding', 2)").run(spent.id, new Date().toISOString().slice(0, 10));

    const { page, context, errors } = await open("#/acme/keys");
    const spentRow = `tr[data-key="${spent.id}"]`;
    await page.waitForSelector(`${spentRow} [data-usage]`);
    expect(await page.textContent(`${spentRow} .key-limits`)).toContain("quota 2/month");
    expect(await page.textContent(`${spentRow} .key-usage`)).toContain("used 2 of 2 this month");
    expect(await page.textContent(`${spentRow} .key-usage .badge`)).toBe("quota used up");

    // A value the API would refuse is refused here with a message naming the field, and nothing is sent.
    let posts = 0;
    page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/keys") && posts++);
    await page.fill("#key-name", "limited");
    await page.evaluate(() => document.querySelector("#key-rate-limit")!.removeAttribute("min"));
    await page.fill("#key-rate-limit", "0");
    await page.click("#create-key");
    await page.waitForSelector("#new-key-form .alert-error");
    expect(await page.textContent("#new-key-form .alert-error")).toContain("Rate limit must be a whole number from 1 to 10,000,000");
    expect(posts).toBe(0);

    await page.fill("#key-rate-limit", "120");
    await page.fill("#key-quota", "5000");
    await page.click("#create-key");
    await page.waitForSelector("#key-secret");
    const keys = (await (await t.fetch("/api/v1/orgs/acme/keys", { headers: admin.headers })).json()) as { keys: { id: number; name: string; rate_limit_per_minute: number | null; monthly_quota: number | null }[] };
    const limited = keys.keys.find((k) => k.name === "limited")!;
    expect([limited.rate_limit_per_minute, limited.monthly_quota]).toEqual([120, 5000]);
    const row = `tr[data-key="${limited.id}"]`;
    await page.waitForSelector(`${row} [data-usage]`);
    expect(await page.textContent(`${row} .key-limits`)).toContain("120/min");
    expect(await page.textContent(`${row} .key-limits`)).toContain("quota 5,000/month");
    expect(await page.textContent(`${row} .key-usage`)).toBe("used 0 of 5,000 this month");
    expect(await page.$(`${row} .key-usage .badge`)).toBeNull();
    // Empty fields keep the defaults: no limit of its own, no quota. The form came back to its defaults
    // (maps:read checked), so a second key needs only a name.
    expect(await page.isChecked('input[name=scope][value="maps:read"]')).toBe(true);
    await page.fill("#key-name", "plain");
    await page.click("#create-key");
    await page.waitForFunction(() => document.querySelector("#new-key-secret")?.textContent?.includes("Key “plain” created"));
    const plain = ((await (await t.fetch("/api/v1/orgs/acme/keys", { headers: admin.headers })).json()) as { keys: { id: number; name: string; rate_limit_per_minute: number | null; monthly_quota: number | null }[] }).keys.find((k) => k.name === "plain")!;
    expect([plain.rate_limit_per_minute, plain.monthly_quota]).toEqual([null, null]);
    await page.waitForSelector(`tr[data-key="${plain.id}"] [data-usage]`);
    expect(await page.textContent(`tr[data-key="${plain.id}"] .key-limits`)).toBe("default rateno quotaused 0 this month");
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  test("an existing key's limits, scopes and expiry are edited in place; only what changed is sent", async () => {
    const made = await t.fetch("/api/v1/orgs/acme/keys", {
      method: "POST",
      headers: { ...admin.headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "mobile", scopes: ["maps:read"], monthly_quota: 1000, expires_at: "2099-06-30T15:30:00Z" }),
    });
    const key = ((await made.json()) as { key: { id: number } }).key;
    type KeyRow = { id: number; name: string; scopes: string[]; expires_at: string | null; rate_limit_per_minute: number | null; monthly_quota: number | null };
    const fetchKey = async () => ((await (await t.fetch("/api/v1/orgs/acme/keys", { headers: admin.headers })).json()) as { keys: KeyRow[] }).keys.find((k) => k.id === key.id)!;

    const { page, context, errors } = await open("#/acme/keys");
    const row = `tr[data-key="${key.id}"]`;
    const patches: string[] = [];
    page.on("request", (r) => r.method() === "PATCH" && patches.push(r.postData() ?? ""));
    await page.click(`${row} button[data-edit]`);
    await page.waitForSelector("#edit-key-form");
    // The form shows the key as it is.
    expect(await page.inputValue("#edit-key-name")).toBe("mobile");
    expect(await page.inputValue("#edit-key-quota")).toBe("1000");
    expect(await page.inputValue("#edit-key-rate-limit")).toBe("");
    expect(await page.inputValue("#edit-key-expires")).toBe("2099-06-30");
    expect(await page.isChecked('#edit-key-form input[name=scope][value="maps:read"]')).toBe(true);

    // A limit the API would refuse is refused here, naming the field.
    await page.evaluate(() => document.querySelector("#edit-key-rate-limit")!.removeAttribute("min"));
    await page.fill("#edit-key-rate-limit", "0");
    await page.click("#save-key");
    await page.waitForSelector("#edit-key-form .alert-error");
    expect(await page.textContent("#edit-key-form .alert-error")).toContain("Rate limit must be a whole number");
    expect(patches).toEqual([]);

    // A rate limit set, the quota cleared, a scope added; the untouched expiry keeps its time of day.
    await page.fill("#edit-key-rate-limit", "300");
    await page.fill("#edit-key-quota", "");
    await page.check('#edit-key-form input[name=scope][value="geocoding"]');
    await page.click("#save-key");
    await page.waitForFunction((sel) => document.querySelector(`${sel} .key-limits`)?.textContent?.includes("300/min"), row);
    expect(patches.map((p) => JSON.parse(p))).toEqual([{ scopes: ["maps:read", "geocoding"], rate_limit_per_minute: 300, monthly_quota: null }]);
    const edited = await fetchKey();
    expect([edited.rate_limit_per_minute, edited.monthly_quota, edited.expires_at]).toEqual([300, null, "2099-06-30T15:30:00.000Z"]);
    expect(edited.scopes.sort()).toEqual(["geocoding", "maps:read"]);
    expect(await page.textContent(`${row} .key-limits`)).toContain("no quota");
    expect(await page.$("#edit-key-form")).toBeNull();

    // Saving without a change sends nothing; clearing the expiry sends null (never expires).
    await page.click(`${row} button[data-edit]`);
    await page.click("#save-key");
    await page.waitForSelector("#edit-key-form", { state: "detached" });
    expect(patches.length).toBe(1);
    await page.click(`${row} button[data-edit]`);
    await page.fill("#edit-key-expires", "");
    await page.click("#save-key");
    // The list is drawn again once the key is saved, without the edit row.
    await page.waitForSelector("#edit-key-form", { state: "detached" });
    expect(await page.textContent(`${row} td:nth-child(4)`)).toBe("never");
    expect(JSON.parse(patches[1]!)).toEqual({ expires_at: null });
    expect((await fetchKey()).expires_at).toBeNull();
    // A day picked is the last day the key works: it expires at that day's end (UTC), so today is valid.
    await page.click(`${row} button[data-edit]`);
    const today = new Date().toISOString().slice(0, 10);
    await page.fill("#edit-key-expires", today);
    await page.click("#save-key");
    await page.waitForSelector("#edit-key-form", { state: "detached" });
    expect(JSON.parse(patches[2]!)).toEqual({ expires_at: `${today}T23:59:59Z` });
    expect((await fetchKey()).expires_at).toBe(`${today}T23:59:59.000Z`);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("following a version through an outage", () => {
  test("the tileset page says the server cannot be reached, retries, and resumes when it answers", async () => {
    await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "rivers" }) });
    const tilesetId = t.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM tilesets WHERE slug = 'rivers'").get()!.id;
    // A version caught mid-processing (no job behind it, so only this test moves it on).
    t.ctx.sqlite
      .query("INSERT INTO tileset_versions (tileset_id, version, state, progress, stats, created_at, updated_at) VALUES (?, 1, 'processing', 0.3, '{}', ?, ?)")
      .run(tilesetId, Date.now(), Date.now());
    const setVersion = (sql: string) => t.ctx.sqlite.query(`UPDATE tileset_versions SET ${sql} WHERE tileset_id = ? AND version = 1`).run(tilesetId);

    const { page, context, errors } = await open("#/acme/tilesets/rivers");
    await page.waitForSelector('tr[data-version="1"][data-state="processing"]');
    expect(await page.textContent('tr[data-version="1"] .cell-progress')).toContain("30%");
    // The server stops answering.
    await page.route("**/api/v1/**", (route) => route.abort("connectionrefused"));
    await page.waitForSelector("#versions-poll-note:not([hidden])");
    expect(await page.textContent("#versions-poll-note")).toContain("The server cannot be reached");
    expect(await page.textContent("#versions-poll-note")).toMatch(/trying again in \d+ s/);
    // Meanwhile processing goes on; once the server answers again the page catches up and the note goes.
    setVersion("progress = 0.6");
    await page.unroute("**/api/v1/**");
    await page.waitForSelector('tr[data-version="1"] .cell-progress >> text=60%', { timeout: 20_000 });
    expect(await page.isHidden("#versions-poll-note")).toBe(true);
    setVersion("state = 'failed', error = 'the file ended early'");
    await page.waitForSelector('tr[data-version="1"][data-state="failed"]', { timeout: 10_000 });
    expect(await page.textContent('tr[data-version="1"] .version-error')).toContain("the file ended early");

    // The tileset list follows the latest version the same way.
    setVersion("state = 'processing', error = NULL, progress = 0.1");
    await page.goto(`${t.baseUrl}/console#/acme/tilesets`);
    await page.waitForSelector('tr[data-tileset="rivers"] .cell-progress');
    await page.route("**/api/v1/**", (route) => route.abort("connectionrefused"));
    await page.waitForSelector("#tilesets-poll-note:not([hidden])", { timeout: 15_000 });
    setVersion("state = 'failed', error = 'x'");
    await page.unroute("**/api/v1/**");
    await page.waitForSelector('tr[data-tileset="rivers"] .badge-failed', { timeout: 20_000 });
    expect(await page.isHidden("#tilesets-poll-note")).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe("narrow screens", () => {
  test("at 375 px no page scrolls sideways, tables scroll in their own box, and the sidebar is a top bar with a menu", async () => {
    const json = { ...admin.headers, "content-type": "application/json" };
    const post = (path: string, body: unknown) => t.fetch(path, { method: "POST", headers: json, body: JSON.stringify(body) });
    expect((await post("/api/v1/orgs", { slug: "narrow", name: "A rather long organization name for a phone" })).status).toBe(201);
    await post("/api/v1/orgs/narrow/keys", { name: "a-key-with-a-long-name-for-production", scopes: ["geocoding", "routing", "static_maps"], allowed_origins: ["https://maps.example.com"], monthly_quota: 1000 });
    await post("/api/v1/orgs/narrow/tilesets", { slug: "coastline-with-a-long-slug", name: "Coastline" });
    const tilesetId = t.ctx.sqlite.query<{ id: number }, []>("SELECT id FROM tilesets WHERE slug = 'coastline-with-a-long-slug'").get()!.id;
    t.ctx.sqlite
      .query("INSERT INTO tileset_versions (tileset_id, version, state, progress, error, stats, created_at, updated_at) VALUES (?, 1, 'failed', 1, 'The file is not GeoJSON: unexpected token at line 1', '{}', ?, ?)")
      .run(tilesetId, Date.now(), Date.now());
    await post("/api/v1/orgs/narrow/styles", { slug: "plain", style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background", paint: { "background-color": "#ddeeff" } }] } });
    expect((await post("/api/v1/orgs/narrow/styles/plain/publish", {})).status).toBe(200);

    const { page, context, errors } = await open("#/narrow/overview", { width: 375, height: 740 });
    const widths: Record<string, number> = {};
    for (const [hash, ready] of [
      ["overview", ".stats"],
      ["keys", "tr[data-key]"],
      ["tilesets", "tr[data-tileset]"],
      ["tilesets/coastline-with-a-long-slug", 'tr[data-version="1"]'],
      ["styles", "table"],
      ["styles/plain", "#draft-json"],
      ["members", "tr[data-member]"],
      ["users", "tr[data-user]"],
      ["geocoding", "#gazetteer-datasets"],
    ] as const) {
      await page.goto(`${t.baseUrl}/console#/narrow/${hash}`);
      await page.waitForSelector(ready, { timeout: 60_000 });
      widths[hash] = await page.evaluate(() => document.documentElement.scrollWidth);
    }
    expect(widths).toEqual(Object.fromEntries(Object.keys(widths).map((k) => [k, 375])));
    // The key table scrolls inside its own box.
    await page.goto(`${t.baseUrl}/console#/narrow/keys`);
    await page.waitForSelector("tr[data-key]");
    const table = await page.$eval("tr[data-key]", (tr) => {
      const t = tr.closest("table")!;
      return { client: t.clientWidth, scroll: t.scrollWidth, overflow: getComputedStyle(t).overflowX };
    });
    expect(table.client).toBeLessThanOrEqual(375);
    expect(table.overflow).toBe("auto");
    // The sidebar is a short top bar; its menu opens with the button and closes after a navigation.
    expect(await page.$eval(".sidebar", (s) => s.getBoundingClientRect().height)).toBeLessThan(80);
    expect(await page.isVisible("#nav")).toBe(false);
    await page.click("#menu-button");
    expect(await page.getAttribute("#menu-button", "aria-expanded")).toBe("true");
    expect(await page.isVisible('#nav a[data-section="members"]')).toBe(true);
    await page.click('#nav a[data-section="members"]');
    await page.waitForSelector("tr[data-member]");
    expect(await page.isVisible("#nav")).toBe(false);
    expect(await page.getAttribute("#menu-button", "aria-expanded")).toBe("false");
    // Wide screens keep the sidebar with its sections and no menu button.
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await page.isVisible("#nav")).toBe(true);
    expect(await page.isVisible("#menu-button")).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});

describe("messages follow the state they describe", () => {
  test("upload, draft and member messages are replaced or cleared when what they say changes", async () => {
    const json = { ...admin.headers, "content-type": "application/json" };
    await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "broken" }) });
    const { page, context, errors } = await open("#/acme/tilesets/broken");
    // "Uploaded …; processing as v1" goes once v1 has failed (the row says why).
    await page.setInputFiles("#tileset-file", { name: "broken.geojson", mimeType: "application/geo+json", buffer: Buffer.from('{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1]}}]}') });
    await page.click("#upload-button");
    await page.waitForSelector('tr[data-version="1"][data-state="failed"]', { timeout: 20_000 });
    await page.waitForSelector(".progress-line:has(#upload-progress)", { state: "hidden" });

    // "Draft saved and valid. Publish it…" goes once it is published.
    await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: json, body: JSON.stringify({ slug: "bare", style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background" }] } }) });
    await page.goto(`${t.baseUrl}/console#/acme/styles/bare`);
    await page.click("#save-draft");
    await page.waitForSelector("#draft-errors .alert-ok");
    await page.click("#publish-style");
    await page.waitForSelector('#style-urls code[data-url="Stable"]');
    expect(await page.isHidden("#draft-errors")).toBe(true);

    // A missing account: the message points to the form below, and goes once the account exists.
    await page.goto(`${t.baseUrl}/console#/acme/members`);
    await page.fill("#member-email", "newcomer@example.com");
    await page.click("#add-member-form button[type=submit]");
    await page.waitForSelector("#add-member-form .alert-error");
    const said = (await page.textContent("#add-member-form .alert-error"))!;
    expect(said).toContain("No user account with email newcomer@example.com");
    expect(said).toContain("Create a user account");
    expect(said).not.toContain("POST /api/v1/users");
    await page.fill("#user-email-new", "newcomer@example.com");
    await page.fill("#user-password-new", "a good long password");
    await page.click("#new-user-form button[type=submit]");
    await page.waitForFunction(() => (document.querySelector("#member-email") as HTMLInputElement).value === "newcomer@example.com" && !document.querySelector("#new-user-form [aria-busy]"));
    expect(await page.isVisible("#add-member-form .alert-error")).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe("removed from an organization", () => {
  test("the next page refused for it refreshes the organization list and says so plainly", async () => {
    const clubId = seedOrg(t.ctx, "club").id;
    const leaver = await seedSession(t.ctx, { orgId: clubId, role: "member", email: "leaver@example.com" });
    const { addMember } = await import("../../src/domain/orgs/service");
    addMember(t.ctx.db, orgId, leaver.user.id, "member");
    const { page, context, errors } = await open("#/club/tilesets", { cookie: leaver.cookie });
    await page.waitForSelector("#new-tileset-form", { state: "attached" });
    expect(await page.textContent("#org-select")).toContain("club");
    // An admin removes the member elsewhere.
    expect((await t.fetch(`/api/v1/orgs/club/members/${leaver.user.id}`, { method: "DELETE", headers: admin.headers })).status).toBe(204);
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#org-notice");
    expect(await page.textContent("#org-notice")).toContain("You are no longer a member of club");
    expect(await page.textContent("#org-select")).not.toContain("club");
    expect(await page.inputValue("#org-select")).toBe("acme");
    expect(page.url()).toEndWith("#/acme/overview");
    expect(await page.$("text=Something went wrong")).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("accessibility", () => {
  test("labelled style controls, a title per section, and text contrast of at least 4.5:1", async () => {
    await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: { ...admin.headers, "content-type": "application/json" }, body: JSON.stringify({ slug: "labelled", style: { version: 8, sources: {}, layers: [] } }) });
    const { page, context, errors } = await open("#/acme/styles/labelled");
    await page.waitForSelector("#preview-mode");
    // Every form control has an accessible name (a <label> around it, or aria-label).
    const unnamed = await page.evaluate(() =>
      Array.from(document.querySelectorAll("#main input, #main select, #main textarea"))
        .filter((el) => !el.closest("label") && !el.getAttribute("aria-label") && !(el.id && document.querySelector(`label[for="${el.id}"]`)))
        .map((el) => el.id || el.outerHTML.slice(0, 80)),
    );
    expect(unnamed).toEqual([]);
    expect(await page.getAttribute("#preview-mode", "aria-label")).toBe("Preview mode");
    expect(await page.getAttribute("#sprite-file", "aria-label")).toContain("Sprite files");
    expect(await page.title()).toBe("labelled · Styles · acme · Mapstead console");
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    expect(await page.title()).toBe("API keys · acme · Mapstead console");
    await page.click('#nav a[data-section="geocoding"]');
    await page.waitForFunction(() => document.title === "Geocoding · acme · Mapstead console");

    // Contrast of the sidebar's version text on the sidebar and the breadcrumb link on the page.
    await page.goto(`${t.baseUrl}/console#/acme/styles/labelled`);
    await page.waitForSelector(".crumbs a");
    const ratios = await page.evaluate(() => {
      const rgb = (c: string) => c.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => {
          const s = v / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const ratio = (fg: string, bg: string) => {
        const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        return (a! + 0.05) / (b! + 0.05);
      };
      const color = (sel: string) => getComputedStyle(document.querySelector(sel)!).color;
      const background = (sel: string) => getComputedStyle(document.querySelector(sel)!).backgroundColor;
      return { version: ratio(color(".sidebar-links .muted"), background(".sidebar")), crumb: ratio(color(".crumbs a"), background("body")) };
    });
    expect(ratios.version).toBeGreaterThanOrEqual(4.5);
    expect(ratios.crumb).toBeGreaterThanOrEqual(4.5);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("focus after navigation", () => {
  test("a sidebar link or a link on the page moves focus to the new page; a page's own field and the organization picker keep it", async () => {
    const json = { ...admin.headers, "content-type": "application/json" };
    await t.fetch("/api/v1/orgs/acme/tilesets", { method: "POST", headers: json, body: JSON.stringify({ slug: "focused" }) });
    expect((await t.fetch("/api/v1/orgs", { method: "POST", headers: json, body: JSON.stringify({ slug: "focus-two" }) })).status).toBe(201);
    const { page, context, errors } = await open("#/acme/overview");
    await page.waitForSelector(".stats");
    const focused = () => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    await page.focus('#nav a[data-section="tilesets"]');
    await page.keyboard.press("Enter");
    await page.waitForSelector('tr[data-tileset="focused"]');
    await page.waitForFunction(() => document.activeElement?.id === "main");
    // Tab goes on inside the page, not back in the sidebar.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.querySelector("#main")!.contains(document.activeElement))).toBe(true);
    // A link inside the page that is replaced.
    await page.focus('tr[data-tileset="focused"] a');
    await page.keyboard.press("Enter");
    await page.waitForSelector("#upload-form");
    await page.waitForFunction(() => document.activeElement?.id === "main");
    // The new organization page focuses its slug field itself.
    await page.click("#new-org-button");
    await page.waitForSelector("#new-org-form");
    expect(await focused()).toBe("org-slug");
    // Choosing another organization with the keyboard leaves focus on the picker.
    await page.focus("#org-select");
    await page.selectOption("#org-select", "focus-two");
    await page.waitForFunction(() => location.hash === "#/focus-two/overview" && !!document.querySelector(".stats"));
    expect(await focused()).toBe("org-select");
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("the Geocoding page", () => {
  test("says when the backend answering the API is down, and that its search box is the embedded gazetteer", async () => {
    const { page, context, errors } = await open("#/acme/geocoding");
    await page.waitForSelector("#gazetteer-search-form");
    // As the page shows it while Pelias answers the API and does not answer itself.
    await page.route("**/health/detailed", (route) =>
      route.fulfill({
        contentType: "application/json",
        body: JSON.stringify({ status: "degraded", components: { geocoder: { status: "down", backend: "pelias", detail: "Pelias: connection refused", fix: "Nothing accepts connections at pelias:4000: start the service" } } }),
      }),
    );
    await page.route("**/api/v1/gazetteer/datasets", async (route) => {
      const real = await (await route.fetch()).json();
      await route.fulfill({ contentType: "application/json", body: JSON.stringify({ ...real, backend: "pelias" }) });
    });
    await page.reload();
    await page.waitForSelector("#geocoder-health");
    expect(await page.textContent("#geocoder-health")).toBe("Geocoding is down: Pelias: connection refusedFix: Nothing accepts connections at pelias:4000: start the service");
    expect(await page.textContent("#gazetteer-search-note")).toContain("does not answer the geocoding API while Pelias does");
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe("a new key's secret", () => {
  test("leaving before it is copied or dismissed asks first (links, Back, closing the tab); once copied or dismissed, it does not", async () => {
    const { page, context, errors } = await open("#/acme/overview");
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    const create = async (name: string) => {
      await page.fill("#key-name", name);
      await page.click("#create-key");
      await page.waitForFunction((n) => document.querySelector("#new-key-secret")?.textContent?.includes(`Key “${n}” created`), name);
    };
    const hash = () => page.evaluate(() => location.hash);
    // What a tab close or reload would meet: the page's beforeunload handlers cancelling it or not.
    const unloadBlocked = () =>
      page.evaluate(() => {
        const e = new Event("beforeunload", { cancelable: true });
        window.dispatchEvent(e);
        return e.defaultPrevented;
      });
    const noDialog = async () => expect(await page.$("#confirm-dialog[open]")).toBeNull();
    // The dialog loses its open attribute at once, but its close event, which answers the router's
    // question, comes a task later: a Back sent in between meets a question still being asked.
    const cancel = async () => {
      await page.click("#confirm-dialog button[value=cancel]");
      await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
      await page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
    };

    await create("guarded");
    expect(await unloadBlocked()).toBe(true);
    // A sidebar link asks; cancelled, the page and its secret stay, and so does the address.
    await page.click('#nav a[data-section="styles"]');
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-title")).toBe("Leave without the secret of “guarded”?");
    await cancel();
    expect(await hash()).toBe("#/acme/keys");
    expect(await page.$("#key-secret")).not.toBeNull();
    // Back asks the same.
    await page.goBack();
    await page.waitForSelector("#confirm-dialog[open]");
    await cancel();
    expect(await hash()).toBe("#/acme/keys");
    expect(await page.$("#key-secret")).not.toBeNull();
    // Copied, nothing asks any more.
    await page.click("#new-key-secret .secret-box button");
    await page.waitForSelector(".toast >> text=Secret copied to the clipboard");
    expect(await unloadBlocked()).toBe(false);
    await page.click('#nav a[data-section="styles"]');
    await page.waitForSelector("#new-style-form, .page-head >> text=Styles");
    expect(await hash()).toBe("#/acme/styles");
    await noDialog();

    // Confirmed, the navigation goes on to where it was headed.
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    await create("confirmed");
    await page.click('#nav a[data-section="overview"]');
    await page.waitForSelector("#confirm-dialog[open]");
    await page.click("#confirm-ok");
    await page.waitForFunction(() => location.hash === "#/acme/overview");
    await page.waitForSelector("#new-key-form", { state: "detached" });
    await noDialog();

    // Dismissed ("I have stored it"), nothing asks either.
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    await create("dismissed");
    await page.click("#key-secret-done");
    expect(await unloadBlocked()).toBe(false);
    await page.click('#nav a[data-section="overview"]');
    await page.waitForFunction(() => location.hash === "#/acme/overview");
    await noDialog();

    // Closing the tab with a secret not copied meets the browser's own prompt.
    await page.click('#nav a[data-section="keys"]');
    await page.waitForSelector("#new-key-form");
    await create("closed");
    expect(errors).toEqual([]);
    const prompt = page.waitForEvent("dialog");
    await page.close({ runBeforeUnload: true });
    const dialog = await prompt;
    expect(dialog.type()).toBe("beforeunload");
    await dialog.accept();
    await context.close();
  }, 60_000);
});

describe("a style's sprite", () => {
  test("Remove sprite asks, deletes the draft sprite and the page follows", async () => {
    const json = { ...admin.headers, "content-type": "application/json" };
    await t.fetch("/api/v1/orgs/acme/styles", { method: "POST", headers: json, body: JSON.stringify({ slug: "pins", style: { version: 8, sources: {}, layers: [{ id: "bg", type: "background" }] } }) });
    const put = await t.fetch("/api/v1/orgs/acme/styles/pins/sprite?name=pin", { method: "PUT", headers: { ...admin.headers, "content-type": "image/svg+xml" }, body: pinSvg });
    expect(put.status).toBe(200);
    const { page, context, errors } = await open("#/acme/styles/pins");
    await page.waitForSelector("#sprite-form");
    expect(await page.textContent("#sprite-form")).toContain("1 icon(s)");
    await page.click("#remove-sprite");
    await page.waitForSelector("#confirm-dialog[open]");
    expect(await page.textContent("#confirm-title")).toBe("Remove the sprite of pins?");
    // Cancelled, the sprite stays.
    await page.click("#confirm-dialog button[value=cancel]");
    await page.waitForSelector("#confirm-dialog:not([open])", { state: "attached" });
    expect(((await (await t.fetch("/api/v1/orgs/acme/styles/pins", { headers: admin.headers })).json()) as { sprite_icons: string[] }).sprite_icons).toEqual(["pin"]);
    await page.click("#remove-sprite");
    await page.click("#confirm-ok");
    await page.waitForSelector("#sprite-form >> text=No sprite yet.");
    expect(await page.$("#remove-sprite")).toBeNull();
    expect(((await (await t.fetch("/api/v1/orgs/acme/styles/pins", { headers: admin.headers })).json()) as { sprite_icons: string[] }).sprite_icons).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

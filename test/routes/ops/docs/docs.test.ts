// /openapi.json and /docs. The docs page must render in a real browser with every request outside
// the appliance blocked: an air-gapped install gets a working API reference, not a blank page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { serveTestApp, type TestApp } from "../../../support/app";
import { launchBrowser } from "../../../support/browser";

let t: TestApp;
beforeAll(async () => {
  t = await serveTestApp();
});
afterAll(() => t.close());

describe("GET /openapi.json", () => {
  test("documents every route with tags, a summary and responses; the server is PUBLIC_URL", async () => {
    const res = await t.fetch("/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.info.title).toBe("Mapstead API");
    expect(doc.servers).toEqual([{ url: t.baseUrl }]);
    const operations = Object.entries<Record<string, { tags?: string[]; summary?: string; responses?: object }>>(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
    );
    expect(operations.length).toBeGreaterThan(3);
    const undocumented = operations.filter(({ op }) => !op.tags?.length || !op.summary || !op.responses || !Object.keys(op.responses).length).map((o) => o.route);
    expect(undocumented).toEqual([]);
    // The docs' own asset route is not an API operation.
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/docs"))).toBe(false);
    expect(doc.paths["/health/detailed"].get.responses["503"]).toBeTruthy();
  });

  test("integers are integers: no field is documented as a string or an integer (generated clients type them by this)", async () => {
    const doc = await (await t.fetch("/openapi.json")).json();
    const coerced: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== "object") return;
      const anyOf = (node as { anyOf?: { type?: string; format?: string }[] }).anyOf;
      if (Array.isArray(anyOf) && anyOf.some((m) => m?.type === "string" && (m.format === "integer" || m.format === "numeric"))) coerced.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc, "");
    expect(coerced).toEqual([]);
    const version = doc.paths["/api/v1/orgs/{org}/tilesets/{ts}/versions/{n}"].get.responses["200"].content["application/json"].schema.properties.version;
    expect(version).toEqual({ type: "integer" });
  });
});

describe("GET /docs in a browser with no internet", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  test("renders the API reference from local assets only", async () => {
    const page = await browser.newPage();
    const local = new URL(t.baseUrl).host;
    const outside: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).host === local) return route.continue();
      outside.push(url);
      return route.abort("internetdisconnected");
    });
    page.on("requestfailed", (r) => failed.push(r.url()));
    page.on("response", (r) => void (r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`)));
    page.on("pageerror", (e) => errors.push(String(e)));
    // Scalar logs problems it finds in the document and deprecated settings to the console.
    const logged: string[] = [];
    page.on("console", (m) => void ((m.type() === "error" || m.type() === "warning") && logged.push(`${m.type()}: ${m.text()}`)));

    await page.goto(`${t.baseUrl}/docs`);
    // The title of an operation, taken from its OpenAPI summary, shows that the document loaded and rendered.
    await page.getByText("Reachability check; touches no dependency").first().waitFor({ state: "visible", timeout: 30_000 });
    await page.getByText("Mapstead API").first().waitFor({ state: "visible" });
    expect(outside).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await Bun.sleep(500); // validation messages come after the first render
    // no validation errors in the document and no deprecated settings
    expect(logged).toEqual([]);
    await page.close();
  }, 60_000);
});

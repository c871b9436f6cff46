// The OpenAPI document tells the truth: it is a valid OpenAPI 3.1 document (checked by a real
// validator), and every route's entry lists its success status and every status the route can
// answer, derived from what the route declares: its auth macro (scope: 401/403/429; session: 401, and
// 403 for unsafe methods; viewer: 404 for private assets), its inputs (params/query/body schema: 400;
// a JSON body: 411/413, and 415 for one of another type; an upload: 413) and the statuses its handler declares (`response`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { makeTestApp, type TestApp } from "../support/app";
import { routeTableFrom } from "../../src/http/route-facts";

let t: TestApp;
let doc: { openapi: string; paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };
beforeAll(async () => {
  t = await makeTestApp();
  doc = await (await t.fetch("/openapi.json")).json();
});
afterAll(() => t.close());

interface Hooks {
  scope?: string;
  session?: boolean;
  viewer?: boolean;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  headers?: unknown;
  parse?: unknown;
  response?: Record<string, unknown> | unknown;
  detail?: { hide?: boolean; responses?: Record<string, unknown> };
}

/** "/tiles/v1/:owner/:name" -> "/tiles/v1/{owner}/{name}", as the document writes paths. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

function expectedStatuses(method: string, path: string, hooks: Hooks, bodyKind: string): Set<string> {
  const want = new Set<string>();
  if (hooks.scope) ["401", "403", "429"].forEach((s) => want.add(s));
  if (hooks.session === true) {
    want.add("401");
    if (method !== "GET") want.add("403");
  }
  if (hooks.viewer) want.add("404");
  if (hooks.params || hooks.query || hooks.body || hooks.headers) want.add("400");
  if (method !== "GET" && (hooks.body || bodyKind === "upload")) {
    want.add("400");
    want.add("413");
    if (bodyKind === "json") want.add("411");
    if (bodyKind === "json" && hooks.body) want.add("415");
  }
  const declared = hooks.response && typeof hooks.response === "object" && !("type" in hooks.response) ? Object.keys(hooks.response) : ["200"];
  for (const s of declared) want.add(s);
  for (const s of Object.keys(hooks.detail?.responses ?? {})) want.add(s);
  return want;
}

describe("GET /openapi.json", () => {
  test("is a valid OpenAPI 3.1 document", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("every route documents a success status and every status it can answer", () => {
    const table = routeTableFrom(() => t.app.routes);
    const missing: string[] = [];
    let checked = 0;
    for (const route of t.app.routes) {
      const hooks = route.hooks as Hooks;
      if (hooks.detail?.hide || !["GET", "POST", "PUT", "PATCH", "DELETE"].includes(route.method)) continue;
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      if (!operation) {
        missing.push(`${route.method} ${route.path}: not in the document`);
        continue;
      }
      checked++;
      const documented = Object.keys(operation.responses ?? {});
      if (!documented.some((s) => /^[23]\d\d$/.test(s))) missing.push(`${route.method} ${route.path}: no success status`);
      const samplePath = route.path.replace(/:\w+/g, "x");
      for (const s of expectedStatuses(route.method, route.path, hooks, table.find(route.method, samplePath).body))
        if (!documented.includes(s)) missing.push(`${route.method} ${route.path}: ${s} undocumented`);
    }
    expect(checked).toBeGreaterThan(40);
    expect(missing).toEqual([]);
  });

  test("every route that reads a body documents it; bytes are documented as the types sent", () => {
    const table = routeTableFrom(() => t.app.routes);
    const missing: string[] = [];
    for (const route of t.app.routes) {
      const hooks = route.hooks as Hooks;
      if (hooks.detail?.hide || !["POST", "PUT", "PATCH"].includes(route.method)) continue;
      const body = table.find(route.method, route.path.replace(/:\w+/g, "x")).body;
      const operation = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as { requestBody?: unknown } | undefined;
      if ((body === "upload" || hooks.body) && !operation?.requestBody) missing.push(`${route.method} ${route.path}`);
    }
    expect(missing).toEqual([]);
    const types = (path: string, status = "200") => Object.keys((doc.paths[path]!.get!.responses![status] as { content?: object }).content ?? {});
    expect(types("/fonts/v1/{fontstack}/{range}")).toEqual(["application/x-protobuf"]);
    expect(types("/tiles/v1/{owner}/{name}/{z}/{x}/{y}")).toEqual(["application/vnd.mapbox-vector-tile", "image/png", "image/jpeg", "image/webp"]);
    expect(types("/styles/v1/{owner}/{style}/{file}")).toEqual(["application/json", "image/png"]);
    // Publishing without a body publishes the draft.
    const publish = doc.paths["/api/v1/orgs/{org}/styles/{style}/publish"]!.post as { requestBody?: { required?: boolean } };
    expect(publish.requestBody?.required).toBe(false);
  });

  test("the check fails for a route that leaves out a status it can answer", () => {
    // A scope route documenting only its success would be caught.
    const want = expectedStatuses("GET", "/probe", { scope: "geocoding", response: { 200: {} } }, "none");
    expect([...want].filter((s) => s !== "200")).toEqual(["401", "403", "429"]);
  });
});

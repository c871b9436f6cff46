// A matrix or an elevation profile asked for without its coordinates: the 400 says the coordinates are
// missing, not that "matrix" is no profile or that "along" is no point (the fuzz tests' finding: the
// two-segment forms fell into the single-route and point-lookup routes, whose messages misled).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../support/app";
import { seedKey, seedOrg } from "../../support/seed";

let t: TestApp;
let headers: Record<string, string>;

beforeAll(async () => {
  t = await makeTestApp({ ROUTING_INTERNAL_URL: "http://127.0.0.1:9", ELEVATION_INTERNAL_URL: "http://127.0.0.1:9" });
  headers = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "acme").id, ["routing", "elevation"]).secret };
});
afterAll(() => t.close());

async function error(path: string) {
  const res = await t.fetch(path, { headers });
  expect(res.status).toBe(400);
  return ((await res.json()) as { error: { code: string; message: string; details: { parameter: string } } }).error;
}

test("/routing/v1/matrix/{profile} names the missing coordinates and the matrix's form", async () => {
  for (const path of ["/routing/v1/matrix/driving", "/routing/v1/matrix/walking?annotations=distance"]) {
    const e = await error(path);
    expect(e.code).toBe("BAD_REQUEST");
    expect(e.details.parameter).toBe("coordinates");
    expect(e.message).toContain("coordinates are missing");
    expect(e.message).toContain("/routing/v1/matrix/{profile}/{lon},{lat};{lon},{lat}");
  }
});

test("/elevation/v1/along names the missing path, not a point 'along'", async () => {
  const e = await error("/elevation/v1/along?samples=10");
  expect(e.details.parameter).toBe("coordinates");
  expect(e.message).toContain("coordinates are missing");
  expect(e.message).toContain("/elevation/v1/along/{lon},{lat};{lon},{lat}");
});

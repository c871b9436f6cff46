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

test("a service path that names no route (an empty segment, the bare prefix) is a 404 that shows the service's routes", async () => {
  const cases: [string, string][] = [
    ["/routing/v1/driving/", "/routing/v1/{driving|walking|cycling}/{lon},{lat};{lon},{lat}"],
    ["/routing/v1//13.38,52.51;13.39,52.52", "/routing/v1/matrix/{driving|walking|cycling}/"],
    ["/routing/v1", "/routing/v1/{driving|walking|cycling}/"],
    ["/elevation/v1/", "/elevation/v1/{lon},{lat}"],
    ["/geocoding/v1/", "/geocoding/v1/forward?q="],
    ["/geocoding/v1/search?q=berlin", "/geocoding/v1/reverse?lon="],
  ];
  for (const [path, shown] of cases) {
    const res = await t.fetch(path, { headers });
    expect(res.status).toBe(404);
    const e = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toStartWith("No such route: ");
    expect(e.message).toContain(shown);
  }
  // Other paths keep the plain 404.
  const other = await t.fetch("/nothing/here");
  expect(((await other.json()) as { error: { message: string } }).error.message).not.toContain("No such route: ");
});

// The routing API through the app against the fake OSRM and Valhalla servers over real HTTP: the same
// behaviour from both engines (answer shape, errors, caching), then each engine's exact wire mapping.
import { describe, expect, test } from "bun:test";
import { freePort, makeTestApp } from "../../../support/app";
import { seedKey, seedOrg, seedSession } from "../../../support/seed";
import { startFakeOsrm } from "../../../support/fake-osrm";
import { refused, routingEngines, type Engine } from "../../../support/routing-engines";
import { decodePolyline } from "../../../../src/polyline";

const A = "13.38886,52.517037";
const B = "13.397634,52.529407";
const C = "13.428555,52.523219";
/** north of the fake network's island line: no road to A, B or C */
const ISLAND = "13.4,52.66";
/** outside the fake network: no road near it */
const NOWHERE = "15.5,48.2";
/** A point no earlier test asked about, for tests that count backend calls (answers are cached per app). */
let unique = 0;
const fresh = () => `${(13.3 + ++unique * 0.0001).toFixed(4)},52.5`;

const { osrm, valhalla } = routingEngines();

const get = (e: Engine, path: string, h: Record<string, string> = e.headers) => e.t.fetch(path, { headers: h });
const routeCalls = (e: Engine) => e.fake.calls.filter((c) => c.path !== "/locate");

for (const e of [osrm, valhalla]) {
  describe(`${e.name}: answers`, () => {
    test("a route in the documented shape: snapped waypoints, distance, duration, GeoJSON geometry, no steps by default", async () => {
      const res = await get(e, `/routing/v1/driving/${A};${B}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = await res.json();
      expect(body.code).toBe("Ok");
      expect(body.routes).toHaveLength(1);
      const [route] = body.routes;
      expect(route.distance).toBeGreaterThan(1500);
      expect(route.distance).toBeLessThan(2500);
      expect(route.duration).toBeCloseTo(route.distance / 13.9, 0);
      expect(route.geometry.type).toBe("LineString");
      expect(route.geometry.coordinates[0]).toEqual([13.3889, 52.517]);
      expect(route.geometry.coordinates.at(-1)).toEqual([13.3976, 52.5294]);
      expect(route.legs).toHaveLength(1);
      expect(route.legs[0]).toMatchObject({ distance: route.distance, duration: route.duration, steps: [] });
      expect(body.waypoints).toHaveLength(2);
      expect(body.waypoints[0].location).toEqual([13.3889, 52.517]);
      expect(body.waypoints[0].name).toBe("Street 39-52");
      expect(body.waypoints[0].distance).toBeGreaterThan(0);
      expect(body.waypoints[1].location).toEqual([13.3976, 52.5294]);
      expect(body.routing).toEqual({
        engine: e.name,
        query: { profile: "driving", coordinates: [[13.38886, 52.517037], [13.397634, 52.529407]], alternatives: 0, steps: false, geometries: "geojson", overview: "simplified", language: "en", exclude: [], radiuses: null, bearings: null, waypoints: null, continue_straight: null, approaches: null, annotations: [], waypoint_names: null },
      });
      expect(JSON.stringify(body)).not.toContain("127.0.0.1");
    });

    test("steps: maneuver type, modifier, location, bearings, instruction text, name, distance, duration, geometry", async () => {
      const body = await (await get(e, `/routing/v1/driving/${A};${B}?steps=true&overview=full`)).json();
      const steps = body.routes[0].legs[0].steps;
      expect(steps.map((s: { maneuver: { type: string; modifier?: string } }) => [s.maneuver.type, s.maneuver.modifier])).toEqual([
        ["depart", undefined],
        ["turn", "left"],
        ["arrive", "right"],
      ]);
      expect(steps[0].maneuver.location).toEqual([13.3889, 52.517]);
      expect(steps[0].maneuver.instruction).toMatch(/^(Head northeast|Drive east) on Street 39-52\.?$/);
      expect(steps[1].maneuver.instruction).toMatch(/^Turn left onto Street 40-53\.?$/);
      expect(steps[1].maneuver.bearing_before).toBeGreaterThan(0);
      expect(typeof steps[1].maneuver.bearing_after).toBe("number");
      expect(steps[0].name).toBe("Street 39-52");
      expect(steps[0].mode).toBe("driving");
      expect(steps[0].distance + steps[1].distance).toBeCloseTo(body.routes[0].distance, -1);
      expect(steps[0].geometry.type).toBe("LineString");
      expect(steps[0].geometry.coordinates[0]).toEqual(steps[0].maneuver.location);
      expect(steps[2].geometry.coordinates.length).toBeGreaterThanOrEqual(2);
      // Full overview: every point of the line, ending where the last step starts.
      expect(body.routes[0].geometry.coordinates).toHaveLength(5);
      expect(body.routes[0].geometry.coordinates.at(-1)).toEqual(steps[2].maneuver.location);
    });

    test("language: instructions in German when asked", async () => {
      const body = await (await get(e, `/routing/v1/driving/${A};${B}?steps=true&language=de`)).json();
      expect(body.routes[0].legs[0].steps[1].maneuver.instruction).toMatch(/links/i);
      expect(body.routing.query.language).toBe("de");
    });

    test("polyline6 and polyline (1e-5) geometries decode to the same line as GeoJSON; overview=false leaves the geometry out", async () => {
      const geojson = await (await get(e, `/routing/v1/driving/${A};${B}?overview=full&steps=true`)).json();
      const encoded = await (await get(e, `/routing/v1/driving/${A};${B}?overview=full&steps=true&geometries=polyline6`)).json();
      expect(typeof encoded.routes[0].geometry).toBe("string");
      expect(decodePolyline(encoded.routes[0].geometry, 6)).toEqual(geojson.routes[0].geometry.coordinates);
      expect(decodePolyline(encoded.routes[0].legs[0].steps[0].geometry, 6)).toEqual(geojson.routes[0].legs[0].steps[0].geometry.coordinates);
      // geometries=polyline (1e-5) is OSRM's and Mapbox Directions' default, which their clients send.
      const five = await get(e, `/routing/v1/driving/${A};${B}?overview=full&steps=true&geometries=polyline`);
      expect(five.status).toBe(200);
      const fiveBody = await five.json();
      expect(fiveBody.routing.query.geometries).toBe("polyline");
      const round5 = (line: number[][]) => line.map((p) => p.map((v) => Math.round(v * 1e5) / 1e5));
      expect(decodePolyline(fiveBody.routes[0].geometry, 5) as number[][]).toEqual(round5(geojson.routes[0].geometry.coordinates));
      // Read at the wrong precision, the line is a tenth of itself: the precisions really differ.
      expect(decodePolyline(fiveBody.routes[0].geometry, 6)).not.toEqual(round5(geojson.routes[0].geometry.coordinates));
      const none = await (await get(e, `/routing/v1/driving/${A};${B}?overview=false`)).json();
      expect(none.routes[0]).not.toHaveProperty("geometry");
      expect(none.routes[0].distance).toBe(geojson.routes[0].distance);
    });

    test("alternatives: up to 3 more routes, true means one", async () => {
      for (const [value, count] of [["0", 1], ["false", 1], ["true", 2], ["1", 2], ["3", 4]] as const) {
        const body = await (await get(e, `/routing/v1/driving/${A};${B}?alternatives=${value}`)).json();
        expect(body.routes).toHaveLength(count);
      }
      const body = await (await get(e, `/routing/v1/driving/${A};${B}?alternatives=2`)).json();
      expect(body.routes[1].distance).toBeGreaterThan(body.routes[0].distance);
    });

    test("several waypoints: one leg between each pair and one waypoint each; 25 is the maximum", async () => {
      const body = await (await get(e, `/routing/v1/walking/${A};${B};${C}`)).json();
      expect(body.routes[0].legs).toHaveLength(2);
      expect(body.waypoints).toHaveLength(3);
      expect(body.routes[0].duration).toBeCloseTo(body.routes[0].distance / 1.4, -1);
      const many = Array.from({ length: 25 }, (_, i) => `${13.3 + i * 0.01},52.5`).join(";");
      const res = await get(e, `/routing/v1/cycling/${many}`);
      expect(res.status).toBe(200);
      expect((await res.json()).routes[0].legs).toHaveLength(24);
    });

    test("matrix: durations and distances per source and destination, null where no route; sources and destinations pick indices", async () => {
      const res = await get(e, `/routing/v1/matrix/driving/${A};${B};${ISLAND}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, max-age=3600");
      const body = await res.json();
      expect(body.code).toBe("Ok");
      expect(body.durations).toHaveLength(3);
      expect(body.durations[0][0]).toBe(0);
      expect(body.durations[0][1]).toBeGreaterThan(100);
      expect(body.distances[0][1]).toBeGreaterThan(1500);
      expect(body.distances[0][1]).toBeLessThan(2500);
      expect(body.durations[0][2]).toBeNull();
      expect(body.distances[2][0]).toBeNull();
      expect(body.sources).toHaveLength(3);
      expect(body.destinations[1].location).toHaveLength(2);
      const sub = await (await get(e, `/routing/v1/matrix/walking/${A};${B};${C}?sources=0;1&destinations=2`)).json();
      expect(sub.durations).toHaveLength(2);
      expect(sub.durations[0]).toHaveLength(1);
      expect(sub.distances[1][0]).toBeGreaterThan(0);
      expect(sub.routing.query).toEqual({ profile: "walking", coordinates: [[13.38886, 52.517037], [13.397634, 52.529407], [13.428555, 52.523219]], sources: [0, 1], destinations: [2], annotations: ["duration", "distance"], approaches: null });
      const max = Array.from({ length: 25 }, (_, i) => `${13.3 + i * 0.01},52.5`).join(";");
      const big = await get(e, `/routing/v1/matrix/cycling/${max}`);
      expect(big.status).toBe(200);
      expect((await big.json()).durations).toHaveLength(25);
    });
  });

  describe(`${e.name}: refusals`, () => {
    test("no route between the points is 404 NO_ROUTE naming the waypoints", async () => {
      const res = await get(e, `/routing/v1/driving/${A};${ISLAND}`);
      expect(res.status).toBe(404);
      const body = await res.json();
      expect(body.error.code).toBe("NO_ROUTE");
      expect(body.error.message).toBe("No driving route connects waypoint 0 (13.38886,52.517037) and waypoint 1 (13.4,52.66)");
      expect(body.error.details.waypoints).toEqual([{ index: 0, location: [13.38886, 52.517037] }, { index: 1, location: [13.4, 52.66] }]);
      expect(res.headers.get("cache-control")).toBeNull();
    });

    test("a point far from any road is 422 INVALID_WAYPOINT with its index", async () => {
      for (const path of [`/routing/v1/driving/${A};${B};${NOWHERE}`, `/routing/v1/matrix/driving/${A};${B};${NOWHERE}`]) {
        const res = await get(e, path);
        expect(res.status).toBe(422);
        const body = await res.json();
        expect(body.error.code).toBe("INVALID_WAYPOINT");
        expect(body.error.details).toEqual({ index: 2, location: [15.5, 48.2] });
        expect(body.error.message).toStartWith("Waypoint 2 (15.5,48.2) is not near any road");
      }
    });

    test("backend failures: 502/503/504 and silence are 503 ROUTER_UNAVAILABLE, other bad answers 502 UPSTREAM_ERROR", async () => {
      const expectBlamed = (message: string) => {
        expect(message).toContain("routing backend");
        expect(message).toContain("not one with your request or API key");
        expect(message).not.toContain("127.0.0.1");
      };
      for (const status of [502, 503, 504]) {
        e.fake.status = status;
        const res = await get(e, `/routing/v1/driving/${fresh()};${B}`);
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body.error.code).toBe("ROUTER_UNAVAILABLE");
        expectBlamed(body.error.message);
      }
      for (const status of [500, 401]) {
        e.fake.status = status;
        const res = await get(e, `/routing/v1/walking/${fresh()};${B}`);
        expect(res.status).toBe(502);
        const body = await res.json();
        expect(body.error.code).toBe("UPSTREAM_ERROR");
        expectBlamed(body.error.message);
      }
      e.fake.status = null;
      for (const mode of ["malformed-json", "html", "corrupt-geometry"] as const) {
        e.fake.mode = mode;
        const res = await get(e, `/routing/v1/cycling/${fresh()};${B}?overview=full`);
        expect(res.status).toBe(502);
        expect((await res.json()).error.code).toBe("UPSTREAM_ERROR");
      }
      e.fake.mode = "ok";
      e.fake.delayMs = 1000;
      const slow = await get(e, `/routing/v1/driving/${fresh()};${C}`);
      expect(slow.status).toBe(503);
      expect((await slow.json()).error.message).toContain("no answer within 300 ms");
    });

    test("a profile the backend does not serve is 502 UPSTREAM_ERROR (the probe names the fix)", async () => {
      e.fake.profiles = e.name === "osrm" ? ["car"] : ["auto"];
      const res = await get(e, `/routing/v1/walking/${fresh()};${C}`);
      expect(res.status).toBe(502);
      expect((await res.json()).error.code).toBe("UPSTREAM_ERROR");
    });
  });

  describe(`${e.name}: caching`, () => {
    test("a repeated (or equivalent) query is answered from the cache; other options miss", async () => {
      const first = await get(e, `/routing/v1/driving/${A};${B}?steps=true&exclude=ferries,tolls`);
      expect(first.status).toBe(200);
      const text = await first.text();
      const again = await get(e, `/routing/v1/driving/13.388860,52.5170370;${B}?exclude=tolls,ferries,tolls&steps=true&geometries=geojson&overview=simplified&language=EN`);
      expect(again.status).toBe(200);
      expect(again.headers.get("cache-control")).toBe("private, max-age=3600");
      expect(await again.text()).toBe(text);
      expect(routeCalls(e)).toHaveLength(1);
      await get(e, `/routing/v1/driving/${A};${B}?steps=false&exclude=ferries,tolls`);
      await get(e, `/routing/v1/walking/${A};${B}?steps=true`);
      expect(routeCalls(e)).toHaveLength(3);
      await get(e, `/routing/v1/matrix/driving/${A};${B}`);
      await get(e, `/routing/v1/matrix/driving/${A};${B}?sources=all&destinations=0;1`);
      expect(routeCalls(e)).toHaveLength(4);
    });

    test("concurrent identical misses share one backend call", async () => {
      e.fake.delayMs = 50;
      const all = await Promise.all(Array.from({ length: 5 }, () => get(e, `/routing/v1/cycling/${B};${C}?steps=true`)));
      expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const bodies = await Promise.all(all.map((r) => r.text()));
      expect(new Set(bodies).size).toBe(1);
      expect(routeCalls(e)).toHaveLength(1);
    });

    test("failures are not cached, and a cached answer still needs a valid key", async () => {
      e.fake.status = 503;
      expect((await get(e, `/routing/v1/driving/${C};${A}`)).status).toBe(503);
      e.fake.status = null;
      expect((await get(e, `/routing/v1/driving/${C};${A}`)).status).toBe(200);
      expect(routeCalls(e)).toHaveLength(2);
      expect((await get(e, `/routing/v1/driving/${C};${A}`, {})).status).toBe(401);
      expect((await get(e, `/routing/v1/driving/${C};${A}`, { "x-api-key": "msk_invalid" })).status).toBe(401);
      expect(routeCalls(e)).toHaveLength(2);
    });
  });
}

describe("OSRM wire mapping", () => {
  test("route: profile names from settings, coordinates, and every option mapped to OSRM's query string", async () => {
    const P = fresh();
    await get(osrm, `/routing/v1/driving/${P};${B}`);
    expect(osrm.fake.calls[0]!.path).toBe(`/route/v1/car/${P};${B}`);
    expect(osrm.fake.calls[0]!.search).toBe("alternatives=false&steps=false&geometries=polyline6&overview=simplified");
    await get(osrm, `/routing/v1/driving/${P};${B}?alternatives=2&steps=true&geometries=polyline6&overview=full&language=fr&exclude=ferries,motorways,tolls`);
    expect(osrm.fake.calls[1]!.search).toBe("alternatives=2&steps=true&geometries=polyline6&overview=full&exclude=toll,motorway,ferry");
    await get(osrm, `/routing/v1/walking/${P};${B}`);
    await get(osrm, `/routing/v1/cycling/${P};${B}`);
    expect(osrm.fake.calls.slice(2).map((c) => c.path.split("/")[3])).toEqual(["foot", "bike"]);
    await get(osrm, `/routing/v1/driving/${P};${B}?radiuses=50;unlimited&bearings=;90,45`);
    expect(osrm.fake.calls[4]!.search).toBe("alternatives=false&steps=false&geometries=polyline6&overview=simplified&radiuses=50;unlimited&bearings=;90,45");
  });

  test("radiuses: a waypoint with no road within its radius is 422 INVALID_WAYPOINT; an empty entry keeps the default", async () => {
    // P lies about 340 m west of the fake network's nearest road.
    const P = "12.995,52.5";
    expect((await get(osrm, `/routing/v1/driving/${P};${B}?radiuses=;`)).status).toBe(200);
    const res = await get(osrm, `/routing/v1/driving/${P};${B}?radiuses=100;`);
    expect(res.status).toBe(422);
    const body = await res.json();
    expect(body.error.code).toBe("INVALID_WAYPOINT");
    expect(body.error.details.index).toBe(0);
    expect((await get(osrm, `/routing/v1/driving/${P};${B}?radiuses=5000;unlimited`)).status).toBe(200);
    // The radiuses are part of the query the answer is cached by, and echoed.
    const echoed = await (await get(osrm, `/routing/v1/driving/${P};${B}?radiuses=5000;unlimited`)).json();
    expect(echoed.routing.query.radiuses).toEqual([5000, "unlimited"]);
  });

  test("table: annotations and the chosen sources and destinations", async () => {
    const P = fresh();
    await get(osrm, `/routing/v1/matrix/driving/${P};${B};${C}`);
    expect(osrm.fake.calls[0]!.path).toBe(`/table/v1/car/${P};${B};${C}`);
    expect(osrm.fake.calls[0]!.search).toBe("annotations=duration,distance");
    await get(osrm, `/routing/v1/matrix/driving/${P};${B};${C}?sources=2,0&destinations=1`);
    expect(osrm.fake.calls[1]!.search).toBe("annotations=duration,distance&sources=2;0&destinations=1");
  });

  test("instructions come from osrm-text-instructions in the closest bundled language", async () => {
    const body = await (await get(osrm, `/routing/v1/driving/${A};${B}?steps=true&language=pt-br`)).json();
    expect(body.routes[0].legs[0].steps[1].maneuver.instruction).toBe("Vire à esquerda em Street 40-53");
    const fallback = await (await get(osrm, `/routing/v1/driving/${A};${B}?steps=true&language=tlh`)).json();
    expect(fallback.routes[0].legs[0].steps[1].maneuver.instruction).toBe("Turn left onto Street 40-53");
  });

  test("exclusions a profile cannot honour are 400 naming exclude", async () => {
    const res = await get(osrm, `/routing/v1/walking/${A};${B}?exclude=motorways`);
    const body = await refused(res, "exclude");
    expect(body.error.message).toContain("walking profile cannot exclude");
  });
});

describe("engine limits below ours, and connections", () => {
  test("OSRM's --max-table-size (TooBig) is 400 naming the coordinates", async () => {
    osrm.fake.limit = 4;
    const res = await get(osrm, `/routing/v1/matrix/driving/${A};${B};${C};${fresh()};${fresh()}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.details.parameter).toBe("coordinates");
    expect(body.error.message).toContain("Too many table coordinates");
  });

  test("Valhalla's max distance for a costing (154) is 400 naming the coordinates", async () => {
    valhalla.fake.limit = 5;
    const res = await get(valhalla, `/routing/v1/walking/13.01,52.31;13.79,52.64`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.details.parameter).toBe("coordinates");
    expect(body.error.message).toContain("Path distance exceeds the max distance limit");
  });

  for (const e of [osrm, valhalla])
    test(`${e.name}: consecutive calls reuse one kept-alive connection`, async () => {
      for (let i = 0; i < 3; i++) expect((await get(e, `/routing/v1/driving/${fresh()};${B}`)).status).toBe(200);
      expect(e.fake.calls).toHaveLength(3);
      expect(new Set(e.fake.calls.map((c) => c.clientPort)).size).toBe(1);
    });
});

describe("Valhalla wire mapping", () => {
  const sent = (i = 0) => JSON.parse(valhalla.fake.calls[i]!.body);

  test("route: POST /route with locations, costing, units, language, alternates and avoidances", async () => {
    const P = fresh();
    await get(valhalla, `/routing/v1/driving/${P};${B}`);
    expect(valhalla.fake.calls[0]!.method).toBe("POST");
    expect(valhalla.fake.calls[0]!.path).toBe("/route");
    expect(sent()).toEqual({
      locations: [{ lon: Number(P.split(",")[0]), lat: 52.5, type: "break" }, { lon: 13.397634, lat: 52.529407, type: "break" }],
      costing: "auto",
      directions_options: { units: "kilometers", language: "en" },
    });
    await get(valhalla, `/routing/v1/cycling/${P};${B}?alternatives=2&language=de-ch&exclude=tolls,ferries,motorways`);
    expect(sent(1)).toEqual({
      locations: [{ lon: Number(P.split(",")[0]), lat: 52.5, type: "break" }, { lon: 13.397634, lat: 52.529407, type: "break" }],
      costing: "bicycle",
      costing_options: { bicycle: { use_tolls: 0, use_highways: 0, use_ferry: 0 } },
      directions_options: { units: "kilometers", language: "de-CH" },
      alternates: 2,
    });
    await get(valhalla, `/routing/v1/walking/${P};${B}`);
    expect(sent(2).costing).toBe("pedestrian");
    // radiuses and bearings become each location's radius, heading and heading_tolerance (Valhalla has no
    // unlimited radius: its default search applies).
    await get(valhalla, `/routing/v1/driving/${P};${B}?radiuses=25.5;unlimited&bearings=360,30;`);
    expect(sent(3).locations).toEqual([
      { lon: Number(P.split(",")[0]), lat: 52.5, type: "break", radius: 26, heading: 0, heading_tolerance: 30 },
      { lon: 13.397634, lat: 52.529407, type: "break" },
    ]);
  });

  test("kilometres become metres; shapes are joined across legs; simplified keeps the ends", async () => {
    const body = await (await get(valhalla, `/routing/v1/driving/${A};${B};${C}?overview=full`)).json();
    const route = body.routes[0];
    expect(route.legs).toHaveLength(2);
    expect(route.distance).toBeCloseTo(route.legs[0].distance + route.legs[1].distance, 0);
    expect(route.geometry.coordinates).toHaveLength(9);
    expect(body.waypoints[1].location).toEqual(route.geometry.coordinates[4]);
    const simplified = await (await get(valhalla, `/routing/v1/driving/${A};${B};${C}`)).json();
    const line = simplified.routes[0].geometry.coordinates;
    expect(line.length).toBeLessThanOrEqual(9);
    expect(line[0]).toEqual(route.geometry.coordinates[0]);
    expect(line.at(-1)).toEqual(route.geometry.coordinates.at(-1));
  });

  test("matrix: POST /sources_to_targets with the chosen sources and targets; inputs given back as locations", async () => {
    const body = await (await get(valhalla, `/routing/v1/matrix/walking/${A};${B};${C}?sources=1&destinations=0;2`)).json();
    expect(valhalla.fake.calls).toHaveLength(1);
    expect(valhalla.fake.calls[0]!.path).toBe("/sources_to_targets");
    expect(sent()).toEqual({ sources: [{ lon: 13.397634, lat: 52.529407 }], targets: [{ lon: 13.38886, lat: 52.517037 }, { lon: 13.428555, lat: 52.523219 }], costing: "pedestrian", units: "kilometers" });
    expect(body.distances[0][0]).toBeGreaterThan(1000);
    expect(Number.isInteger(body.distances[0][0])).toBe(true);
    expect(body.sources).toEqual([{ location: [13.397634, 52.529407] }]);
  });

  test("a point off the network is found with /locate after error 171", async () => {
    await get(valhalla, `/routing/v1/driving/${NOWHERE};${A}?steps=true`);
    expect(valhalla.fake.calls.map((c) => c.path)).toEqual(["/route", "/locate"]);
    expect(JSON.parse(valhalla.fake.calls[1]!.body)).toEqual({ locations: [{ lon: 15.5, lat: 48.2 }, { lon: 13.38886, lat: 52.517037 }], costing: "auto" });
  });
});

describe("profiles from ROUTING_PROFILES", () => {
  test("each profile goes to the backend under the configured name", async () => {
    const fake = startFakeOsrm();
    const t = await makeTestApp({ ROUTING_INTERNAL_URL: fake.url, ROUTING_PROFILES: "driving=driving,walking=hiking" });
    try {
      const h = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "p").id, ["routing"]).secret };
      for (const p of ["driving", "walking", "cycling"]) expect((await t.fetch(`/routing/v1/${p}/${A};${B}`, { headers: h })).status).toBe(200);
      expect(fake.calls.map((c) => c.path.split("/")[3])).toEqual(["driving", "hiking", "bike"]);
    } finally {
      await t.close();
      await fake.stop();
    }
  });
});

describe("validation", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `${13.3 + i * 0.01},52.5`).join(";");
  const bad: [string, string][] = [
    [`/routing/v1/flying/${A};${B}`, "profile"],
    [`/routing/v1/Driving/${A};${B}`, "profile"],
    [`/routing/v1/matrix/boat/${A};${B}`, "profile"],
    [`/routing/v1/driving/${A}`, "coordinates"],
    [`/routing/v1/driving/${many(26)}`, "coordinates"],
    [`/routing/v1/driving/${A};abc,52`, "coordinates"],
    [`/routing/v1/driving/${A};181,52`, "coordinates"],
    [`/routing/v1/driving/${A};13,91`, "coordinates"],
    [`/routing/v1/driving/${A};13;52`, "coordinates"],
    [`/routing/v1/driving/${A};${B}?alternatives=4`, "alternatives"],
    [`/routing/v1/driving/${A};${B}?alternatives=-1`, "alternatives"],
    [`/routing/v1/driving/${A};${B}?alternatives=yes`, "alternatives"],
    [`/routing/v1/driving/${A};${B}?steps=1`, "steps"],
    [`/routing/v1/driving/${A};${B}?geometries=polyline5`, "geometries"],
    [`/routing/v1/driving/${A};${B}?overview=none`, "overview"],
    [`/routing/v1/driving/${A};${B}?language=e!`, "language"],
    [`/routing/v1/driving/${A};${B}?exclude=tolls,highways`, "exclude"],
    [`/routing/v1/driving/${A};${B}?exclude=,`, "exclude"],
    [`/routing/v1/driving/${A};${B}?radiuses=50`, "radiuses"],
    [`/routing/v1/driving/${A};${B}?radiuses=50;-1`, "radiuses"],
    [`/routing/v1/driving/${A};${B}?radiuses=50;far`, "radiuses"],
    [`/routing/v1/driving/${A};${B}?bearings=90,45`, "bearings"],
    [`/routing/v1/driving/${A};${B}?bearings=400,10;`, "bearings"],
    [`/routing/v1/driving/${A};${B}?bearings=90;`, "bearings"],
    [`/routing/v1/driving/${A};${B}?bearings=90,181;`, "bearings"],
    [`/routing/v1/matrix/driving/${A}`, "coordinates"],
    [`/routing/v1/matrix/driving/${many(26)}`, "coordinates"],
    [`/routing/v1/matrix/driving/${A};${B}?sources=2`, "sources"],
    [`/routing/v1/matrix/driving/${A};${B}?sources=0;1;0`, "sources"],
    [`/routing/v1/matrix/driving/${A};${B}?destinations=x`, "destinations"],
    [`/routing/v1/matrix/driving/${A};${B}?destinations=-1`, "destinations"],
    // Given twice, even with two good values, a parameter is refused rather than the last one taken.
    [`/routing/v1/driving/${A};${B}?alternatives=1&alternatives=2`, "alternatives"],
    [`/routing/v1/driving/${A};${B}?geometries=polyline&steps=true&geometries=geojson`, "geometries"],
    [`/routing/v1/driving/${A};${B}?exclude=tolls&exclude=ferries`, "exclude"],
    [`/routing/v1/driving/${A};${B}?_=1&_=2`, "_"],
    [`/routing/v1/matrix/driving/${A};${B}?sources=0&sources=1`, "sources"],
  ];
  for (const [path, parameter] of bad)
    test(`400 naming ${parameter}: ${path.slice(12, 100)}`, async () => {
      const res = await get(osrm, path);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.details.parameter).toBe(parameter);
      expect(body.error.message.length).toBeGreaterThan(10);
      expect(osrm.fake.calls).toHaveLength(0);
    });

  test("a parameter given twice is named in the message, as geocoding names it", async () => {
    const res = await get(osrm, `/routing/v1/driving/${A};${B}?overview=full&overview=false`);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toEqual({ code: "BAD_REQUEST", message: "overview is given more than once", details: { parameter: "overview" } });
    expect(osrm.fake.calls).toHaveLength(0);
  });

  test("unknown paths under /routing/v1 are 404, other methods 405", async () => {
    expect((await get(osrm, `/routing/v1/driving/${A};${B}/extra`)).status).toBe(404);
    const post = await osrm.t.fetch(`/routing/v1/driving/${A};${B}`, { method: "POST", headers: osrm.headers });
    expect(post.status).toBe(405);
  });
});

describe("keys, scopes, origins, limits and billing", () => {
  test("needs a key with the routing scope, or a console session", async () => {
    const none = await get(osrm, `/routing/v1/driving/${A};${B}`, {});
    expect(none.status).toBe(401);
    expect((await none.json()).error.code).toBe("UNAUTHORIZED");
    const org = seedOrg(osrm.t.ctx, "geo-only");
    const wrong = await get(osrm, `/routing/v1/matrix/driving/${A};${B}`, { "x-api-key": seedKey(osrm.t.ctx, org.id, ["geocoding", "elevation"]).secret });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.code).toBe("INSUFFICIENT_SCOPE");
    expect(osrm.fake.calls).toHaveLength(0);
    const session = await seedSession(osrm.t.ctx, { orgId: org.id });
    expect((await get(osrm, `/routing/v1/driving/${A};${B}`, { cookie: session.cookie })).status).toBe(200);
  });

  test("browser origins: the key's list decides, and allowed origins get CORS headers", async () => {
    const org = seedOrg(osrm.t.ctx, "web");
    const key = seedKey(osrm.t.ctx, org.id, ["routing"], { allowedOrigins: ["https://app.example.com"] }).secret;
    const denied = await get(osrm, `/routing/v1/driving/${A};${B}`, { "x-api-key": key, origin: "https://evil.example.com" });
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe("DOMAIN_NOT_ALLOWED");
    const allowed = await get(osrm, `/routing/v1/driving/${A};${B}`, { "x-api-key": key, origin: "https://app.example.com" });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(allowed.headers.get("access-control-expose-headers")).toContain("X-Quota-Remaining");
  });

  test("rate limit per key: 429 RATE_LIMITED with Retry-After", async () => {
    const key = seedKey(osrm.t.ctx, seedOrg(osrm.t.ctx, "slowpoke").id, ["routing"], { rateLimitPerMinute: 2 }).secret;
    const h = { "x-api-key": key };
    const first = await get(osrm, `/routing/v1/driving/${A};${B}`, h);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect((await get(osrm, `/routing/v1/driving/${A};${B}`, h)).status).toBe(200);
    const limited = await get(osrm, `/routing/v1/driving/${A};${B}`, h);
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe("RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("monthly quota: successful calls count (cache hits too), failures are refunded, then 429 QUOTA_EXCEEDED", async () => {
    const key = seedKey(osrm.t.ctx, seedOrg(osrm.t.ctx, "metered").id, ["routing"], { monthlyQuota: 2 }).secret;
    const h = { "x-api-key": key };
    const ok = await get(osrm, `/routing/v1/driving/${A};${B}`, h);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-quota-limit")).toBe("2");
    expect(ok.headers.get("x-quota-used")).toBe("1");
    expect(ok.headers.get("x-quota-remaining")).toBe("1");
    const failed = await get(osrm, `/routing/v1/driving/${A};${ISLAND}`, h);
    expect(failed.status).toBe(404);
    expect(failed.headers.get("x-quota-used")).toBe("1");
    const bad = await get(osrm, `/routing/v1/driving/${A};${B}?steps=maybe`, h);
    expect(bad.status).toBe(400);
    const hit = await get(osrm, `/routing/v1/driving/${A};${B}`, h);
    expect(hit.status).toBe(200);
    expect(hit.headers.get("x-quota-used")).toBe("2");
    const over = await get(osrm, `/routing/v1/matrix/driving/${A};${B}`, h);
    expect(over.status).toBe(429);
    expect((await over.json()).error.code).toBe("QUOTA_EXCEEDED");
    expect(over.headers.get("x-quota-remaining")).toBe("0");
  });
});

describe("not configured, nothing listening", () => {
  test("no ROUTING_INTERNAL_URL is 503 ROUTER_NOT_CONFIGURED on both routes; the key is fine", async () => {
    const t = await makeTestApp();
    try {
      const h = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "none").id, ["routing"]).secret };
      for (const path of [`/routing/v1/driving/${A};${B}`, `/routing/v1/matrix/walking/${A};${B}`]) {
        const res = await t.fetch(path, { headers: h });
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body.error.code).toBe("ROUTER_NOT_CONFIGURED");
        expect(body.error.message).toContain("your API key is fine");
      }
    } finally {
      await t.close();
    }
  });

  for (const engine of ["osrm", "valhalla"])
    test(`${engine}: nothing listening is 503 ROUTER_UNAVAILABLE (connection refused)`, async () => {
      const t = await makeTestApp({ ROUTING_INTERNAL_URL: `http://127.0.0.1:${freePort()}`, ROUTING_ENGINE: engine });
      try {
        const h = { "x-api-key": seedKey(t.ctx, seedOrg(t.ctx, "down").id, ["routing"]).secret };
        const res = await t.fetch(`/routing/v1/driving/${A};${B}`, { headers: h });
        expect(res.status).toBe(503);
        const body = await res.json();
        expect(body.error.code).toBe("ROUTER_UNAVAILABLE");
        expect(body.error.message).toContain("connection refused");
        expect(body.error.message).not.toContain("127.0.0.1");
      } finally {
        await t.close();
      }
    });
});

describe("OpenAPI", () => {
  test("both routes are documented with their parameters and every status they answer", async () => {
    const doc = await (await osrm.t.fetch("/openapi.json")).json();
    for (const path of ["/routing/v1/{profile}/{coordinates}", "/routing/v1/matrix/{profile}/{coordinates}"]) {
      const op = doc.paths[path].get;
      expect(op.tags).toEqual(["Routing"]);
      expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "403", "404", "422", "429", "502", "503"]);
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain("profile");
    }
    const route = doc.paths["/routing/v1/{profile}/{coordinates}"].get;
    expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["alternatives", "steps", "geometries", "overview", "language", "exclude"]));
    expect(route.responses["200"].content["application/json"].schema.properties.routes).toBeTruthy();
  });
});

// Mapbox Directions and Matrix options beyond the basic ones, through the app against the fake OSRM and
// Valhalla over real HTTP: the honoured ones (waypoints, continue_straight, approaches, annotations, waypoint_names, the
// matrix's annotations and approaches) change the answer or the engine's query as each engine's API takes them; the
// ones that would change the answer but are not honoured are refused by name; harmless ones are ignored.
import { describe, expect, test } from "bun:test";
import { refused, routingEngines, type Engine } from "../../../support/routing-engines";

const A = "13.38886,52.517037";
const B = "13.397634,52.529407";
const C = "13.428555,52.523219";

const { osrm, valhalla } = routingEngines();

const get = (e: Engine, path: string) => e.t.fetch(path, { headers: e.headers });
const json = async (e: Engine, path: string) => {
  const res = await get(e, path);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
};
const sentLocations = (i: number) => JSON.parse(valhalla.fake.calls[i]!.body).locations as Record<string, unknown>[];

for (const e of [osrm, valhalla]) {
  describe(`${e.name}: honoured options`, () => {
    test("waypoints: only the listed coordinates end legs; the others are passed through; every input keeps a waypoint", async () => {
      const all = await json(e, `/routing/v1/driving/${A};${B};${C}?steps=true`);
      expect(all.routes[0].legs).toHaveLength(2);
      const through = await json(e, `/routing/v1/driving/${A};${B};${C}?steps=true&waypoints=0;2`);
      const route = through.routes[0];
      expect(route.legs).toHaveLength(1);
      expect(route.legs[0].distance).toBeCloseTo(all.routes[0].distance, 0);
      expect(route.distance).toBeCloseTo(all.routes[0].distance, 0);
      const types = route.legs[0].steps.map((s: { maneuver: { type: string } }) => s.maneuver.type);
      expect(types.filter((t: string) => t === "arrive")).toHaveLength(1);
      expect(types.filter((t: string) => t === "depart")).toHaveLength(1);
      expect(through.waypoints).toHaveLength(3);
      expect(through.waypoints[1].location).toEqual(all.waypoints[1].location);
      expect(through.routing.query.waypoints).toEqual([0, 2]);
    });

    test("the first and last coordinates must be listed in waypoints, ascending: else 400 naming waypoints, before any backend call", async () => {
      for (const bad of ["1;2", "0;1", "0;2;1", "0;0;2", "0;x;2", "0;3", "0;1;2;"]) {
        const res = await get(e, `/routing/v1/driving/${A};${B};${C}?waypoints=${bad}`);
        await refused(res, "waypoints");
      }
      expect(e.fake.calls).toHaveLength(0);
    });

    test("annotations: refused when not distance, duration or speed; Mapbox's traffic ones are said to be unsupported", async () => {
      const res = await get(e, `/routing/v1/driving/${A};${B}?annotations=duration,congestion`);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.details.parameter).toBe("annotations");
      expect(body.error.message).toContain("congestion is not supported");
      expect((await get(e, `/routing/v1/driving/${A};${B}?annotations=true`)).status).toBe(400);
      expect(e.fake.calls).toHaveLength(0);
    });

    test("matrix annotations: only the tables asked for are answered", async () => {
      const distances = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?annotations=distance`);
      expect(distances.durations).toBeUndefined();
      expect(distances.distances[0][1]).toBeGreaterThan(1500);
      expect(distances.routing.query.annotations).toEqual(["distance"]);
      const durations = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?annotations=duration`);
      expect(durations.distances).toBeUndefined();
      expect(durations.durations[0][1]).toBeGreaterThan(100);
      const both = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?annotations=distance,duration`);
      expect(both.durations).toHaveLength(3);
      expect(both.distances).toHaveLength(3);
      const bad = await get(e, `/routing/v1/matrix/driving/${A};${B}?annotations=speed`);
      expect(bad.status).toBe(400);
      expect((await bad.json()).error.details.parameter).toBe("annotations");
    });

    test("waypoint_names: each leg end's waypoint is answered with its name instead of the snapped road's; an empty entry keeps the road's", async () => {
      const plain = await json(e, `/routing/v1/driving/${A};${B};${C}`);
      const named = await json(e, `/routing/v1/driving/${A};${B};${C}?waypoint_names=Home;;Caf%C3%A9%20Einstein%2C%20Mitte`);
      expect(named.waypoints.map((w: { name: string }) => w.name)).toEqual(["Home", plain.waypoints[1].name, "Café Einstein, Mitte"]);
      expect(named.waypoints.map((w: { location: number[] }) => w.location)).toEqual(plain.waypoints.map((w: { location: number[] }) => w.location));
      expect(named.routes).toEqual(plain.routes);
      expect(named.routing.query.waypoint_names).toEqual(["Home", null, "Café Einstein, Mitte"]);
      expect(plain.routing.query.waypoint_names).toBeNull();
      // With waypoints=, only the leg ends are named: the passed-through one keeps its road's name.
      const through = await json(e, `/routing/v1/driving/${A};${B};${C}?waypoints=0;2&waypoint_names=Home;Work`);
      expect(through.waypoints.map((w: { name: string }) => w.name)).toEqual(["Home", plain.waypoints[1].name, "Work"]);
      // Names are the answer's own: the engine is asked the same as without them.
      const calls = e.fake.calls.map((c) => c.search + c.body);
      expect(calls[1]).toBe(calls[0]);
      expect(calls.join("")).not.toContain("Home");
      // A different set of names is a different answer, not the cached one.
      const other = await json(e, `/routing/v1/driving/${A};${B};${C}?waypoint_names=Start;;`);
      expect(other.waypoints.map((w: { name: string }) => w.name)).toEqual(["Start", plain.waypoints[1].name, plain.waypoints[2].name]);
    });

    test("waypoint_names needs one entry per leg end (with waypoints=, only those), 500 characters at most: else 400 naming waypoint_names, before any backend call", async () => {
      const long = "x".repeat(167);
      for (const path of [
        `/routing/v1/driving/${A};${B};${C}?waypoint_names=Home;Work`,
        `/routing/v1/driving/${A};${B};${C}?waypoint_names=Home;;;Work`,
        `/routing/v1/driving/${A};${B};${C}?waypoints=0;2&waypoint_names=Home;;Work`,
        `/routing/v1/driving/${A};${B};${C}?waypoints=0;2&waypoint_names=Home`,
        `/routing/v1/driving/${A};${B};${C}?waypoint_names=${long};${long};${long}`,
      ]) {
        const res = await get(e, path);
        const body = await refused(res, "waypoint_names");
        expect(body.error.message).toContain("waypoint_names");
      }
      expect(e.fake.calls).toHaveLength(0);
    });

    test("matrix approaches: a curb point is left and reached on the driving side, which costs its detour; unrestricted and empty change nothing", async () => {
      const plain = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}`);
      const curb = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?approaches=;curb;unrestricted`);
      expect(curb.routing.query.approaches).toEqual(["unrestricted", "curb", "unrestricted"]);
      expect(plain.routing.query.approaches).toBeNull();
      // Cells from or to B (curb) grow; the others and the diagonal do not.
      expect(curb.distances[0][1]).toBeGreaterThan(plain.distances[0][1] + 100);
      expect(curb.distances[1][2]).toBeGreaterThan(plain.distances[1][2] + 100);
      expect(curb.durations[0][1]).toBeGreaterThan(plain.durations[0][1]);
      expect(curb.distances[0][2]).toBe(plain.distances[0][2]);
      expect(curb.distances[1][1]).toBe(0);
      const unrestricted = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?approaches=unrestricted;;unrestricted`);
      expect(unrestricted.distances).toEqual(plain.distances);
      // The entries follow the coordinates, not the sources and destinations picked.
      const sub = await json(e, `/routing/v1/matrix/driving/${A};${B};${C}?sources=0&destinations=1;2&approaches=;curb;`);
      expect(sub.distances[0]).toEqual([curb.distances[0][1], plain.distances[0][2]]);
    });

    test("matrix approaches need one entry per coordinate, curb or unrestricted: else 400 naming approaches, before any backend call", async () => {
      for (const bad of ["curb;curb", "curb;;;curb", "curb;left;curb", "CURB;;"]) {
        const res = await get(e, `/routing/v1/matrix/driving/${A};${B};${C}?sources=0&approaches=${bad}`);
        const body = await refused(res, "approaches");
        expect(body.error.message).toContain("approaches");
      }
      expect(e.fake.calls).toHaveLength(0);
    });
  });
}

describe("OSRM wire mapping of the options", () => {
  test("continue_straight, approaches and waypoints go to OSRM's route service as it names them", async () => {
    await json(osrm, `/routing/v1/driving/${A};${B};${C}?continue_straight=false&approaches=;curb;unrestricted&waypoints=0;2`);
    const params = osrm.fake.calls[0]!.params;
    expect(params.get("continue_straight")).toBe("false");
    expect(params.get("approaches")).toBe("unrestricted;curb;unrestricted");
    expect(params.get("waypoints")).toBe("0;2");
    await json(osrm, `/routing/v1/driving/${A};${B}?continue_straight=true`);
    expect(osrm.fake.calls[1]!.params.get("continue_straight")).toBe("true");
    await json(osrm, `/routing/v1/driving/${A};${B}?continue_straight=default`);
    expect(osrm.fake.calls[2]!.params.has("continue_straight")).toBe(false);
  });

  test("annotations: each leg carries the per-segment distance, duration and speed arrays OSRM answers", async () => {
    const body = await json(osrm, `/routing/v1/driving/${A};${B};${C}?annotations=speed,distance,duration&overview=false`);
    expect(osrm.fake.calls[0]!.params.get("annotations")).toBe("distance,duration,speed");
    for (const leg of body.routes[0].legs) {
      expect(Object.keys(leg.annotation).sort()).toEqual(["distance", "duration", "speed"]);
      expect(leg.annotation.distance).toHaveLength(4);
      expect(leg.annotation.duration).toHaveLength(4);
      expect(leg.annotation.speed).toHaveLength(4);
      expect(leg.annotation.distance.reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(leg.distance, -1);
    }
    const one = await json(osrm, `/routing/v1/driving/${A};${B}?annotations=duration`);
    expect(Object.keys(one.routes[0].legs[0].annotation)).toEqual(["duration"]);
    const none = await json(osrm, `/routing/v1/driving/${A};${B}`);
    expect(none.routes[0].legs[0].annotation).toBeUndefined();
  });

  test("matrix annotations go to OSRM's table service", async () => {
    await json(osrm, `/routing/v1/matrix/driving/${A};${B}?annotations=distance`);
    expect(osrm.fake.calls[0]!.params.get("annotations")).toBe("distance");
  });

  test("matrix approaches go to OSRM's table service, one per coordinate whatever the sources and destinations", async () => {
    await json(osrm, `/routing/v1/matrix/driving/${A};${B};${C}?approaches=curb;;unrestricted&sources=1&destinations=0;2`);
    const params = osrm.fake.calls[0]!.params;
    expect(params.get("approaches")).toBe("curb;unrestricted;unrestricted");
    expect(params.get("sources")).toBe("1");
    await json(osrm, `/routing/v1/matrix/driving/${A};${B}`);
    expect(osrm.fake.calls[1]!.params.has("approaches")).toBe(false);
  });
});

describe("Valhalla wire mapping of the options", () => {
  test("waypoints and continue_straight become location types; approaches=curb is preferred_side=same", async () => {
    await json(valhalla, `/routing/v1/driving/${A};${B};${C}?continue_straight=true`);
    expect(sentLocations(0).map((l) => l.type)).toEqual(["break", "break_through", "break"]);
    await json(valhalla, `/routing/v1/driving/${A};${B};${C}?continue_straight=false`);
    expect(sentLocations(1).map((l) => l.type)).toEqual(["break", "break", "break"]);
    await json(valhalla, `/routing/v1/driving/${A};${B};${C}?waypoints=0;2`);
    expect(sentLocations(2).map((l) => l.type)).toEqual(["break", "through", "break"]);
    await json(valhalla, `/routing/v1/driving/${A};${B};${C}?waypoints=0;2&continue_straight=false`);
    expect(sentLocations(3).map((l) => l.type)).toEqual(["break", "via", "break"]);
    await json(valhalla, `/routing/v1/driving/${A};${B};${C}?approaches=curb;unrestricted;curb`);
    expect(sentLocations(4).map((l) => l.preferred_side)).toEqual(["same", undefined, "same"]);
  });

  test("matrix approaches=curb is preferred_side=same on the sources and targets it names", async () => {
    await json(valhalla, `/routing/v1/matrix/driving/${A};${B};${C}?approaches=curb;;unrestricted&sources=0;1&destinations=2;0`);
    const sent = JSON.parse(valhalla.fake.calls[0]!.body) as { sources: Record<string, unknown>[]; targets: Record<string, unknown>[] };
    expect(sent.sources.map((l) => l.preferred_side)).toEqual(["same", undefined]);
    expect(sent.targets.map((l) => l.preferred_side)).toEqual([undefined, "same"]);
  });

  test("annotations are refused by name: Valhalla's routes carry no per-segment data", async () => {
    const res = await get(valhalla, `/routing/v1/driving/${A};${B}?annotations=distance`);
    const body = await refused(res, "annotations");
    expect(body.error.message).toContain("Valhalla");
    expect(valhalla.fake.calls).toHaveLength(0);
  });
});

describe("options that are not honoured", () => {
  const refused: [string, string][] = [
    [`/routing/v1/driving/${A};${B}?voice_instructions=true`, "voice_instructions"],
    [`/routing/v1/driving/${A};${B}?banner_instructions=true`, "banner_instructions"],
    [`/routing/v1/driving/${A};${B}?roundabout_exits=true`, "roundabout_exits"],
    [`/routing/v1/driving/${A};${B}?depart_at=2024-05-01T08:00`, "depart_at"],
    [`/routing/v1/driving/${A};${B}?arrive_by=2024-05-01T08:00`, "arrive_by"],
    [`/routing/v1/driving/${A};${B}?max_height=3.5`, "max_height"],
    [`/routing/v1/driving/${A};${B}?max_width=2.2`, "max_width"],
    [`/routing/v1/driving/${A};${B}?max_weight=7.5`, "max_weight"],
    [`/routing/v1/driving/${A};${B}?waypoint_names=Home`, "waypoint_names"],
    [`/routing/v1/driving/${A};${B}?waypoint_targets=;13.39,52.53`, "waypoint_targets"],
    [`/routing/v1/driving/${A};${B}?enable_refresh=true`, "enable_refresh"],
    [`/routing/v1/driving/${A};${B}?continue_straight=yes`, "continue_straight"],
    [`/routing/v1/driving/${A};${B}?approaches=curb`, "approaches"],
    [`/routing/v1/driving/${A};${B}?approaches=curb;left`, "approaches"],
    [`/routing/v1/matrix/driving/${A};${B}?fallback_speed=10`, "fallback_speed"],
    [`/routing/v1/matrix/driving/${A};${B}?depart_at=2024-05-01T08:00`, "depart_at"],
    [`/routing/v1/matrix/driving/${A};${B}?approaches=curb`, "approaches"],
    [`/routing/v1/matrix/driving/${A};${B}?approaches=curb;curb;curb`, "approaches"],
    [`/routing/v1/matrix/driving/${A};${B}?approaches=curb;left`, "approaches"],
  ];
  for (const [path, parameter] of refused)
    test(`400 naming ${parameter}: ${path.slice(12, 100)}`, async () => {
      const res = await get(osrm, path);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.code).toBe("BAD_REQUEST");
      expect(body.error.details.parameter).toBe(parameter);
      expect(body.error.message).toContain(parameter);
      expect(osrm.fake.calls).toHaveLength(0);
    });

  test("the false defaults of presentation options, and harmless unknown parameters, are accepted", async () => {
    const res = await get(osrm, `/routing/v1/driving/${A};${B}?voice_instructions=false&banner_instructions=false&roundabout_exits=false&_=1712345&v=2`);
    expect(res.status).toBe(200);
    expect((await get(osrm, `/routing/v1/matrix/driving/${A};${B}?_=1712345`)).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  test("both routes document the honoured options and name the refused ones", async () => {
    const doc = await (await osrm.t.fetch("/openapi.json")).json();
    const route = doc.paths["/routing/v1/{profile}/{coordinates}"].get;
    expect(route.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["waypoints", "continue_straight", "approaches", "annotations", "waypoint_names"]));
    for (const name of ["voice_instructions", "banner_instructions", "depart_at", "max_height"]) expect(route.description).toContain(name);
    expect(route.description).not.toContain("waypoint_names");

    const matrix = doc.paths["/routing/v1/matrix/{profile}/{coordinates}"].get;
    expect(matrix.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["annotations", "approaches"]));
    expect(matrix.description).toContain("fallback_speed");
    expect(matrix.description).not.toContain("approaches");
  });
});

// A small osrm-routed stand-in on a real ephemeral port, speaking OSRM's HTTP API v1 wire format:
// GET /route/v1/{profile}/{coordinates}, /table/v1/..., /nearest/v1/... answering {"code":"Ok",...}
// with polyline6 geometry, or HTTP 400 {"code":"NoRoute"|"NoSegment"|"InvalidQuery"|...,"message"}
// as osrm-routed does. It records every call and can be told to misbehave.
import { encodePolyline } from "../../src/polyline";
import { bearingDegrees, haversineMetres } from "../../src/backends/routing/geometry";
import type { Position } from "../../src/backends/routing/types";
import { connected, covered, road, roadMetres, snap, speedOf, streetName, tripMetres } from "./fake-road-network";

export type FakeMode = "ok" | "malformed-json" | "html" | "corrupt-geometry";

export interface FakeCall {
  method: string;
  path: string;
  search: string;
  params: URLSearchParams;
  body: string;
  /** the caller's TCP port: the same port on consecutive calls means the connection was kept alive */
  clientPort: number;
}

export interface FakeRouter {
  url: string;
  calls: FakeCall[];
  status: number | null;
  mode: FakeMode;
  delayMs: number;
  maxInFlight: number;
  /** profiles served; others answer like a proxy that has no such dataset (404). null = any, as osrm-routed */
  profiles: string[] | null;
  /** profiles whose dataset has no roads at all: every point is off the network */
  emptyProfiles: string[];
  /** osrm-routed --max-table-size (Valhalla: the pedestrian max_distance in km) */
  limit: number;
  reset(): void;
  stop(): Promise<void>;
}

const error = (code: string, message: string) => Response.json({ code, message }, { status: 400 });

function parseCoordinates(raw: string): Position[] | null {
  const points = raw.split(";").map((p) => p.split(",").map(Number));
  return points.every((p) => p.length === 2 && p.every(Number.isFinite)) ? (points as Position[]) : null;
}

/** An OSRM route through the points: one leg per pair, optional steps, geometry per `overview`. */
function osrmRoute(points: Position[], profile: string, params: URLSearchParams, offset: number) {
  const snapped = points.map(snap);
  const steps = params.get("steps") === "true";
  const overview = params.get("overview") ?? "simplified";
  const speed = speedOf(profile);
  const mode = speed > 10 ? "driving" : speed < 2 ? "walking" : "cycling";
  const line: Position[] = [];
  const annotations = (params.get("annotations") ?? "").split(",").filter((a) => a && a !== "false");
  let legs = snapped.slice(1).map((to, i) => {
    const from = snapped[i]!;
    const shape = road(from, to, 4, offset);
    line.push(...(i === 0 ? shape : shape.slice(1)));
    const distance = roadMetres(from, to, offset);
    const duration = Math.round((distance / speed) * 10) / 10;
    const half = shape.slice(0, 3);
    const rest = shape.slice(2);
    const legSteps = steps
      ? [
          {
            geometry: encodePolyline(half, 6),
            maneuver: { bearing_after: bearingDegrees(half[0]!, half[1]!), bearing_before: 0, location: half[0], type: "depart" },
            mode,
            driving_side: "right",
            name: streetName(from),
            intersections: [{ out: 0, entry: [true], bearings: [bearingDegrees(half[0]!, half[1]!)], location: half[0] }],
            weight: duration / 2,
            duration: Math.round((duration / 2) * 10) / 10,
            distance: Math.round((distance / 2) * 10) / 10,
          },
          {
            geometry: encodePolyline(rest, 6),
            maneuver: { bearing_after: bearingDegrees(rest[0]!, rest[1]!), bearing_before: bearingDegrees(half[1]!, half[2]!), location: rest[0], modifier: "left", type: "turn" },
            mode,
            driving_side: "right",
            name: streetName(to),
            intersections: [{ out: 1, in: 0, entry: [true, true], bearings: [0, 90], location: rest[0] }],
            weight: duration / 2,
            duration: Math.round((duration / 2) * 10) / 10,
            distance: Math.round((distance / 2) * 10) / 10,
          },
          {
            geometry: encodePolyline([to, to], 6),
            maneuver: { bearing_after: 0, bearing_before: bearingDegrees(rest.at(-2)!, rest.at(-1)!), location: to, modifier: "right", type: "arrive" },
            mode,
            driving_side: "right",
            name: streetName(to),
            intersections: [{ in: 0, entry: [true], bearings: [180], location: to }],
            weight: 0,
            duration: 0,
            distance: 0,
          },
        ]
      : [];
    // As OSRM's `annotations`: one entry per segment of the leg's full geometry.
    const segments = shape.slice(1).map((p, j) => haversineMetres(shape[j]!, p));
    const scale = distance / segments.reduce((a, b) => a + b, 0);
    const metres = segments.map((m) => Math.round(m * scale * 10) / 10);
    const annotation: Record<string, number[]> = {
      distance: metres,
      duration: metres.map((m) => Math.round((m / speed) * 10) / 10),
      speed: metres.map(() => Math.round(speed * 10) / 10),
      weight: metres.map((m) => Math.round((m / speed) * 10) / 10),
      nodes: shape.map((_, j) => 1000 + j),
    };
    const wanted = annotations.includes("true") ? ["distance", "duration", "speed", "weight", "nodes"] : annotations;
    return {
      steps: legSteps,
      summary: steps ? `${streetName(from)}, ${streetName(to)}` : "",
      weight: duration,
      duration,
      distance,
      ...(wanted.length ? { annotation: Object.fromEntries(wanted.filter((k) => k in annotation).map((k) => [k, annotation[k]!])) } : {}),
    };
  });
  // As OSRM's `waypoints`: the legs between the listed coordinates are joined into one (its steps lose
  // the arrivals and departures in between).
  const ends = (params.get("waypoints") ?? "").split(";").filter(Boolean).map(Number);
  if (ends.length)
    legs = ends.slice(1).map((end, k) => {
      const group = legs.slice(ends[k]!, end);
      const joined: (typeof legs)[number] = {
        steps: group.flatMap((l, j) => l.steps.filter((st) => !(st.maneuver.type === "arrive" && j < group.length - 1) && !(st.maneuver.type === "depart" && j > 0))),
        summary: group.map((l) => l.summary).filter(Boolean).join(", "),
        weight: group.reduce((a, l) => a + l.weight, 0),
        duration: Math.round(group.reduce((a, l) => a + l.duration, 0) * 10) / 10,
        distance: Math.round(group.reduce((a, l) => a + l.distance, 0) * 10) / 10,
      };
      if (group[0]!.annotation) joined.annotation = Object.fromEntries(Object.keys(group[0]!.annotation).map((key) => [key, group.flatMap((l) => l.annotation![key]!)]));
      return joined;
    });
  const route: Record<string, unknown> = {
    legs,
    weight_name: "routability",
    weight: legs.reduce((s, l) => s + l.weight, 0),
    duration: Math.round(legs.reduce((s, l) => s + l.duration, 0) * 10) / 10,
    distance: Math.round(legs.reduce((s, l) => s + l.distance, 0) * 10) / 10,
  };
  if (overview === "full") route.geometry = encodePolyline(line, 6);
  else if (overview === "simplified") route.geometry = encodePolyline([line[0]!, line.at(-1)!], 6);
  return route;
}

const waypoint = (p: Position) => {
  const s = snap(p);
  return { hint: "KSoKgP___38AAAAA", distance: Math.round(haversineMetres(p, s) * 10) / 10, name: streetName(s), location: s };
};

export function startFakeOsrm(): FakeRouter {
  let inFlight = 0;
  const fake: FakeRouter = {
    url: "",
    calls: [],
    status: null,
    mode: "ok",
    delayMs: 0,
    maxInFlight: 0,
    profiles: null,
    emptyProfiles: [],
    limit: 100,
    reset() {
      fake.calls.length = 0;
      fake.status = null;
      fake.mode = "ok";
      fake.delayMs = 0;
      fake.maxInFlight = 0;
      fake.profiles = null;
      fake.emptyProfiles = [];
      fake.limit = 100;
    },
    stop: async () => {
      await server.stop(true);
    },
  };

  async function handle(req: Request, clientPort: number): Promise<Response> {
    const url = new URL(req.url);
    const q = req.url.indexOf("?");
    fake.calls.push({ method: req.method, path: url.pathname, search: q < 0 ? "" : req.url.slice(q + 1), params: url.searchParams, body: await req.text(), clientPort });
    if (fake.delayMs) await Bun.sleep(fake.delayMs);
    if (fake.status !== null) return Response.json({ code: "InternalError", message: `fake told to answer ${fake.status}` }, { status: fake.status });
    if (fake.mode === "malformed-json") return new Response('{"code":"Ok","routes":[', { headers: { "content-type": "application/json" } });
    if (fake.mode === "html") return new Response("<html><body>It works!</body></html>", { headers: { "content-type": "text/html" } });
    const m = /^\/(route|table|nearest)\/v1\/([^/]+)\/([^/]+)$/.exec(decodeURIComponent(url.pathname));
    if (!m) return error("InvalidUrl", `URL string malformed close to position 1: "${url.pathname.slice(0, 20)}"`);
    const [, service, profile, coords] = m as unknown as [string, string, string, string];
    if (fake.profiles && !fake.profiles.includes(profile)) return new Response("<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>", { status: 404, headers: { "content-type": "text/html" } });
    const points = parseCoordinates(coords);
    if (!points) return error("InvalidQuery", "Query string malformed close to position 0");
    const exclude = url.searchParams.get("exclude");
    if (exclude && !["car", "driving"].includes(profile)) return error("InvalidValue", "Exclude flag combination is not supported.");
    if (fake.emptyProfiles.includes(profile)) return error("NoSegment", "Could not find a matching segment for coordinate 0");
    if (service === "nearest") {
      // nearest has no search radius: it finds the closest road however far away it is
      return Response.json({ code: "Ok", waypoints: [{ ...waypoint(points[0]!), nodes: [0, 1] }] });
    }
    // As OSRM does: a radius limits how far from its coordinate a waypoint may find a road.
    const radiuses = (url.searchParams.get("radiuses") ?? "").split(";");
    const outside = points.findIndex((p, i) => !covered(p) || (radiuses[i] !== undefined && radiuses[i] !== "" && radiuses[i] !== "unlimited" && haversineMetres(p, snap(p)) > Number(radiuses[i])));
    if (outside >= 0) return error("NoSegment", `Could not find a matching segment for coordinate ${outside}`);
    // approaches: one per coordinate on the route and table services alike, checked as osrm-routed checks them.
    const approaches = url.searchParams.get("approaches");
    const approachList = approaches === null ? [] : approaches.split(";");
    if (approaches !== null && (approachList.length !== points.length || !approachList.every((a) => ["", "curb", "unrestricted"].includes(a))))
      return error("InvalidOptions", "Number of elements in approaches size does not match coordinate size");
    if (service === "table") {
      if (points.length > fake.limit) return error("TooBig", "Too many table coordinates");
      const indices = (name: string) => (url.searchParams.get(name) ?? "").split(";").filter(Boolean).map(Number);
      const sources = indices("sources").length ? indices("sources") : points.map((_, i) => i);
      const destinations = indices("destinations").length ? indices("destinations") : points.map((_, i) => i);
      // A curb approach leaves (as a source) or arrives (as a destination) on the driving side: a detour.
      const cell = (a: number, b: number, f: (m: number) => number) => (connected(points[a]!, points[b]!) ? f(tripMetres(points[a]!, points[b]!, approachList[a] === "curb", approachList[b] === "curb")) : null);
      return Response.json({
        code: "Ok",
        durations: sources.map((s) => destinations.map((d) => cell(s, d, (metres) => Math.round((metres / speedOf(profile)) * 10) / 10))),
        distances: sources.map((s) => destinations.map((d) => cell(s, d, (metres) => metres))),
        sources: sources.map((i) => waypoint(points[i]!)),
        destinations: destinations.map((i) => waypoint(points[i]!)),
      });
    }
    // The route service's own options, checked as osrm-routed checks them.
    const continueStraight = url.searchParams.get("continue_straight");
    if (continueStraight !== null && !["true", "false", "default"].includes(continueStraight)) return error("InvalidQuery", "Query string malformed close to position 0");
    const annotations = url.searchParams.get("annotations");
    if (annotations !== null && !annotations.split(",").every((a) => ["true", "false", "nodes", "distance", "duration", "datasources", "weight", "speed"].includes(a)))
      return error("InvalidQuery", "Query string malformed close to position 0");
    const waypointsParam = url.searchParams.get("waypoints");
    if (waypointsParam !== null) {
      const ends = waypointsParam.split(";").map(Number);
      if (!ends.every((e, i) => Number.isInteger(e) && e < points.length && (i === 0 || e > ends[i - 1]!))) return error("InvalidOptions", "Invalid waypoints");
      if (ends[0] !== 0 || ends.at(-1) !== points.length - 1) return error("InvalidValue", "First and last coordinates must be specified as waypoints.");
    }
    for (let i = 1; i < points.length; i++) if (!connected(points[i - 1]!, points[i]!)) return error("NoRoute", "Impossible route between points");
    const alternatives = url.searchParams.get("alternatives");
    const wanted = points.length === 2 ? (alternatives === "true" ? 1 : Number(alternatives) || 0) : 0;
    const routes = Array.from({ length: 1 + wanted }, (_, i) => osrmRoute(points, profile, url.searchParams, i * 0.003));
    if (fake.mode === "corrupt-geometry") for (const r of routes) r.geometry = "_ibE_seK_seK_seK~";
    return Response.json({ code: "Ok", routes, waypoints: points.map(waypoint) });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv): Promise<Response> {
      inFlight++;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      try {
        return await handle(req, srv.requestIP(req)?.port ?? 0);
      } finally {
        inFlight--;
      }
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

// A small Valhalla stand-in on a real ephemeral port, speaking Valhalla's JSON API: POST /route (trip
// with legs, maneuvers and polyline6 `shape`, lengths in kilometres, `alternates`), /sources_to_targets,
// /locate and GET /status; errors as Valhalla sends them, e.g. HTTP 400 {"error_code":442,"error":"No
// path could be found for input","status_code":400,"status":"Bad Request"}. Shares the road network
// of the fake OSRM, records every call and can be told to misbehave.
import { encodePolyline } from "../../src/polyline";
import type { Position } from "../../src/backends/routing/types";
import type { FakeCall, FakeMode, FakeRouter } from "./fake-osrm";
import { connected, covered, road, roadMetres, snap, speedOf, streetName, tripMetres } from "./fake-road-network";

const COSTINGS = ["auto", "pedestrian", "bicycle", "truck", "motor_scooter"];

function valhallaError(errorCode: number, message: string, status = 400) {
  return Response.json({ error_code: errorCode, error: message, status_code: status, status: status === 400 ? "Bad Request" : "Not Found" }, { status });
}

type Loc = { lon: number; lat: number };
const position = (l: Loc): Position => [l.lon, l.lat];
const km = (metres: number) => Math.round(metres) / 1000;

function instruction(language: string, kind: "start" | "turn" | "arrive", street: string): string {
  const german = language.toLowerCase().startsWith("de");
  if (kind === "start") return german ? `Fahren Sie Richtung Osten auf ${street}.` : `Drive east on ${street}.`;
  if (kind === "turn") return german ? `Biegen Sie links ab auf ${street}.` : `Turn left onto ${street}.`;
  return german ? "Sie haben Ihr Ziel erreicht." : "You have arrived at your destination.";
}

/** Valhalla's location types: legs end only at break and break_through; through and via are passed. */
const LOCATION_TYPES = ["break", "through", "via", "break_through"];

function trip(points: Position[], costing: string, language: string, offset: number, types: string[] = points.map(() => "break")) {
  const snapped = points.map(snap);
  const speed = speedOf(costing);
  const travelMode = speed > 10 ? "drive" : speed < 2 ? "pedestrian" : "bicycle";
  const pairs = snapped.slice(1).map((to, i) => {
    const from = snapped[i]!;
    const shape = road(from, to, 4, offset);
    const metres = roadMetres(from, to, offset);
    const time = Math.round((metres / speed) * 1000) / 1000;
    const maneuvers = [
      { type: 1, instruction: instruction(language, "start", streetName(from)), street_names: [streetName(from)], time: time / 2, length: km(metres / 2), cost: time / 2, begin_shape_index: 0, end_shape_index: 2, travel_mode: travelMode, travel_type: "car", bearing_after: 88 },
      { type: 15, instruction: instruction(language, "turn", streetName(to)), street_names: [streetName(to)], time: time / 2, length: km(metres / 2), cost: time / 2, begin_shape_index: 2, end_shape_index: 4, travel_mode: travelMode, travel_type: "car", bearing_before: 88, bearing_after: 3 },
      { type: 5, instruction: instruction(language, "arrive", ""), time: 0, length: 0, cost: 0, begin_shape_index: 4, end_shape_index: 4, travel_mode: travelMode, travel_type: "car" },
    ];
    return { maneuvers, summary: { has_time_restrictions: false, min_lat: 52.3, min_lon: 13, max_lat: 52.7, max_lon: 13.8, time, length: km(metres), cost: time }, shape, encoded: encodePolyline(shape, 6) };
  });
  // Pairs joined across through and via locations: one leg, maneuver shape indices shifted, the
  // arrivals and departures in between dropped.
  const ends = types.map((t, i) => (t === "break" || t === "break_through" ? i : -1)).filter((i) => i >= 0);
  const legs = ends.slice(1).map((end, k) => {
    const group = pairs.slice(ends[k]!, end);
    const shape: Position[] = [];
    const maneuvers: (typeof group)[number]["maneuvers"] = [];
    group.forEach((l, j) => {
      const shift = shape.length === 0 ? 0 : shape.length - 1;
      shape.push(...(j === 0 ? l.shape : l.shape.slice(1)));
      for (const m of l.maneuvers)
        if (!(m.type === 5 && j < group.length - 1) && !(m.type === 1 && j > 0)) maneuvers.push({ ...m, begin_shape_index: m.begin_shape_index + shift, end_shape_index: m.end_shape_index + shift });
    });
    const time = group.reduce((a, l) => a + l.summary.time, 0);
    const length = Math.round(group.reduce((a, l) => a + l.summary.length, 0) * 1000) / 1000;
    return { maneuvers, summary: { ...group[0]!.summary, time, length, cost: time }, shape: encodePolyline(shape, 6) };
  });
  const time = legs.reduce((s, l) => s + l.summary.time, 0);
  const length = legs.reduce((s, l) => s + l.summary.length, 0);
  return {
    trip: {
      locations: points.map(([lon, lat], i) => ({ type: types[i], lat, lon, original_index: i })),
      legs,
      summary: { has_time_restrictions: false, min_lat: 52.3, min_lon: 13, max_lat: 52.7, max_lon: 13.8, time, length: Math.round(length * 1000) / 1000, cost: time },
      status_message: "Found route between points",
      status: 0,
      units: "kilometers",
      language: language.includes("-") ? language : `${language}-US`,
    },
  };
}

export function startFakeValhalla(): FakeRouter {
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
      fake.mode = "ok" as FakeMode;
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
    const body = await req.text();
    const call: FakeCall = { method: req.method, path: url.pathname, search: url.search.slice(1), params: url.searchParams, body, clientPort };
    fake.calls.push(call);
    if (fake.delayMs) await Bun.sleep(fake.delayMs);
    if (fake.status !== null) return valhallaError(199, `fake told to answer ${fake.status}`, fake.status);
    if (fake.mode === "malformed-json") return new Response('{"trip":{"legs":[', { headers: { "content-type": "application/json" } });
    if (fake.mode === "html") return new Response("<html><body>It works!</body></html>", { headers: { "content-type": "text/html" } });
    const action = url.pathname.slice(1);
    if (action === "status") return Response.json({ version: "3.5.1", tileset_last_modified: 1700000000, available_actions: ["status", "centroid", "expansion", "transit_available", "trace_attributes", "trace_route", "isochrone", "optimized_route", "sources_to_targets", "height", "route", "locate"] });
    if (!["route", "sources_to_targets", "locate"].includes(action))
      return valhallaError(106, "Try any of:'/locate' '/route' '/height' '/sources_to_targets' '/optimized_route' '/isochrone' '/trace_route' '/trace_attributes' '/transit_available' '/expansion' '/centroid' '/status' ", 404);
    if (req.method !== "POST" && !url.searchParams.has("json")) return valhallaError(101, "Try a POST or GET request instead");
    let request: { locations?: (Loc & { type?: string; preferred_side?: string })[]; sources?: (Loc & { preferred_side?: string })[]; targets?: (Loc & { preferred_side?: string })[]; costing?: string; directions_options?: { language?: string }; alternates?: number };
    try {
      request = JSON.parse(req.method === "POST" ? body : url.searchParams.get("json")!);
    } catch {
      return valhallaError(100, "Failed to parse json request");
    }
    const costing = request.costing ?? "";
    if (!costing) return valhallaError(124, "No edge/node costing provided");
    const served = fake.profiles ?? COSTINGS;
    if (!served.includes(costing)) return valhallaError(125, `No costing method found for '${costing}'`);
    const onRoads = (p: Position) => covered(p) && !fake.emptyProfiles.includes(costing);
    if (action === "locate") {
      const locations = request.locations ?? [];
      return Response.json(
        locations.map((l) => {
          const p = position(l);
          return onRoads(p)
            ? { input_lon: l.lon, input_lat: l.lat, edges: [{ way_id: 1, correlated_lon: snap(p)[0], correlated_lat: snap(p)[1], side_of_street: "right", percent_along: 0.5 }], nodes: [] }
            : { input_lon: l.lon, input_lat: l.lat, edges: null, nodes: null };
        }),
      );
    }
    if (action === "sources_to_targets") {
      const sources = (request.sources ?? []).map(position);
      const targets = (request.targets ?? []).map(position);
      if (!sources.length) return valhallaError(121, "Insufficient number of sources provided");
      if ([...(request.sources ?? []), ...(request.targets ?? [])].some((l) => l.preferred_side !== undefined && !["same", "opposite", "either"].includes(l.preferred_side))) return valhallaError(130, "Failed to parse location");
      if ([...sources, ...targets].some((p) => !onRoads(p))) return valhallaError(171, "No suitable edges near location");
      // preferred_side=same leaves (a source) or reaches (a target) the point on the driving side: a detour.
      const curb = (l: { preferred_side?: string } | undefined) => l?.preferred_side === "same";
      return Response.json({
        sources_to_targets: sources.map((s, from) =>
          targets.map((t, to) => {
            if (!connected(s, t)) return { distance: null, time: null, to_index: to, from_index: from };
            const metres = tripMetres(s, t, curb(request.sources?.[from]), curb(request.targets?.[to]));
            return { distance: km(metres), time: Math.round(metres / speedOf(costing)), to_index: to, from_index: from };
          }),
        ),
        sources: request.sources,
        targets: request.targets,
        units: "kilometers",
      });
    }
    const points = (request.locations ?? []).map(position);
    if (points.length < 2) return valhallaError(120, "Insufficient number of locations provided");
    if (points.some((p) => !onRoads(p))) return valhallaError(171, "No suitable edges near location");
    for (let i = 1; i < points.length; i++) if (!connected(points[i - 1]!, points[i]!)) return valhallaError(442, "No path could be found for input");
    const totalKm = points.slice(1).reduce((sum, p, i) => sum + roadMetres(points[i]!, p) / 1000, 0);
    if (costing === "pedestrian" && totalKm > fake.limit) return valhallaError(154, `Path distance exceeds the max distance limit: ${fake.limit * 1000} meters`);
    const locations = request.locations ?? [];
    const types = locations.map((l) => l.type ?? "break");
    if (!types.every((t) => LOCATION_TYPES.includes(t))) return valhallaError(130, "Failed to parse location");
    if (locations.some((l) => l.preferred_side !== undefined && !["same", "opposite", "either"].includes(l.preferred_side))) return valhallaError(130, "Failed to parse location");
    // Valhalla makes the first and last locations breaks whatever they were sent as.
    types[0] = "break";
    types[types.length - 1] = "break";
    const language = request.directions_options?.language ?? "en-US";
    const answer: Record<string, unknown> = trip(points, costing, language, 0, types);
    const alternates = points.length === 2 ? Math.min(request.alternates ?? 0, 3) : 0;
    if (alternates) answer.alternates = Array.from({ length: alternates }, (_, i) => trip(points, costing, language, (i + 1) * 0.003, types));
    if (fake.mode === "corrupt-geometry") (answer.trip as { legs: { shape: string }[] }).legs[0]!.shape = "_ibE_seK_seK_seK~";
    return Response.json(answer);
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

// HTTP layer of the routing API: auth, rate-limit and quota headers come from the `scope` macro; the
// path and query are validated by src/domain/routing/params.ts (400s name the parameter; a repeated
// query parameter is one, by src/http/query-params.ts); answers are
// served pre-serialized with CONTRACT.md's Cache-Control. The TypeBox schemas below document
// /openapi.json; cached bodies are not re-validated on every hit.
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { withRouteFacts } from "../../http/route-facts";
import { REPEATED_PARAMETER_RULE, singleQueryRecordOf } from "../../http/query-params";
import { documentedQuery, documentedResponses, ErrorEnvelope } from "./geocoding.model";
import { MAX_ALTERNATIVES, MAX_MATRIX_POINTS, MAX_WAYPOINTS, parseMatrixQuery, parseRouteQuery } from "../../domain/routing/params";

const CACHE_HOUR = "private, max-age=3600";

function answer(set: { headers: unknown }, body: string): string {
  const h = set.headers as Record<string, string>;
  h["content-type"] = "application/json; charset=utf-8";
  h["cache-control"] = CACHE_HOUR;
  return body;
}

const Profile = t.String({ description: "driving, walking or cycling (mapped to the backend's profile names by ROUTING_PROFILES)", examples: ["driving"] });

const RouteParams = t.Object({
  profile: Profile,
  coordinates: t.String({ description: `2 to ${MAX_WAYPOINTS} waypoints lon,lat;lon,lat;... (longitude first; \`;\` may be sent as %3B)`, examples: ["13.38886,52.517037;13.397634,52.529407"] }),
});

const MatrixParams = t.Object({
  profile: Profile,
  coordinates: t.String({ description: `2 to ${MAX_MATRIX_POINTS} points lon,lat;lon,lat;...`, examples: ["13.38886,52.517037;13.397634,52.529407;13.428555,52.523219"] }),
});

const RouteOptions = t.Object({
  alternatives: t.Optional(t.String({ description: `Alternative routes besides the best one, 0 to ${MAX_ALTERNATIVES} (true = 1, false = 0). Default 0.`, examples: ["0"] })),
  steps: t.Optional(t.String({ description: "true for turn-by-turn steps in every leg. Default false.", examples: ["true"] })),
  geometries: t.Optional(t.String({ description: "geojson (LineString), polyline (encoded, 1e-5 precision, as OSRM and Mapbox Directions default to) or polyline6 (encoded, 1e-6). Default geojson.", examples: ["geojson"] })),
  overview: t.Optional(t.String({ description: "Route geometry: full, simplified, or false (none). Default simplified.", examples: ["simplified"] })),
  language: t.Optional(t.String({ description: "Language of instruction texts, a tag such as en or de; English where the engine lacks it. Default en.", examples: ["en"] })),
  exclude: t.Optional(t.String({ description: "Comma-separated tolls, motorways, ferries: OSRM excludes them where its profile allows, Valhalla avoids them as far as possible", examples: ["tolls,ferries"] })),
  radiuses: t.Optional(
    t.String({ description: "One per waypoint, separated by ;: how far (metres) from the input a road may be, or unlimited; an empty entry keeps the engine's default (Valhalla has no unlimited: its default applies)", examples: ["50;unlimited"] }),
  ),
  bearings: t.Optional(t.String({ description: "One per waypoint, separated by ;: angle,deviation in degrees (0-360, 0-180), the direction of travel the road must allow there; an empty entry allows any", examples: ["90,45;"] })),
  waypoints: t.Optional(t.String({ description: "Indices of the coordinates that end legs, separated by ;, ascending, the first and last included; the others are passed through without a leg (every input still has an entry in waypoints[]). Default: all.", examples: ["0;2"] })),
  continue_straight: t.Optional(t.String({ description: "true: no U-turn at intermediate waypoints (Valhalla: break_through/through locations); false: U-turns allowed (break/via); default: the engine's own", examples: ["true"] })),
  approaches: t.Optional(t.String({ description: "One per waypoint, separated by ;: curb (arrive and leave with the point on the driving side; Valhalla: preferred_side=same) or unrestricted; an empty entry is unrestricted", examples: [";curb"] })),
  waypoint_names: t.Optional(
    t.String({ description: "One name per waypoint that ends a leg (every coordinate, or those waypoints lists), separated by ;, 500 characters at most in all: answered as that waypoint's name in waypoints[] instead of the snapped road's; an empty entry keeps the road's", examples: ["Home;;Work"] }),
  ),
  annotations: t.Optional(t.String({ description: "Comma-separated distance, duration, speed: each leg gets annotation.{name}[], one value per segment of its full geometry. OSRM only: Valhalla answers 400 naming annotations. Mapbox's congestion, maxspeed and the like are 400.", examples: ["distance,duration,speed"] })),
});

/** Mapbox Directions options refused by name (400), as the answer would otherwise silently differ. */
const REFUSED_ROUTE_OPTIONS =
  "Refused with 400 naming them, since the answer would silently differ: voice_instructions, banner_instructions, roundabout_exits, enable_refresh, waypoints_per_route, compute_toll_cost and metadata when true (false is the default and accepted); " +
  "depart_at, arrive_by, max_height, max_width, max_weight, waypoint_targets, alley_bias, walkway_bias, walking_speed, avoid_maneuver_radius, include, engine, snapping_include_closures, snapping_include_static_closures. Any other query parameter is ignored. ";

const MatrixOptions = t.Object({
  sources: t.Optional(t.String({ description: "all, or coordinate indices separated by ; (rows). Default all.", examples: ["0;1"] })),
  destinations: t.Optional(t.String({ description: "all, or coordinate indices separated by ; (columns). Default all.", examples: ["2"] })),
  annotations: t.Optional(t.String({ description: "Comma-separated duration, distance: the tables to answer (the other is left out). Default both (Mapbox's default is duration only).", examples: ["duration,distance"] })),
  approaches: t.Optional(
    t.String({ description: "One per coordinate (not per source or destination), separated by ;: curb (leave it as a source and reach it as a destination with the point on the driving side; Valhalla: preferred_side=same) or unrestricted; an empty entry is unrestricted", examples: [";curb;"] }),
  ),
});

const Position = t.Tuple([t.Number(), t.Number()], { description: "[lon, lat]" });
const Line = t.Union([t.Object({ type: t.Literal("LineString"), coordinates: t.Array(Position) }), t.String({ description: "polyline or polyline6, as asked for" })]);

const Waypoint = t.Object({
  location: t.Tuple([t.Number(), t.Number()], { description: "[lon, lat] snapped to the road network (Valhalla's matrix: the input point)" }),
  name: t.Optional(t.String({ description: "name of the road there, empty when unnamed, or the one waypoint_names gave this leg end (routes); absent when the engine does not say" })),
  distance: t.Optional(t.Number({ description: "metres from the input point; absent when the engine does not say" })),
});

const Step = t.Object({
  distance: t.Number({ description: "metres" }),
  duration: t.Number({ description: "seconds" }),
  name: t.String(),
  mode: t.String({ examples: ["driving", "walking", "cycling"] }),
  geometry: Line,
  maneuver: t.Object({
    type: t.String({
      description:
        "OSRM's maneuver vocabulary: depart, turn, new name, continue, on ramp, off ramp, fork, end of road, use lane, merge, roundabout, rotary, roundabout turn, exit roundabout, exit rotary, arrive, notification (Valhalla answers use a subset)",
      examples: ["depart", "turn", "new name", "continue", "on ramp", "off ramp", "fork", "merge", "roundabout", "exit roundabout", "arrive", "notification"],
    }),
    modifier: t.Optional(t.String({ examples: ["uturn", "sharp right", "right", "slight right", "straight", "slight left", "left", "sharp left"] })),
    location: Position,
    bearing_before: t.Number(),
    bearing_after: t.Number(),
    instruction: t.String({ description: "text in the requested language, e.g. Turn left onto Main Street" }),
    exit: t.Optional(t.Integer({ description: "roundabout exit number" })),
  }),
});

const RouteAnswerSchema = t.Object({
  code: t.Literal("Ok"),
  routes: t.Array(
    t.Object({
      distance: t.Number({ description: "metres" }),
      duration: t.Number({ description: "seconds" }),
      geometry: t.Optional(t.Union([Line], { description: "absent for overview=false" })),
      legs: t.Array(
        t.Object({
          distance: t.Number(),
          duration: t.Number(),
          summary: t.String(),
          steps: t.Array(Step, { description: "empty unless steps=true" }),
          annotation: t.Optional(
            t.Object(
              { distance: t.Optional(t.Array(t.Number())), duration: t.Optional(t.Array(t.Number())), speed: t.Optional(t.Array(t.Number())) },
              { description: "per segment of the leg's full geometry (metres, seconds, m/s), the ones annotations asked for; absent otherwise" },
            ),
          ),
        }),
        { description: "one between each pair of coordinates that end legs (all of them unless waypoints says otherwise)" },
      ),
    }),
    { description: "the best route first, then alternatives" },
  ),
  waypoints: t.Array(Waypoint),
  routing: t.Object({ engine: t.String({ examples: ["osrm", "valhalla"] }), query: t.Record(t.String(), t.Unknown(), { description: "the normalized inputs (defaults filled in)" }) }),
});

const MatrixAnswerSchema = t.Object({
  code: t.Literal("Ok"),
  durations: t.Optional(t.Array(t.Array(t.Union([t.Number(), t.Null()])), { description: "seconds, [source][destination]; null where no route exists; absent unless annotations includes duration" })),
  distances: t.Optional(t.Array(t.Array(t.Union([t.Number(), t.Null()])), { description: "metres, like durations; absent unless annotations includes distance" })),
  sources: t.Array(Waypoint),
  destinations: t.Array(Waypoint),
  routing: t.Object({ engine: t.String(), query: t.Record(t.String(), t.Unknown()) }),
});

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 404: ErrorEnvelope, 422: ErrorEnvelope, 429: ErrorEnvelope, 502: ErrorEnvelope, 503: ErrorEnvelope };
const descriptions = {
  400: "BAD_REQUEST naming the parameter (also when the backend's own limits are lower, and when a parameter is given more than once)",
  404: "NO_ROUTE: no route connects the waypoints (details.waypoints)",
  422: "INVALID_WAYPOINT: a point is not near any road of the profile (details.index)",
  502: "UPSTREAM_ERROR: the routing backend answered wrongly",
  503: "ROUTER_NOT_CONFIGURED or ROUTER_UNAVAILABLE",
};
const tags = ["Routing"];

export function routingRoutes(services: Services, authPlugin: AuthPlugin) {
  const routing = services.routing;
  const respond = (set: { headers: unknown }, body: string | Promise<string>) => (typeof body === "string" ? answer(set, body) : body.then((b) => answer(set, b)));
  return withRouteFacts({ cors: "service", group: "routing" }, new Elysia({ name: "routing", prefix: "/routing/v1" })
    .use(authPlugin)
    .get("/matrix/:profile/:coordinates", ({ params, request, set }) => respond(set, routing.matrix(parseMatrixQuery(params.profile, params.coordinates, singleQueryRecordOf(request)))), {
      scope: "routing",
      params: MatrixParams,
      detail: {
        tags,
        summary: `Travel time and distance matrix between up to ${MAX_MATRIX_POINTS} points (cached one hour)`,
        description:
          "Refused with 400 naming them: fallback_speed, depart_at (Mapbox Matrix options not honoured here); any other query parameter is ignored. " + REPEATED_PARAMETER_RULE,
        parameters: documentedQuery(MatrixOptions),
        responses: documentedResponses({ 200: MatrixAnswerSchema, ...errors }, descriptions),
      },
    })
    .get("/:profile/:coordinates", ({ params, request, set }) => respond(set, routing.route(parseRouteQuery(params.profile, params.coordinates, singleQueryRecordOf(request)))), {
      scope: "routing",
      params: RouteParams,
      detail: {
        tags,
        summary: `Route through 2 to ${MAX_WAYPOINTS} waypoints (cached one hour)`,
        description:
          "One answer shape for OSRM and Valhalla, close to OSRM's and Mapbox Directions': routes[] with distance (m), duration (s), geometry, legs[] with steps[] " +
          "(maneuver type/modifier/location/bearings, instruction text, name, distance, duration, geometry), and waypoints[] (snapped location, road name, metres from the input). " +
          REFUSED_ROUTE_OPTIONS +
          REPEATED_PARAMETER_RULE,
        parameters: documentedQuery(RouteOptions),
        responses: documentedResponses({ 200: RouteAnswerSchema, ...errors }, descriptions),
      },
    }));
}

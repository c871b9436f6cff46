// TypeBox schemas of the geocoding routes (CONTRACT.md "Geocoding"); they document /openapi.json.
// The single-form routes answer repeated query strings from a cache before parsing anything, so their
// query schemas document the parameters (detail.parameters) and params.ts validates them on a miss, with
// a 400 naming the parameter. Answers are served pre-serialized, so their schemas document the routes
// (detail.responses) instead of re-validating every cached body.
import { t, type TSchema } from "elysia";

type TObject = ReturnType<typeof t.Object>;

/** OpenAPI query `parameters` from a TypeBox object of string properties. */
export function documentedQuery(schema: TObject) {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    const { description, examples } = prop as { description?: string; examples?: unknown[] };
    return { in: "query" as const, name, required: required.has(name), description, schema: { type: "string" as const, ...(examples ? { examples } : {}) } };
  });
}

/** OpenAPI `responses` from TypeBox schemas (TypeBox schemas are JSON Schema). */
export function documentedResponses(map: Record<number, TSchema>, descriptions: Record<number, string> = {}) {
  return Object.fromEntries(
    Object.entries(map).map(([status, schema]) => [status, { description: descriptions[Number(status)] ?? (Number(status) < 300 ? "OK" : "Error envelope"), content: { "application/json": { schema } } }]),
  );
}

const language = t.Optional(t.String({ description: "Result language, a language tag such as en or de-CH. Default en.", examples: ["en"] }));

export const ForwardQuery = t.Object({
  q: t.String({ description: "Search text, at most 500 characters" }),
  limit: t.Optional(t.String({ description: "Number of results, an integer from 1 to 25. Default 5.", examples: ["5"] })),
  bbox: t.Optional(t.String({ description: "minLon,minLat,maxLon,maxLat (min < max); passed to the backend as boundary.rect", examples: ["5.9,45.8,10.5,47.8"] })),
  language,
  country: t.Optional(t.String({ description: "Comma-separated ISO 3166-1 alpha-2 or alpha-3 codes; passed to the backend as boundary.country", examples: ["CH,LI"] })),
});

export const ReverseQuery = t.Object({
  lon: t.String({ description: "Longitude, -180 to 180", examples: ["8.5417"] }),
  lat: t.String({ description: "Latitude, -90 to 90", examples: ["47.3769"] }),
  limit: t.Optional(t.String({ description: "Number of results, an integer from 1 to 10. Default 1.", examples: ["1"] })),
  language,
});

export const AutocompleteQuery = t.Object({
  text: t.String({ description: "Partial search text, at most 500 characters" }),
  limit: t.Optional(t.String({ description: "Number of suggestions, an integer from 1 to 10. Default 5.", examples: ["5"] })),
  language,
  "focus.lon": t.Optional(t.String({ description: "Longitude to bias results towards, -180 to 180 (with focus.lat)" })),
  "focus.lat": t.Optional(t.String({ description: "Latitude to bias results towards, -90 to 90 (with focus.lon)" })),
});

const Place = t.Object({
  type: t.Literal("Feature"),
  geometry: t.Object({ type: t.Literal("Point"), coordinates: t.Tuple([t.Number(), t.Number()], { description: "[lon, lat]" }) }),
  bbox: t.Optional(t.Tuple([t.Number(), t.Number(), t.Number(), t.Number()])),
  properties: t.Object(
    {
      gid: t.Optional(t.String()),
      layer: t.Optional(t.String({ examples: ["venue", "address", "street", "locality", "region", "country"] })),
      source: t.Optional(t.String({ examples: ["openstreetmap", "openaddresses", "whosonfirst", "geonames"] })),
      name: t.Optional(t.String()),
      label: t.Optional(t.String()),
      confidence: t.Optional(t.Number()),
      distance: t.Optional(t.Number({ description: "Kilometres from the query point, when known" })),
      housenumber: t.Optional(t.String()),
      street: t.Optional(t.String()),
      postalcode: t.Optional(t.String()),
      locality: t.Optional(t.String()),
      region: t.Optional(t.String()),
      region_a: t.Optional(t.String({ description: "The region's short code (IL for Illinois, ZH for canton Zurich), when known" })),
      country: t.Optional(t.String()),
      country_code: t.Optional(t.String({ description: "ISO 3166-1 alpha-2" })),
      country_a: t.Optional(t.String({ description: "ISO 3166-1 alpha-3" })),
    },
    { description: "Empty values are omitted" },
  ),
});

export const PlaceCollection = t.Object({
  type: t.Literal("FeatureCollection"),
  geocoding: t.Object({
    query: t.Record(t.String(), t.Unknown(), { description: "The normalized inputs (defaults filled in)" }),
    attribution: t.String(),
    warnings: t.Array(t.String()),
  }),
  features: t.Array(Place),
});

export const BatchQuery = t.Object({
  type: t.String({ description: "forward (needs q; takes limit, language, bbox, country) or reverse (needs lon and lat; takes limit, language); any other field of the two is a 400 naming the job", examples: ["forward", "reverse"] }),
  q: t.Optional(t.String({ description: "forward: search text, at most 500 characters" })),
  // Numbers, or numbers written as strings (as the single forms take them).
  lon: t.Optional(t.Union([t.Number(), t.String()], { description: "reverse: longitude, -180 to 180" })),
  lat: t.Optional(t.Union([t.Number(), t.String()], { description: "reverse: latitude, -90 to 90" })),
  limit: t.Optional(t.Union([t.Integer(), t.String()], { description: "as in the single form: forward 1-25 (default 5), reverse 1-10 (default 1)" })),
  language: t.Optional(t.String()),
  bbox: t.Optional(t.Union([t.String(), t.Array(t.Number())], { description: "forward: minLon,minLat,maxLon,maxLat" })),
  country: t.Optional(t.Union([t.String(), t.Array(t.String())], { description: "forward: ISO 3166-1 codes" })),
});

export const BatchBody = t.Object({
  queries: t.Array(BatchQuery, { minItems: 1, maxItems: 50, description: "1 to 50 jobs; results come back in the same order" }),
});

export const BatchHeaders = t.Object({
  "idempotency-key": t.Optional(
    t.String({ description: "1 to 255 visible ASCII characters, unique per operation (a UUID works well); replays the stored answer for seven days" }),
  ),
});

export const BatchAnswer = t.Object({
  batch: t.Array(
    t.Object({
      index: t.Integer(),
      type: t.String(),
      status: t.Union([t.Literal("ok"), t.Literal("error")]),
      result: t.Optional(PlaceCollection),
      error: t.Optional(t.Object({ code: t.String(), message: t.String() })),
    }),
  ),
  summary: t.Object({ total: t.Integer(), succeeded: t.Integer(), failed: t.Integer() }),
});

/** The one error envelope (src/errors.ts), re-exported for this module's routes. */
export { ErrorEnvelope } from "../../errors";

// HTTP layer of the geocoding API: auth and rate/quota headers come from the `scope` macro, inputs are
// validated here, answers are served as pre-serialized JSON with CONTRACT.md's Cache-Control (returned
// as a string so Elysia builds exactly one Response on the cache-hit path).
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { UnsupportedMediaType } from "../../errors";
import { isJsonContentType } from "../../http/request-rules";
import type { AuthPlugin } from "../../http/auth";
import { parseIdempotencyKey, payloadHash } from "../../domain/idempotency/service";
import { AutocompleteQuery, BatchAnswer, BatchBody, BatchHeaders, documentedQuery, documentedResponses, ErrorEnvelope, ForwardQuery, PlaceCollection, ReverseQuery } from "./geocoding.model";
import { parseBatch, type GeocodingService } from "../../domain/geocoding/service";
import { withRouteFacts } from "../../http/route-facts";
import { REPEATED_PARAMETER_RULE, singleQueryOf } from "../../http/query-params";

const CACHE_HOUR = "private, max-age=3600";
const CACHE_MINUTE = "private, max-age=60";

const JSON_TYPE = "application/json; charset=utf-8";
const NO_STORE = "private, no-store";

/** Headers of a pre-serialized JSON answer, set on Elysia's `set` so the string body needs no re-wrapping. */
function answer(set: { headers: unknown }, body: string, cacheControl: string): string {
  const h = set.headers as Record<string, string>;
  h["content-type"] = JSON_TYPE;
  h["cache-control"] = cacheControl;
  return body;
}

/**
 * A single-form route: a query string answered recently is served at once (no parsing, no promise);
 * anything else is validated and answered by the service.
 */
function single(geo: GeocodingService, kind: "forward" | "reverse" | "autocomplete", request: Request, set: { headers: unknown }, cacheControl: string): string | Promise<string> {
  const url = request.url;
  const q = url.indexOf("?");
  const queryString = q < 0 ? "" : url.slice(q + 1);
  const recent = geo.recentAnswer(kind, queryString);
  if (recent !== undefined) return answer(set, recent, cacheControl);
  return geo.answerQueryString(kind, queryString).then((body) => answer(set, body, cacheControl));
}

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope, 502: ErrorEnvelope, 503: ErrorEnvelope };
const placeResponses = documentedResponses({ 200: PlaceCollection, ...errors });
const tags = ["Geocoding"];

export function geocodingModule(services: Services, authPlugin: AuthPlugin) {
  const { geocoding: geo, idempotency } = services;

  return withRouteFacts({ cors: "service", group: "geocoding" }, new Elysia({ name: "geocoding", prefix: "/geocoding/v1" })
    .use(authPlugin)
    .get("/forward", ({ request, set }) => single(geo, "forward", request, set, CACHE_HOUR), {
      scope: "geocoding",
      detail: { tags, summary: "Search text to places (cached one hour)", description: REPEATED_PARAMETER_RULE, parameters: documentedQuery(ForwardQuery), responses: placeResponses },
    })
    .get("/reverse", ({ request, set }) => single(geo, "reverse", request, set, CACHE_HOUR), {
      scope: "geocoding",
      detail: { tags, summary: "Coordinates to nearby places (cached one hour)", description: REPEATED_PARAMETER_RULE, parameters: documentedQuery(ReverseQuery), responses: placeResponses },
    })
    .get("/autocomplete", ({ request, set }) => single(geo, "autocomplete", request, set, CACHE_MINUTE), {
      scope: "geocoding",
      detail: { tags, summary: "Typeahead place suggestions (cached one minute)", description: REPEATED_PARAMETER_RULE, parameters: documentedQuery(AutocompleteQuery), responses: placeResponses },
    })
    .post(
      "/batch",
      async ({ body, request, caller, billing, set }) => {
        singleQueryOf(request); // it takes no query parameter, but a repeated one is refused as on every service route
        const jobs = parseBatch((body as { queries?: unknown } | null)?.queries);
        const key = parseIdempotencyKey(request.headers.get("idempotency-key"));
        // A batch is billed as its jobs: 50 lookups cost what 50 single calls cost.
        if (key === null) {
          billing.units(jobs.length);
          return answer(set, (await geo.batch(jobs)).body, NO_STORE);
        }
        const begun = idempotency.begin(caller.id, key, payloadHash(jobs));
        if (begun.kind === "replay") {
          // The stored answer is served without doing the work again, so it is not billed again.
          billing.skip();
          (set.headers as Record<string, string>)["idempotent-replayed"] = "true";
          set.status = begun.status;
          return answer(set, begun.body, NO_STORE);
        }
        let result: Awaited<ReturnType<GeocodingService["batch"]>>;
        try {
          billing.units(jobs.length);
          result = await geo.batch(jobs);
        } catch (err) {
          idempotency.abandon(caller.id, key);
          throw err;
        }
        // Jobs that failed only because the backend was unavailable are worth retrying with the same key:
        // such an answer is not stored, so the retry runs the batch again instead of replaying the failure.
        if (result.transientFailures > 0) idempotency.abandon(caller.id, key);
        else idempotency.complete(caller.id, key, 200, result.body);
        return answer(set, result.body, NO_STORE);
      },
      {
        scope: "geocoding",
        // Before body validation, so a form or text body gets 415 rather than a confusing schema error;
        // a batch without a Content-Type too (other JSON routes take that to a 400 naming the field).
        transform: ({ request }) => {
          if (!isJsonContentType(request.headers.get("content-type")))
            throw new UnsupportedMediaType("Send the batch as JSON with Content-Type: application/json");
        },
        // No body schema: the jobs' own checks (parseBatch, once the caller is known and counted) refuse a
        // bad job naming its index (details.index), a wrong JSON type included; BatchBody documents it.
        headers: BatchHeaders,
        detail: {
          tags,
          requestBody: { required: true, content: { "application/json": { schema: BatchBody as object } } },
          responses: documentedResponses({ 200: BatchAnswer, ...errors, 409: ErrorEnvelope, 415: ErrorEnvelope }),
          summary: "Up to 50 ordered forward/reverse jobs; Idempotency-Key replays the stored answer for seven days",
          description:
            "Answers 200 even when some jobs fail (each job carries status ok or error). Billed per job: N jobs take N rate-limit tokens and " +
            "N calls of the monthly quota, all or none; a batch that does not fit is 429 RATE_LIMITED or QUOTA_EXCEEDED and takes no token and no quota. " +
            "With an Idempotency-Key header, the same key and payload " +
            "returns the stored answer with Idempotent-Replayed: true and is not billed again; a different payload is 409 IDEMPOTENCY_CONFLICT; " +
            "a duplicate while the first is running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After: 1. Keys are scoped to the caller. " +
            "It takes no query parameter; one given more than once is still a 400 BAD_REQUEST naming it, as on the single forms.",
        },
      },
    ));
}

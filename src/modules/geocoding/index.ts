// HTTP layer of the geocoding API: auth and rate/quota headers come from the `scope` macro, inputs are
// validated here, answers are served as pre-serialized JSON with CONTRACT.md's Cache-Control.
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { UnsupportedMediaType } from "../../errors";
import { authPlugin, skipBilling } from "../../http/auth";
import { createIdempotencyStore, parseIdempotencyKey, payloadHash } from "../idempotency/service";
import { AutocompleteQuery, BatchAnswer, BatchBody, ErrorEnvelope, ForwardQuery, PlaceCollection, ReverseQuery } from "./model";
import { createGeocodingService, parseAutocomplete, parseBatch, parseForward, parseReverse, type GeocodingService } from "./service";

const CACHE_HOUR = "private, max-age=3600";
const CACHE_MINUTE = "private, max-age=60";

function json(body: string, cacheControl: string, extra: Record<string, string> = {}, status = 200): Response {
  return new Response(body, { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": cacheControl, ...extra } });
}

const errors = { 400: ErrorEnvelope, 401: ErrorEnvelope, 403: ErrorEnvelope, 429: ErrorEnvelope, 502: ErrorEnvelope, 503: ErrorEnvelope };
const tags = ["Geocoding"];

export function geocodingModule(ctx: AppContext, service?: GeocodingService) {
  const geo = service ?? createGeocodingService(ctx);
  const idempotency = createIdempotencyStore(ctx.sqlite, ctx.log);
  ctx.onShutdown(() => idempotency.stop());

  return new Elysia({ name: "geocoding", prefix: "/geocoding/v1" })
    .use(authPlugin(ctx))
    .get("/forward", async ({ query }) => json(await geo.forward(parseForward(query)), CACHE_HOUR), {
      scope: "geocoding",
      query: ForwardQuery,
      response: { 200: PlaceCollection, ...errors },
      detail: { tags, summary: "Search text to places (cached one hour)" },
    })
    .get("/reverse", async ({ query }) => json(await geo.reverse(parseReverse(query)), CACHE_HOUR), {
      scope: "geocoding",
      query: ReverseQuery,
      response: { 200: PlaceCollection, ...errors },
      detail: { tags, summary: "Coordinates to nearby places (cached one hour)" },
    })
    .get("/autocomplete", async ({ query }) => json(await geo.autocomplete(parseAutocomplete(query)), CACHE_MINUTE), {
      scope: "geocoding",
      query: AutocompleteQuery,
      response: { 200: PlaceCollection, ...errors },
      detail: { tags, summary: "Typeahead place suggestions (cached one minute)" },
    })
    .post(
      "/batch",
      async ({ body, request, caller }) => {
        const jobs = parseBatch(body.queries);
        const key = parseIdempotencyKey(request.headers.get("idempotency-key"));
        if (key === null) return json((await geo.batch(jobs)).body, "private, no-store");
        const begun = idempotency.begin(caller.id, key, payloadHash(jobs));
        if (begun.kind === "replay") {
          // The stored answer is served without doing the work again, so it is not billed again.
          skipBilling(request);
          return json(begun.body, "private, no-store", { "idempotent-replayed": "true" }, begun.status);
        }
        let result: Awaited<ReturnType<GeocodingService["batch"]>>;
        try {
          result = await geo.batch(jobs);
        } catch (err) {
          idempotency.abandon(caller.id, key);
          throw err;
        }
        // Jobs that failed only because the backend was unavailable are worth retrying with the same key:
        // such an answer is not stored, so the retry runs the batch again instead of replaying the failure.
        if (result.transientFailures > 0) idempotency.abandon(caller.id, key);
        else idempotency.complete(caller.id, key, 200, result.body);
        return json(result.body, "private, no-store");
      },
      {
        scope: "geocoding",
        // Before body validation, so a form or text body gets 415 rather than a confusing schema error.
        transform: ({ request }) => {
          if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(request.headers.get("content-type") ?? ""))
            throw new UnsupportedMediaType("Send the batch as JSON with Content-Type: application/json");
        },
        body: BatchBody,
        response: { 200: BatchAnswer, ...errors, 409: ErrorEnvelope, 415: ErrorEnvelope },
        detail: {
          tags,
          summary: "Up to 50 ordered forward/reverse jobs; Idempotency-Key replays the stored answer for seven days",
          description:
            "Answers 200 even when some jobs fail (each job carries status ok or error). With an Idempotency-Key header, the same key and payload " +
            "returns the stored answer with Idempotent-Replayed: true and is not billed again; a different payload is 409 IDEMPOTENCY_CONFLICT; " +
            "a duplicate while the first is running is 409 IDEMPOTENCY_IN_PROGRESS with Retry-After: 1. Keys are scoped to the caller.",
        },
      },
    );
}

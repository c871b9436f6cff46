// Geocoding over the configured Pelias-compatible backend: normalized queries, a bounded LRU cache of
// finished response bodies in front of the backend (a hit never calls it; concurrent identical misses
// share one call), and the batch runner. Plain TypeScript; the HTTP layer is in index.ts.
import type { AppContext } from "../../context";
import { AppError, ServiceUnavailable } from "../../errors";
import { Lru } from "../../lru";
import type { AutocompleteQuery, ForwardQuery, GeocodeAnswer, Geocoder, ReverseQuery } from "../../backends/geocoder/types";
import { checkParameterNames } from "./parameter-names";
import { parseBbox, parseCountry, parseLanguage, parseLat, parseLimit, parseLon, parseText } from "./params";

export const LIMITS = {
  forward: { max: 25, default: 5 },
  reverse: { max: 10, default: 1 },
  autocomplete: { max: 10, default: 5 },
} as const;

export const CACHE_TTL_MS = { forward: 3_600_000, reverse: 3_600_000, autocomplete: 60_000 } as const;
export const BATCH_MAX = 50;
const BATCH_CONCURRENCY = 4;

export type BatchJob = { type: "forward"; query: ForwardQuery } | { type: "reverse"; query: ReverseQuery };

type Raw = Record<string, unknown>;

export function parseForward(raw: Raw, prefix = ""): ForwardQuery {
  const q: ForwardQuery = {
    q: parseText(raw.q, `${prefix}q`),
    limit: parseLimit(raw.limit, `${prefix}limit`, LIMITS.forward.max, LIMITS.forward.default),
    language: parseLanguage(raw.language, `${prefix}language`),
  };
  const bbox = parseBbox(raw.bbox, `${prefix}bbox`);
  const country = parseCountry(raw.country, `${prefix}country`);
  if (bbox) q.bbox = bbox;
  if (country) q.country = country;
  return q;
}

export function parseReverse(raw: Raw, prefix = ""): ReverseQuery {
  return {
    lon: parseLon(raw.lon, `${prefix}lon`),
    lat: parseLat(raw.lat, `${prefix}lat`),
    limit: parseLimit(raw.limit, `${prefix}limit`, LIMITS.reverse.max, LIMITS.reverse.default),
    language: parseLanguage(raw.language, `${prefix}language`),
  };
}

export function parseAutocomplete(raw: Raw): AutocompleteQuery {
  const q: AutocompleteQuery = {
    text: parseText(raw.text, "text"),
    limit: parseLimit(raw.limit, "limit", LIMITS.autocomplete.max, LIMITS.autocomplete.default),
    language: parseLanguage(raw.language, "language"),
  };
  const hasLon = raw["focus.lon"] !== undefined && raw["focus.lon"] !== "";
  const hasLat = raw["focus.lat"] !== undefined && raw["focus.lat"] !== "";
  if (hasLon !== hasLat) throw new AppError(400, "BAD_REQUEST", `focus.lon and focus.lat go together; ${hasLon ? "focus.lat" : "focus.lon"} is missing`, { parameter: hasLon ? "focus.lat" : "focus.lon" });
  if (hasLon) q.focus = { lon: parseLon(raw["focus.lon"], "focus.lon"), lat: parseLat(raw["focus.lat"], "focus.lat") };
  return q;
}

/** Validates a batch body's queries; a bad job is a 400 naming its index. */
export function parseBatch(queries: unknown): BatchJob[] {
  if (!Array.isArray(queries) || queries.length < 1 || queries.length > BATCH_MAX)
    throw new AppError(400, "BAD_REQUEST", `queries must be an array of 1 to ${BATCH_MAX} jobs${Array.isArray(queries) ? ` (got ${queries.length})` : ""}`, { parameter: "queries" });
  return queries.map((job, index): BatchJob => {
    const prefix = `queries[${index}].`;
    try {
      if (!job || typeof job !== "object" || Array.isArray(job)) throw new AppError(400, "BAD_REQUEST", `queries[${index}] must be an object`);
      const j = job as Raw;
      if (j.type === "forward" || j.type === "reverse") checkParameterNames(j.type, Object.keys(j).filter((k) => k !== "type"), prefix);
      if (j.type === "forward") return { type: "forward", query: parseForward(j, prefix) };
      if (j.type === "reverse") return { type: "reverse", query: parseReverse(j, prefix) };
      throw new AppError(400, "BAD_REQUEST", `${prefix}type must be "forward" or "reverse"`);
    } catch (err) {
      if (err instanceof AppError && err.status === 400) {
        const details = { ...((err.details as object) ?? {}), index };
        throw new AppError(400, "BAD_REQUEST", `Job ${index}: ${err.message}`, details);
      }
      throw err;
    }
  });
}

const SOURCE_ATTRIBUTION: Record<string, string> = {
  openstreetmap: "© OpenStreetMap contributors",
  osm: "© OpenStreetMap contributors",
  openaddresses: "OpenAddresses",
  oa: "OpenAddresses",
  whosonfirst: "Who's On First",
  wof: "Who's On First",
  geonames: "GeoNames",
  gn: "GeoNames",
};

export function attributionFor(sources: string[]): string {
  const names = [...new Set(sources.map((s) => SOURCE_ATTRIBUTION[s.toLowerCase()] ?? s))];
  return names.length ? `Geocoding by Pelias; data ${names.join(", ")}` : "Geocoding by Pelias";
}

/** The contract's FeatureCollection, serialized once (it is what the cache keeps). */
export function collectionBody(query: object, answer: GeocodeAnswer): string {
  return JSON.stringify({
    type: "FeatureCollection",
    geocoding: { query, attribution: answer.attribution ?? attributionFor(answer.sources), warnings: answer.warnings },
    features: answer.features,
  });
}

const echoForward = (q: ForwardQuery) => ({ q: q.q, limit: q.limit, language: q.language, ...(q.bbox ? { bbox: q.bbox } : {}), ...(q.country ? { country: q.country } : {}) });
const echoAutocomplete = (q: AutocompleteQuery) => ({ text: q.text, limit: q.limit, language: q.language, ...(q.focus ? { focus: q.focus } : {}) });

const newCache = (ttlMs: number, maxBytes: number) => new Lru<string>({ ttlMs, maxEntries: 50_000, maxBytes });
/** What an answer costs in memory: UTF-16 key and body plus the entry. */
const answerBytes = (key: string, body: string) => 2 * (body.length + key.length) + 96;

/** `geocoder` is the configured backend (backends/geocoder/select.ts), null when geocoding is off. */
export function createGeocodingService(ctx: AppContext, geocoder: Geocoder | null) {
  const caches = {
    forward: newCache(CACHE_TTL_MS.forward, 64 * 1024 * 1024),
    reverse: newCache(CACHE_TTL_MS.reverse, 32 * 1024 * 1024),
    autocomplete: newCache(CACHE_TTL_MS.autocomplete, 32 * 1024 * 1024),
  };
  type Kind = keyof typeof caches;
  type Cached = { value: string; expiresAt: number };
  const inflight = new Map<string, Promise<Cached>>();

  function requireGeocoder(): Geocoder {
    if (!geocoder)
      throw new ServiceUnavailable(
        "GEOCODER_NOT_CONFIGURED",
        "Geocoding is not set up on this server (its operator has not configured a geocoding backend); your API key is fine",
      );
    return geocoder;
  }

  /** The cached answer under `key`, or the backend's (one call for concurrent identical misses). */
  async function cached(kind: Kind, key: string, run: (g: Geocoder) => Promise<string>): Promise<Cached> {
    const hit = caches[kind].entry(key);
    if (hit !== undefined) return hit;
    const g = requireGeocoder();
    const ikey = `${kind}\u0000${key}`;
    let p = inflight.get(ikey);
    if (!p) {
      p = run(g).then(
        (body) => {
          caches[kind].set(key, body, answerBytes(key, body));
          inflight.delete(ikey);
          return { value: body, expiresAt: Date.now() + CACHE_TTL_MS[kind] };
        },
        (err) => {
          inflight.delete(ikey);
          throw err;
        },
      );
      inflight.set(ikey, p);
    }
    return p;
  }

  // Cache keys are plain string joins of the normalized query (cheaper than serializing it on every hit).
  const forwardEntry = (q: ForwardQuery) =>
    cached("forward", `${q.limit}|${q.language}|${q.bbox?.join(",") ?? ""}|${q.country?.join(",") ?? ""}|${q.q}`, async (g) => collectionBody(echoForward(q), await g.forward(q)));
  const reverseEntry = (q: ReverseQuery) =>
    cached("reverse", `${q.lon}|${q.lat}|${q.limit}|${q.language}`, async (g) => collectionBody({ lon: q.lon, lat: q.lat, limit: q.limit, language: q.language }, await g.reverse(q)));
  const autocompleteEntry = (q: AutocompleteQuery) =>
    cached("autocomplete", `${q.limit}|${q.language}|${q.focus ? `${q.focus.lon},${q.focus.lat}` : ""}|${q.text}`, async (g) => collectionBody(echoAutocomplete(q), await g.autocomplete(q)));
  const forward = async (q: ForwardQuery) => (await forwardEntry(q)).value;
  const reverse = async (q: ReverseQuery) => (await reverseEntry(q)).value;

  // In front of those: answers by the query string exactly as sent. A repeated request (the common case
  // for a hit) is answered with one map lookup before any parsing; the entry expires with the normalized
  // entry it came from and refers to the same body string.
  const queryStringCache = (ttlMs: number, maxBytes: number) => new Lru<string>({ ttlMs, maxEntries: 50_000, maxBytes });
  const byQueryString = {
    forward: queryStringCache(CACHE_TTL_MS.forward, 16 * 1024 * 1024),
    reverse: queryStringCache(CACHE_TTL_MS.reverse, 8 * 1024 * 1024),
    autocomplete: queryStringCache(CACHE_TTL_MS.autocomplete, 8 * 1024 * 1024),
  };
  // New data (a gazetteer import) makes every cached answer possibly stale.
  geocoder?.onChange?.(() => {
    for (const c of [...Object.values(caches), ...Object.values(byQueryString)]) c.clear();
  });

  /** The answer to a query string answered recently, without parsing it; undefined when there is none. */
  function recentAnswer(kind: Kind, queryString: string): string | undefined {
    return byQueryString[kind].get(queryString);
  }

  /** Validates and answers a raw query string (the single-form routes), remembering the answer under it. */
  async function answerQueryString(kind: Kind, queryString: string): Promise<string> {
    const params = new URLSearchParams(queryString);
    checkParameterNames(kind, params.keys());
    const raw = Object.fromEntries(params);
    const entry =
      kind === "forward" ? await forwardEntry(parseForward(raw)) : kind === "reverse" ? await reverseEntry(parseReverse(raw)) : await autocompleteEntry(parseAutocomplete(raw));
    byQueryString[kind].set(queryString, entry.value, 2 * queryString.length + 96, entry.expiresAt);
    return entry.value;
  }

  /**
   * Runs the jobs a few at a time; the answer keeps input order and reports each job's failure in place.
   * `transientFailures` counts jobs that failed because the backend was unavailable (worth retrying).
   */
  async function batch(jobs: BatchJob[]): Promise<{ body: string; transientFailures: number }> {
    requireGeocoder();
    const parts: string[] = new Array(jobs.length);
    let failed = 0;
    let transientFailures = 0;
    let next = 0;
    const runOne = async (index: number) => {
      const job = jobs[index]!;
      const head = `{"index":${index},"type":"${job.type}"`;
      try {
        const body = job.type === "forward" ? await forward(job.query) : await reverse(job.query);
        parts[index] = `${head},"status":"ok","result":${body}}`;
      } catch (err) {
        failed++;
        if (err instanceof AppError && err.status === 503) transientFailures++;
        const e = err instanceof AppError ? { code: err.code, message: err.message } : { code: "INTERNAL", message: "Internal error while running this job" };
        if (!(err instanceof AppError)) ctx.log.error("batch job failed", { index, error: String(err) });
        parts[index] = `${head},"status":"error","error":${JSON.stringify(e)}}`;
      }
    };
    const worker = async () => {
      while (next < jobs.length) await runOne(next++);
    };
    await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, jobs.length) }, worker));
    const summary = { total: jobs.length, succeeded: jobs.length - failed, failed };
    return { body: `{"batch":[${parts.join(",")}],"summary":${JSON.stringify(summary)}}`, transientFailures };
  }

  return { recentAnswer, answerQueryString, forward, reverse, batch };
}

export type GeocodingService = ReturnType<typeof createGeocodingService>;

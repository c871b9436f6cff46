// A sample forward query against the configured Pelias-compatible geocoder, for /health/detailed and
// preflight: what it answered, how fast, and a fix a person can follow when it is wrong.
import type { Config } from "../../config";
import type { ProbeResult } from "../probe";
import { probeGet, unreachableFix } from "../upstream";
import { peliasForwardUrl } from "./pelias";
import type { Gazetteer } from "./embedded/gazetteer";
import { probeEmbeddedGeocoder } from "./embedded/probe";

const SAMPLE = "london";

function errorsOf(body: string): string {
  try {
    const errors = (JSON.parse(body) as { geocoding?: { errors?: unknown[] } })?.geocoding?.errors;
    return Array.isArray(errors) && errors.length ? ` (${String(errors[0]).slice(0, 160)})` : "";
  } catch {
    return "";
  }
}

/** The backend GEOCODER selects; `gazetteer` is the running app's (without it the file is only read). */
export async function probeGeocoder(config: Config, gazetteer?: Gazetteer): Promise<ProbeResult> {
  const base = config.geocoderUrl;
  if (config.geocoder === "off")
    return {
      status: "not_configured",
      detail: "GEOCODER=off; geocoding routes answer 503 GEOCODER_NOT_CONFIGURED",
      fix: "Set GEOCODER=auto to use the embedded gazetteer, or GEOCODER_INTERNAL_URL to a Pelias API base URL including /v1, e.g. http://pelias-api:4000/v1, if you want geocoding",
    };
  if (config.geocoder === "embedded" || !base) return probeEmbeddedGeocoder(config.dataDir, gazetteer);
  const timeoutMs = Math.min(config.geocoderTimeoutMs, 3000);
  const url = peliasForwardUrl(base, { q: SAMPLE, limit: 1, language: "en" });
  const path = new URL(url).pathname;
  const what = `sample search "${SAMPLE}" (GET ${path})`;
  const r = await probeGet(url, timeoutMs);
  if (!r.ok) return { status: "down", latency_ms: r.ms, detail: `${what}: ${r.reason}`, fix: unreachableFix("GEOCODER_INTERNAL_URL", base, r.kind, timeoutMs, "GEOCODER_TIMEOUT_MS", config.geocoderTimeoutMs) };
  const seen = { latency_ms: r.ms };
  if (r.status === 404) {
    const hasVersion = /\/v\d+$/.test(new URL(base).pathname);
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP 404`,
      fix: hasVersion
        ? `GEOCODER_INTERNAL_URL answers 404 at ${path}: check that it points at the Pelias API service (usually port 4000), not another service on that host`
        : `GEOCODER_INTERNAL_URL answers 404 at ${path}: it should include the /v1 prefix, e.g. ${base}/v1`,
    };
  }
  if (r.status === 401 || r.status === 403)
    return { status: "down", ...seen, detail: `${what} was refused with HTTP ${r.status}`, fix: "Mapstead calls the geocoder without credentials: let this host through (or put both on an internal network) instead of requiring a login" };
  if (r.status >= 500)
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP ${r.status}${errorsOf(r.body)}`,
      fix: "The geocoder itself is failing: look at its logs (a Pelias API answering 5xx usually cannot reach Elasticsearch, or its index is missing)",
    };
  // Any other status for a well-formed sample search (a 400, a 405) is what every geocoding call gets: down.
  if (r.status !== 200) return { status: "down", ...seen, detail: `${what} answered HTTP ${r.status}${errorsOf(r.body)}`, fix: "Check that GEOCODER_INTERNAL_URL points at a Pelias-compatible API and look at its logs" };
  let json: { type?: unknown; features?: unknown; tagline?: unknown; geocoding?: unknown };
  try {
    json = JSON.parse(r.body);
  } catch {
    const html = /html/i.test(r.contentType) || /^\s*</.test(r.body);
    // Every geocoding call fails against such a server, as when nothing listens: down, not degraded.
    return {
      status: "down",
      ...seen,
      detail: `${what} answered ${html ? "an HTML page" : "something that is not JSON"} (${r.contentType || "no content type"})`,
      fix: "GEOCODER_INTERNAL_URL must point at the Pelias API (JSON), e.g. http://pelias-api:4000/v1, not a web page or another service",
    };
  }
  if (json && typeof json === "object" && typeof json.tagline === "string")
    return { status: "down", ...seen, detail: `${what} reached Elasticsearch, not the Pelias API`, fix: "Point GEOCODER_INTERNAL_URL at the Pelias API service (usually port 4000, with /v1), not at Elasticsearch (port 9200)" };
  if (!json || typeof json !== "object" || json.type !== "FeatureCollection" || !Array.isArray(json.features))
    return {
      status: "down",
      ...seen,
      detail: `${what} answered JSON that is not a GeoJSON FeatureCollection (keys: ${Object.keys(json ?? {}).slice(0, 6).join(", ") || "none"})`,
      fix: "GEOCODER_INTERNAL_URL must point at a Pelias-compatible API, e.g. http://pelias-api:4000/v1",
    };
  const first = json.features[0] as { properties?: { label?: unknown; layer?: unknown; source?: unknown } } | undefined;
  const looked = first
    ? `${json.features.length} feature(s), first "${String(first.properties?.label ?? "unlabelled").slice(0, 80)}" (${first.properties?.layer ?? "?"}, ${first.properties?.source ?? "?"})`
    : "no features (fine for a regional index that does not contain London; otherwise check that data was imported)";
  if (r.ms > config.geocoderTimeoutMs / 2)
    return {
      status: "degraded",
      ...seen,
      detail: `${what} answered ${looked} but took ${r.ms} ms, more than half of GEOCODER_TIMEOUT_MS (${config.geocoderTimeoutMs} ms)`,
      fix: "The geocoder is slow: give it (and Elasticsearch) more memory or CPU, or raise GEOCODER_TIMEOUT_MS",
    };
  return { status: "ok", ...seen, detail: `${what} answered ${looked} in ${r.ms} ms` };
}

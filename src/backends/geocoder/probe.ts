// A sample forward query against the configured Pelias-compatible geocoder.
import type { Config } from "../../config";
import { probeFetch, type ProbeResult } from "../probe";

export async function probeGeocoder(config: Config): Promise<ProbeResult> {
  if (!config.geocoderUrl)
    return { status: "not_configured", detail: "GEOCODER_INTERNAL_URL is not set; geocoding routes answer 503 GEOCODER_NOT_CONFIGURED", fix: "Set GEOCODER_INTERNAL_URL to a Pelias API base URL including /v1, e.g. http://pelias-api:4000/v1, if you want geocoding" };
  const url = `${config.geocoderUrl}/search?text=london&size=1`;
  const r = await probeFetch(url, Math.min(config.geocoderTimeoutMs, 3000));
  if (!r.ok) return { status: "down", latency_ms: r.ms, detail: `sample search: ${r.error}`, fix: `Check that the geocoder at ${config.geocoderUrl} is running and reachable from this host` };
  if (r.status === 404)
    return { status: "down", latency_ms: r.ms, detail: `sample search answered 404 at ${new URL(url).pathname}`, fix: /\/v\d+$/.test(config.geocoderUrl) ? "The geocoder has no /search route: check GEOCODER_INTERNAL_URL points at the Pelias API" : `GEOCODER_INTERNAL_URL answers 404 at ${new URL(url).pathname}: it should include the /v1 prefix` };
  if (r.status >= 500) return { status: "down", latency_ms: r.ms, detail: `sample search answered HTTP ${r.status}`, fix: "Look at the geocoder's own logs; it is failing" };
  if (r.status !== 200) return { status: "degraded", latency_ms: r.ms, detail: `sample search answered HTTP ${r.status}`, fix: "Check the geocoder's configuration" };
  try {
    const json = JSON.parse(r.body) as { type?: string; features?: unknown[] };
    if (json.type !== "FeatureCollection" || !Array.isArray(json.features))
      return { status: "degraded", latency_ms: r.ms, detail: "sample search did not answer a GeoJSON FeatureCollection", fix: "GEOCODER_INTERNAL_URL must point at a Pelias-compatible API" };
    return { status: "ok", latency_ms: r.ms, detail: `sample search answered ${json.features.length} feature(s) in ${r.ms} ms` };
  } catch {
    return { status: "degraded", latency_ms: r.ms, detail: "sample search answered something that is not JSON", fix: "GEOCODER_INTERNAL_URL must point at a Pelias-compatible API" };
  }
}

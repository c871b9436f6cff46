// A sample point lookup against the configured OpenTopoData-compatible dataset.
import type { Config } from "../../config";
import { probeFetch, type ProbeResult } from "../probe";

export async function probeElevation(config: Config): Promise<ProbeResult> {
  if (!config.elevationUrl)
    return { status: "not_configured", detail: "ELEVATION_INTERNAL_URL is not set; elevation routes answer 503 ELEVATION_NOT_CONFIGURED", fix: "Set ELEVATION_INTERNAL_URL to an OpenTopoData dataset URL, e.g. http://opentopodata:5000/v1/srtm30m, if you want elevation" };
  const r = await probeFetch(`${config.elevationUrl}?locations=46.5,7.9&interpolation=bilinear`, Math.min(config.elevationTimeoutMs, 3000));
  if (!r.ok) return { status: "down", latency_ms: r.ms, detail: `sample point: ${r.error}`, fix: `Check that the elevation service at ${config.elevationUrl} is running and reachable from this host` };
  if (r.status === 404 || r.status === 400)
    return { status: "down", latency_ms: r.ms, detail: `sample point answered HTTP ${r.status}`, fix: "ELEVATION_INTERNAL_URL must name a dataset, e.g. http://opentopodata:5000/v1/srtm30m" };
  if (r.status !== 200) return { status: "down", latency_ms: r.ms, detail: `sample point answered HTTP ${r.status}`, fix: "Look at the elevation service's own logs; it is failing" };
  try {
    const json = JSON.parse(r.body) as { status?: string; results?: { elevation?: number | null }[] };
    if (!Array.isArray(json.results)) return { status: "degraded", latency_ms: r.ms, detail: "sample point answer has no results array", fix: "ELEVATION_INTERNAL_URL must point at an OpenTopoData-compatible dataset" };
    const e = json.results[0]?.elevation;
    return { status: "ok", latency_ms: r.ms, detail: `sample point answered ${e === null || e === undefined ? "no data (outside coverage)" : `${e} m`} in ${r.ms} ms` };
  } catch {
    return { status: "degraded", latency_ms: r.ms, detail: "sample point answered something that is not JSON", fix: "ELEVATION_INTERNAL_URL must point at an OpenTopoData-compatible dataset" };
  }
}

// A sample point lookup against the configured OpenTopoData-compatible dataset, for /health/detailed and
// preflight: what it answered, how fast, and a fix a person can follow when it is wrong.
import type { Config } from "../../config";
import type { ProbeResult } from "../probe";
import { probeGet, unreachableFix } from "../upstream";
import { openTopoDataUrl } from "./opentopodata";

const SAMPLE = { lon: 7.9, lat: 46.5 };

function serverError(body: string): string {
  try {
    const e = (JSON.parse(body) as { error?: unknown })?.error;
    return typeof e === "string" ? e.slice(0, 160) : "";
  } catch {
    return "";
  }
}

export async function probeElevation(config: Config): Promise<ProbeResult> {
  const base = config.elevationUrl;
  if (!base)
    return {
      status: "not_configured",
      detail: "ELEVATION_INTERNAL_URL is not set; elevation routes answer 503 ELEVATION_NOT_CONFIGURED",
      fix: "Set ELEVATION_INTERNAL_URL to an OpenTopoData dataset URL, e.g. http://opentopodata:5000/v1/srtm30m, if you want elevation",
    };
  const timeoutMs = Math.min(config.elevationTimeoutMs, 3000);
  const url = openTopoDataUrl(base, [SAMPLE]);
  const parsed = new URL(base);
  const path = parsed.pathname;
  // The dataset endpoint as configured (without credentials), so the operator sees which URL was asked.
  const what = `sample point ${SAMPLE.lat},${SAMPLE.lon} (GET ${parsed.origin}${path === "/" ? "" : path}?locations=…)`;
  const r = await probeGet(url, timeoutMs);
  if (!r.ok) return { status: "down", latency_ms: r.ms, detail: `${what}: ${r.reason}`, fix: unreachableFix("ELEVATION_INTERNAL_URL", base, r.kind, timeoutMs, "ELEVATION_TIMEOUT_MS", config.elevationTimeoutMs) };
  const seen = { latency_ms: r.ms };
  const segments = path.split("/").filter(Boolean);
  const namesDataset = segments.length >= 2 && /^v\d+$/.test(segments.at(-2)!);
  if (r.status === 404 || (r.status === 400 && !namesDataset))
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP ${r.status}${serverError(r.body) ? ` (${serverError(r.body)})` : ""}`,
      fix: namesDataset
        ? `ELEVATION_INTERNAL_URL answers ${r.status} at ${path}: check that it points at OpenTopoData (usually port 5000)`
        : `ELEVATION_INTERNAL_URL answers ${r.status} at ${path || "/"}: it should name a dataset after the /v1 prefix, e.g. http://opentopodata:5000/v1/srtm30m`,
    };
  if (r.status === 400)
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP 400${serverError(r.body) ? ` (${serverError(r.body)})` : ""}`,
      fix: `OpenTopoData does not serve the dataset "${segments.at(-1)}": use a dataset name from its config.yaml in ELEVATION_INTERNAL_URL`,
    };
  if (r.status >= 500 || r.status !== 200)
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP ${r.status}${serverError(r.body) ? ` (${serverError(r.body)})` : ""}`,
      fix: "The elevation service itself is failing: look at its logs (missing or unreadable dataset files are the usual cause)",
    };
  let json: { status?: unknown; results?: { elevation?: unknown; dataset?: unknown }[] };
  try {
    json = JSON.parse(r.body);
  } catch {
    // Every elevation call fails against such a server, as when nothing listens: down, not degraded.
    return { status: "down", ...seen, detail: `${what} answered ${/html/i.test(r.contentType) || /^\s*</.test(r.body) ? "an HTML page" : "something that is not JSON"} (${r.contentType || "no content type"})`, fix: "ELEVATION_INTERNAL_URL must point at an OpenTopoData-compatible dataset, e.g. http://opentopodata:5000/v1/srtm30m" };
  }
  if (!json || !Array.isArray(json.results) || json.results.length !== 1)
    return { status: "down", ...seen, detail: `${what} answered JSON without a one-element results array`, fix: "ELEVATION_INTERNAL_URL must point at an OpenTopoData-compatible dataset" };
  const e = json.results[0]?.elevation;
  const dataset = typeof json.results[0]?.dataset === "string" ? ` from dataset ${json.results[0]!.dataset}` : "";
  const looked = typeof e === "number" ? `${e} m${dataset}` : e === null ? `no data${dataset} (outside its coverage; fine for a regional dataset)` : "a result without an elevation";
  if (typeof e !== "number" && e !== null) return { status: "down", ...seen, detail: `${what} answered ${looked}`, fix: "ELEVATION_INTERNAL_URL must point at an OpenTopoData-compatible dataset" };
  if (r.ms > config.elevationTimeoutMs / 2)
    return {
      status: "degraded",
      ...seen,
      detail: `${what} answered ${looked} but took ${r.ms} ms, more than half of ELEVATION_TIMEOUT_MS (${config.elevationTimeoutMs} ms)`,
      fix: "The elevation service is slow: put its dataset on faster storage or raise ELEVATION_TIMEOUT_MS",
    };
  return { status: "ok", ...seen, detail: `${what} answered ${looked} in ${r.ms} ms` };
}

// Small requests against the configured router, for /health/detailed and preflight: is it the engine
// ROUTING_ENGINE says, does it serve every profile ROUTING_PROFILES names, does its dataset have roads,
// how fast it answers, and a fix a person can follow when something is wrong.
// OSRM: `nearest` from a sample point finds the dataset wherever it is (nearest has no search radius),
// then a route from that road to itself for each profile. Valhalla: `/status`, then `/locate` with each
// profile's costing at the sample point.
import type { Config, RoutingProfile } from "../../config";
import { ROUTING_PROFILES } from "../../config";
import { formatCoordinate } from "../coordinates";
import type { ProbeResult } from "../probe";
import { probeGet, unreachableFix, type ProbeAnswer } from "../upstream";
import { haversineMetres } from "./geometry";
import { osrmNearestUrl, osrmRouteUrl } from "./osrm";
import type { Position } from "./types";

/** The first coordinate of OSRM's documentation examples (Berlin). */
export const SAMPLE: Position = [13.38886, 52.517037];
const FAR_KM = 50;

type Json = Record<string, unknown>;
const parse = (body: string): Json | unknown[] | null => {
  try {
    const v = JSON.parse(body);
    return typeof v === "object" ? v : null;
  } catch {
    return null;
  }
};
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const point = (p: Position) => `${formatCoordinate(p[0])},${formatCoordinate(p[1])}`;
const sampleText = `the sample point ${point(SAMPLE)}`;

function unreachable(config: Config, r: Extract<ProbeAnswer, { ok: false }>, what: string, timeoutMs: number): ProbeResult {
  return { status: "down", latency_ms: r.ms, detail: `${what}: ${r.reason}`, fix: unreachableFix("ROUTING_INTERNAL_URL", config.routingUrl!, r.kind, timeoutMs, "ROUTING_TIMEOUT_MS", config.routingTimeoutMs) };
}

/** A 4xx/5xx or odd answer to the first request: wrong engine, wrong URL, or a failing server. */
function firstAnswerProblem(config: Config, r: Extract<ProbeAnswer, { ok: true }>, what: string, json: unknown): ProbeResult | null {
  const seen = { latency_ms: r.ms };
  const other = config.routingEngine === "osrm" ? "valhalla" : "osrm";
  const looksValhalla = isObject(json) && typeof json.error_code === "number";
  const looksOsrm = isObject(json) && typeof json.code === "string" && typeof json.message === "string";
  if ((config.routingEngine === "osrm" && looksValhalla) || (config.routingEngine === "valhalla" && looksOsrm))
    return {
      status: "down",
      ...seen,
      detail: `${what} answered HTTP ${r.status} the way ${other === "osrm" ? "OSRM" : "Valhalla"} does, not ${config.routingEngine === "osrm" ? "OSRM" : "Valhalla"}`,
      fix: `The server at ROUTING_INTERNAL_URL is ${other === "osrm" ? "OSRM" : "Valhalla"}: set ROUTING_ENGINE=${other}`,
    };
  if (r.status >= 500)
    return { status: "down", ...seen, detail: `${what} answered HTTP ${r.status}`, fix: "The router itself is failing: look at its logs (a missing or unreadable dataset is the usual cause)" };
  // Every routing call fails against such a server, as when nothing listens: down, not degraded.
  if (json === null && r.status === 200)
    return {
      status: "down",
      ...seen,
      detail: `${what} answered ${/html/i.test(r.contentType) || /^\s*</.test(r.body) ? "an HTML page" : "something that is not JSON"} (${r.contentType || "no content type"})`,
      fix: `ROUTING_INTERNAL_URL must point at the ${config.routingEngine === "osrm" ? "osrm-routed server (usually port 5000)" : "Valhalla service (usually port 8002)"}, not a web page or another service`,
    };
  return null;
}

async function probeOsrm(config: Config, base: string, timeoutMs: number): Promise<ProbeResult> {
  const profiles = config.routingProfiles;
  const nearestUrl = osrmNearestUrl(base, profiles.driving, SAMPLE);
  const what = `nearest road to ${sampleText} (GET ${new URL(nearestUrl).pathname})`;
  const r = await probeGet(nearestUrl, timeoutMs);
  if (!r.ok) return unreachable(config, r, what, timeoutMs);
  const json = parse(r.body);
  const problem = firstAnswerProblem(config, r, what, json);
  if (problem) return problem;
  const body = isObject(json) ? json : {};
  const first = Array.isArray(body.waypoints) && isObject(body.waypoints[0]) ? body.waypoints[0] : null;
  const found = first && Array.isArray(first.location) && first.location.length === 2 ? (first.location as Position) : null;
  if (r.status === 404 || (r.status === 400 && (body.code === "InvalidUrl" || body.code === "InvalidService")))
    return {
      status: "down",
      latency_ms: r.ms,
      detail: `${what} answered HTTP ${r.status}${typeof body.code === "string" ? ` (${body.code})` : ""}`,
      fix: `No OSRM dataset answers the driving profile "${profiles.driving}" there: ROUTING_INTERNAL_URL should be the osrm-routed base URL without a path (e.g. http://osrm:5000), and ROUTING_PROFILES must name the profiles your OSRM serves`,
    };
  const answered = `${what} answered HTTP ${r.status}${typeof body.code === "string" ? ` (${body.code}${typeof body.message === "string" ? `: ${body.message.slice(0, 120)}` : ""})` : ""}`;
  // Every OSRM answer carries a string `code`: without one, the URL reaches another service, and
  // rebuilding the dataset would not help.
  if (typeof body.code !== "string")
    return {
      status: "down",
      latency_ms: r.ms,
      detail: `${answered}, without OSRM's "code": not an OSRM server`,
      fix: "The server at ROUTING_INTERNAL_URL is not OSRM: check ROUTING_INTERNAL_URL; it should be the osrm-routed base URL without a path (usually port 5000, e.g. http://osrm:5000)",
    };
  // Only "no segment" (or Ok without a waypoint) means a dataset without roads.
  if (body.code === "NoSegment" || (r.status === 200 && body.code === "Ok" && !found))
    return {
      status: "down",
      latency_ms: r.ms,
      detail: body.code === "Ok" ? `${answered}, but no waypoint was found` : answered,
      fix: "The driving dataset has no roads to route on: run osrm-extract and osrm-contract (or osrm-partition and osrm-customize) on an OpenStreetMap extract of your area and restart osrm-routed",
    };
  if (r.status !== 200 || body.code !== "Ok" || !found)
    return { status: "down", latency_ms: r.ms, detail: answered, fix: "OSRM refused the nearest-road request: look at the osrm-routed logs, and check that ROUTING_INTERNAL_URL is its base URL without a path" };
  // A route from that road to itself, per profile: every profile must answer, on the same area.
  let slowest = r.ms;
  const results = await Promise.all(
    ROUTING_PROFILES.map(async (profile): Promise<string | null> => {
      const url = osrmRouteUrl(base, profiles[profile], { profile, waypoints: [found, found], alternatives: 0, steps: false, geometries: "polyline6", overview: "false", language: "en", exclude: [], radiuses: null, bearings: null, legEnds: null, continueStraight: null, approaches: null, annotations: [], waypointNames: null });
      const p = await probeGet(url, timeoutMs);
      if (!p.ok) return `${profile}="${profiles[profile]}": ${p.reason}`;
      slowest = Math.max(slowest, p.ms);
      const answer = parse(p.body);
      const code = isObject(answer) && typeof answer.code === "string" ? answer.code : null;
      if (code === "Ok") return null;
      if (code === "NoSegment") return `${profile}="${profiles[profile]}": its dataset does not contain the area of the driving one (around ${point(found)}); load the same extract for every profile`;
      if (p.status === 404 || code === "InvalidUrl" || code === "InvalidService") return `${profile}="${profiles[profile]}": no such profile (HTTP ${p.status}); name the profile your OSRM serves in ROUTING_PROFILES (${profile}=NAME) or serve that profile`;
      return `${profile}="${profiles[profile]}": HTTP ${p.status}${code ? ` ${code}` : ""}`;
    }),
  );
  const failures = results.filter((x): x is string => x !== null);
  const away = haversineMetres(SAMPLE, found);
  const where = `nearest road to ${sampleText} is at ${point(found)}${first?.name ? ` (${String(first.name).slice(0, 60)})` : ""}, ${away >= 1000 ? `${Math.round(away / 1000)} km` : `${Math.round(away)} m`} away${
    away > FAR_KM * 1000 ? " (the dataset covers another area: fine for a regional extract)" : ""
  }`;
  if (failures.length)
    return {
      status: failures.length === ROUTING_PROFILES.length ? "down" : "degraded",
      latency_ms: slowest,
      detail: `${where}; route checks failed for ${failures.join("; ")}`,
      fix: `Make the router serve every profile: ${failures.join("; ")}`,
    };
  return slowOr(config, slowest, `${where}; routes answered for ${ROUTING_PROFILES.map((p) => `${p}=${profiles[p]}`).join(", ")}`);
}

async function probeValhalla(config: Config, base: string, timeoutMs: number): Promise<ProbeResult> {
  const profiles = config.routingProfiles;
  const what = `status (GET ${new URL(`${base}/status`).pathname})`;
  const r = await probeGet(`${base}/status`, timeoutMs);
  if (!r.ok) return unreachable(config, r, what, timeoutMs);
  const json = parse(r.body);
  const problem = firstAnswerProblem(config, r, what, json);
  if (problem) return problem;
  const status = isObject(json) ? json : {};
  if (r.status !== 200 || typeof status.version !== "string")
    return {
      status: "down",
      latency_ms: r.ms,
      detail: `${what} answered HTTP ${r.status}${typeof status.error === "string" ? ` (${status.error.slice(0, 120)})` : r.status === 200 ? " without a Valhalla version: not a Valhalla server" : " without a Valhalla version"}`,
      fix: `${r.status === 200 ? "The server at ROUTING_INTERNAL_URL is not Valhalla: check ROUTING_INTERNAL_URL; it" : "ROUTING_INTERNAL_URL"} should be the Valhalla service's base URL without a path, e.g. http://valhalla:8002`,
    };
  const actions = Array.isArray(status.available_actions) ? status.available_actions : null;
  const missing = actions ? ["route", "sources_to_targets"].filter((a) => !actions.includes(a)) : [];
  let slowest = r.ms;
  const results = await Promise.all(
    ROUTING_PROFILES.map(async (profile): Promise<{ profile: RoutingProfile; problem: string | null; covered: boolean }> => {
      const costing = profiles[profile];
      const url = `${base}/locate?json=${encodeURIComponent(JSON.stringify({ locations: [{ lon: SAMPLE[0], lat: SAMPLE[1] }], costing }))}`;
      const p = await probeGet(url, timeoutMs);
      if (!p.ok) return { profile, problem: `${profile}="${costing}": ${p.reason}`, covered: false };
      slowest = Math.max(slowest, p.ms);
      const answer = parse(p.body);
      if (isObject(answer) && answer.error_code === 125)
        return { profile, problem: `${profile}="${costing}": Valhalla has no such costing; set ROUTING_PROFILES (${profile}=${{ driving: "auto", walking: "pedestrian", cycling: "bicycle" }[profile]})`, covered: false };
      if (!Array.isArray(answer)) return { profile, problem: `${profile}="${costing}": /locate answered HTTP ${p.status}${isObject(answer) && typeof answer.error === "string" ? ` (${answer.error.slice(0, 120)})` : ""}`, covered: false };
      return { profile, problem: null, covered: isObject(answer[0]) && Array.isArray(answer[0].edges) && answer[0].edges.length > 0 };
    }),
  );
  const problems = [...missing.map((a) => `the ${a} action is not enabled (valhalla.json service_limits / loki.actions)`), ...results.flatMap((x) => (x.problem ? [x.problem] : []))];
  const coverage = results.some((x) => x.covered)
    ? `roads found at ${sampleText}`
    : `no roads near ${sampleText} (fine for a regional dataset; routes outside the loaded area answer 422 INVALID_WAYPOINT)`;
  const head = `Valhalla ${status.version}: ${coverage}`;
  if (problems.length)
    return {
      status: problems.length >= ROUTING_PROFILES.length ? "down" : "degraded",
      latency_ms: slowest,
      detail: `${head}; ${problems.join("; ")}`,
      fix: `Make the router serve every profile: ${problems.join("; ")}`,
    };
  return slowOr(config, slowest, `${head}; costings answered for ${ROUTING_PROFILES.map((p) => `${p}=${profiles[p]}`).join(", ")}`);
}

function slowOr(config: Config, ms: number, detail: string): ProbeResult {
  if (ms > config.routingTimeoutMs / 2)
    return {
      status: "degraded",
      latency_ms: ms,
      detail: `${detail}, but took ${ms} ms, more than half of ROUTING_TIMEOUT_MS (${config.routingTimeoutMs} ms)`,
      fix: "The router is slow: give it more memory or CPU (OSRM: load the dataset into memory; Valhalla: more worker threads), or raise ROUTING_TIMEOUT_MS",
    };
  return { status: "ok", latency_ms: ms, detail: `${detail} in ${ms} ms` };
}

export async function probeRouter(config: Config): Promise<ProbeResult> {
  const base = config.routingUrl;
  if (!base)
    return {
      status: "not_configured",
      detail: "ROUTING_INTERNAL_URL is not set; routing routes answer 503 ROUTER_NOT_CONFIGURED",
      fix: "Set ROUTING_INTERNAL_URL to your OSRM (e.g. http://osrm:5000) or Valhalla (e.g. http://valhalla:8002, with ROUTING_ENGINE=valhalla) server, if you want routing",
    };
  const timeoutMs = Math.min(config.routingTimeoutMs, 3000);
  return config.routingEngine === "valhalla" ? probeValhalla(config, base, timeoutMs) : probeOsrm(config, base, timeoutMs);
}

// One call to an optional backend (geocoder, elevation, router) with the contract's error mapping:
// no answer (refused, DNS, timeout) or a 502/503/504 -> 503 *_UNAVAILABLE; any other bad answer
// (other status, not JSON) -> 502 UPSTREAM_ERROR. Messages blame the backend, never the caller's key,
// and never show the internal URL (it is logged instead).
import { ServiceUnavailable, UpstreamError } from "../errors";
import type { Logger } from "../log";

export interface UpstreamTarget {
  /** "geocoding backend", "elevation backend", "routing backend": how messages name it */
  label: string;
  unavailableCode: "GEOCODER_UNAVAILABLE" | "ELEVATION_UNAVAILABLE" | "ROUTER_UNAVAILABLE";
  timeoutMs: number;
  log: Logger;
}

const NOT_YOUR_FAULT = "this is a server-side problem, not one with your request or API key";

/** The settings behind each backend, for the operator's log line: where it points and how long it is waited for. */
const SETTINGS: Record<UpstreamTarget["unavailableCode"], { url: string; timeout: string }> = {
  GEOCODER_UNAVAILABLE: { url: "GEOCODER_INTERNAL_URL", timeout: "GEOCODER_TIMEOUT_MS" },
  ELEVATION_UNAVAILABLE: { url: "ELEVATION_INTERNAL_URL", timeout: "ELEVATION_TIMEOUT_MS" },
  ROUTER_UNAVAILABLE: { url: "ROUTING_INTERNAL_URL", timeout: "ROUTING_TIMEOUT_MS" },
};

/** What the operator should do about a backend that did not answer (the log's `fix`). */
function unavailableFix(target: UpstreamTarget, reason: string): string {
  const { url, timeout } = SETTINGS[target.unavailableCode];
  const slow = reason.startsWith("no answer within") ? `, or raise ${timeout} if it is only slow` : "";
  return `check that the ${target.label} runs and that ${url} points at it${slow}; \`mapstead preflight\` probes it`;
}

function unavailable(target: UpstreamTarget, reason: string, url: string): ServiceUnavailable {
  target.log.warn("backend unavailable", { backend: target.label, setting: SETTINGS[target.unavailableCode].url, path: new URL(url).pathname, reason, fix: unavailableFix(target, reason) });
  return new ServiceUnavailable(target.unavailableCode, `The ${target.label} is unavailable (${reason}); ${NOT_YOUR_FAULT}. Try again later`);
}

function badAnswer(target: UpstreamTarget, reason: string, url: string): UpstreamError {
  const setting = SETTINGS[target.unavailableCode].url;
  target.log.warn("backend answered wrongly", { backend: target.label, setting, path: new URL(url).pathname, reason, fix: `check that ${setting} points at the right kind of server and version; \`mapstead preflight\` probes it` });
  return new UpstreamError(`The ${target.label} ${reason}; ${NOT_YOUR_FAULT}`);
}

function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer within ${timeoutMs} ms`;
  const code = e?.code ?? "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_NONAME" || /dns|resolve|getaddrinfo/i.test(e?.message ?? "")) return "its host name does not resolve";
  if (code === "ECONNRESET" || code === "ConnectionClosed") return "connection closed before it answered";
  return "connection failed";
}

/**
 * Calls `url` (GET, or POST of a JSON body) and returns the status with the parsed JSON body of a 2xx or 4xx
 * answer: routers explain a refused query (no route, a point off the network) in a 4xx JSON body. Anything
 * else throws the mapped AppError.
 */
export async function requestUpstreamJson(url: string, target: UpstreamTarget, jsonBody?: string): Promise<{ status: number; json: unknown }> {
  let res: Response;
  let text: string;
  const signal = AbortSignal.timeout(target.timeoutMs);
  const init: RequestInit =
    jsonBody === undefined ? { signal, headers: { accept: "application/json" } } : { signal, method: "POST", body: jsonBody, headers: { accept: "application/json", "content-type": "application/json" } };
  try {
    res = await fetch(url, init);
  } catch (err) {
    throw unavailable(target, describeFailure(err, target.timeoutMs), url);
  }
  try {
    text = await res.text();
  } catch (err) {
    throw unavailable(target, describeFailure(err, target.timeoutMs), url);
  }
  if (res.status === 502 || res.status === 503 || res.status === 504) throw unavailable(target, `it answered HTTP ${res.status}`, url);
  const ok = res.status >= 200 && res.status <= 299;
  if (!ok && (res.status < 400 || res.status > 499)) throw badAnswer(target, `answered HTTP ${res.status}`, url);
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    throw badAnswer(target, ok ? "answered something that is not JSON" : `answered HTTP ${res.status}`, url);
  }
}

/** GETs `url` and returns the parsed JSON body of a 2xx answer, or throws the mapped AppError. */
export async function getUpstreamJson(url: string, target: UpstreamTarget): Promise<unknown> {
  const { status, json } = await requestUpstreamJson(url, target);
  if (status < 200 || status > 299) throw badAnswer(target, `answered HTTP ${status}`, url);
  return json;
}

export { badAnswer as upstreamBadAnswer };

export type ProbeAnswer =
  | { ok: true; status: number; body: string; contentType: string; ms: number }
  | { ok: false; kind: "timeout" | "refused" | "dns" | "other"; reason: string; ms: number };

/** One GET for health probes: what happened, never thrown. */
export async function probeGet(url: string, timeoutMs: number): Promise<ProbeAnswer> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    const body = await res.text();
    return { ok: true, status: res.status, body, contentType: res.headers.get("content-type") ?? "", ms: ms() };
  } catch (err) {
    const reason = describeFailure(err, timeoutMs);
    const kind = reason.startsWith("no answer") ? "timeout" : reason === "connection refused" ? "refused" : reason.includes("resolve") ? "dns" : "other";
    return { ok: false, kind, reason, ms: ms() };
  }
}

/** A fix for a backend that could not be reached, naming the setting to check. */
export function unreachableFix(setting: string, url: string, kind: string, timeoutMs: number, timeoutSetting: string, configuredMs: number): string {
  const u = new URL(url);
  switch (kind) {
    case "refused":
      return `Nothing accepts connections at ${u.host}: start the service, or correct the host or port in ${setting}`;
    case "dns":
      return `The host name ${u.hostname} does not resolve from this machine: use a name this host can resolve (for containers, the service name on a shared network) or an IP address in ${setting}`;
    case "timeout":
      // The health check waits at most its own cap; raising the setting past it would change nothing here.
      return configuredMs > timeoutMs
        ? `No answer within ${timeoutMs} ms, the longest a health check waits: check that the service is up and not overloaded and that no firewall drops the traffic (API requests wait up to ${timeoutSetting}, now ${configuredMs} ms)`
        : `No answer within ${timeoutMs} ms: check that the service is up and not overloaded and that no firewall drops the traffic, or raise ${timeoutSetting} (now ${configuredMs} ms) if it is only slow`;
    default:
      return `Check that the service at ${u.host} is running and reachable from this host (${setting})`;
  }
}

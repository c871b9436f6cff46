// Health of an optional backend, as /health/detailed and preflight report it. Probes are real requests,
// so their results are cached: the health endpoint must not become a way to hammer a backend.

export type ComponentStatus = "ok" | "degraded" | "down" | "not_configured";

export interface ProbeResult {
  status: ComponentStatus;
  latency_ms?: number;
  detail: string;
  /** which backend answers the API: opentopodata, pelias, embedded or none */
  backend?: string;
  /** what a person should do about a status other than ok */
  fix?: string;
}

export function cachedProbe(probe: () => Promise<ProbeResult>, ttlMs = 10_000): () => Promise<ProbeResult> {
  let last: { at: number; result: Promise<ProbeResult> } | null = null;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > ttlMs) last = { at: now, result: probe() };
    return last.result;
  };
}

/** GET with a timeout; returns what happened without throwing. */
export async function probeFetch(url: string, timeoutMs: number): Promise<{ ok: true; status: number; body: string; ms: number } | { ok: false; error: string; ms: number }> {
  const started = performance.now();
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" } });
    const body = await res.text();
    return { ok: true, status: res.status, body, ms: Math.round(performance.now() - started) };
  } catch (err) {
    const ms = Math.round(performance.now() - started);
    const name = (err as Error)?.name;
    const message = name === "TimeoutError" || name === "AbortError" ? `no answer within ${timeoutMs} ms` : `connection failed (${(err as Error)?.message ?? String(err)})`;
    return { ok: false, error: message, ms };
  }
}

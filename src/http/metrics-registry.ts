// Request counters and latency histograms in Prometheus text format. Requests are counted by the route
// group their route declares (route-facts.ts: tiles, styles, fonts, geocoding ...), so label cardinality
// stays small whatever clients send.

const BUCKETS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

interface Series {
  count: number;
  sumMs: number;
  buckets: number[];
}

export function createMetrics() {
  // group -> method -> count per status class (index 1 to 5): no key string is built per request
  const requests = new Map<string, Map<string, number[]>>();
  const latency = new Map<string, Series>(); // group -> histogram

  function observe(group: string, method: string, status: number, ms: number) {
    let byMethod = requests.get(group);
    if (!byMethod) requests.set(group, (byMethod = new Map()));
    let byClass = byMethod.get(method);
    if (!byClass) byMethod.set(method, (byClass = [0, 0, 0, 0, 0, 0]));
    byClass[Math.min(5, Math.floor(status / 100))]!++;
    let s = latency.get(group);
    if (!s) latency.set(group, (s = { count: 0, sumMs: 0, buckets: BUCKETS_MS.map(() => 0) }));
    s.count++;
    s.sumMs += ms;
    for (let i = 0; i < BUCKETS_MS.length; i++) if (ms <= BUCKETS_MS[i]!) s.buckets[i]!++;
  }

  function render(extra: { name: string; help: string; type: "gauge" | "counter"; value: number }[] = []): string {
    const out: string[] = [];
    out.push("# HELP mapstead_http_requests_total HTTP requests by route group, method and status class.");
    out.push("# TYPE mapstead_http_requests_total counter");
    const lines: [string, string][] = [];
    for (const [group, byMethod] of requests)
      for (const [method, byClass] of byMethod)
        byClass.forEach((n, cls) => {
          if (n) lines.push([`${group}|${method}|${cls}xx`, `mapstead_http_requests_total{group="${group}",method="${method}",status="${cls}xx"} ${n}`]);
        });
    for (const [, line] of lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out.push(line);
    out.push("# HELP mapstead_http_request_duration_seconds Time to produce a response, by route group.");
    out.push("# TYPE mapstead_http_request_duration_seconds histogram");
    for (const [group, s] of [...latency].sort()) {
      BUCKETS_MS.forEach((b, i) => out.push(`mapstead_http_request_duration_seconds_bucket{group="${group}",le="${b / 1000}"} ${s.buckets[i]}`));
      out.push(`mapstead_http_request_duration_seconds_bucket{group="${group}",le="+Inf"} ${s.count}`);
      out.push(`mapstead_http_request_duration_seconds_sum{group="${group}"} ${(s.sumMs / 1000).toFixed(6)}`);
      out.push(`mapstead_http_request_duration_seconds_count{group="${group}"} ${s.count}`);
    }
    for (const e of extra) {
      out.push(`# HELP ${e.name} ${e.help}`, `# TYPE ${e.name} ${e.type}`, `${e.name} ${e.value}`);
    }
    return out.join("\n") + "\n";
  }

  return { observe, render };
}

export type Metrics = ReturnType<typeof createMetrics>;

// Request counters and latency histograms in Prometheus text format. Requests are counted by the route
// group their route declares (route-facts.ts: tiles, styles, fonts, geocoding ...), so label cardinality
// stays small whatever clients send.
//
// With WORKERS above 1 each HTTP worker counts its own requests and hands them to the supervisor with
// its rate-limit reports (take() then add() there); /metrics, whichever worker answers it, shows the
// supervisor's sum (src/cluster/), so the counters are the whole server's and never go back.

const BUCKETS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000];

interface Series {
  count: number;
  sumMs: number;
  buckets: number[];
}

/** Request counts and latencies as plain data: what a worker reports and what /metrics renders. */
export interface Traffic {
  /** status class 1 to 5 (1xx to 5xx) */
  requests: [group: string, method: string, statusClass: number, n: number][];
  /** per group: count, sum of milliseconds, count per bucket of BUCKETS_MS */
  latency: [group: string, count: number, sumMs: number, buckets: number[]][];
}

export interface Gauge {
  name: string;
  help: string;
  /** one sample per label set; `{}` for an unlabelled one */
  samples: [labels: Record<string, string>, value: number][];
}

/** What /metrics shows beyond the job gauges: the whole server's requests, its start and each process's memory. */
export interface ServerFigures {
  traffic: Traffic;
  startedAt: number;
  /** resident bytes per process: `server` (WORKERS=1), or `supervisor` and `worker-N` */
  memory: [process: string, bytes: number][];
}

export function createMetrics() {
  // group -> method -> count per status class (index 1 to 5): no key string is built per request
  let requests = new Map<string, Map<string, number[]>>();
  let latency = new Map<string, Series>(); // group -> histogram

  function counts(group: string, method: string): number[] {
    let byMethod = requests.get(group);
    if (!byMethod) requests.set(group, (byMethod = new Map()));
    let byClass = byMethod.get(method);
    if (!byClass) byMethod.set(method, (byClass = [0, 0, 0, 0, 0, 0]));
    return byClass;
  }

  function histogram(group: string): Series {
    let s = latency.get(group);
    if (!s) latency.set(group, (s = { count: 0, sumMs: 0, buckets: BUCKETS_MS.map(() => 0) }));
    return s;
  }

  function observe(group: string, method: string, status: number, ms: number) {
    counts(group, method)[Math.min(5, Math.floor(status / 100))]!++;
    const s = histogram(group);
    s.count++;
    s.sumMs += ms;
    for (let i = 0; i < BUCKETS_MS.length; i++) if (ms <= BUCKETS_MS[i]!) s.buckets[i]!++;
  }

  function snapshot(): Traffic {
    const out: Traffic = { requests: [], latency: [] };
    for (const [group, byMethod] of requests)
      for (const [method, byClass] of byMethod)
        byClass.forEach((n, cls) => {
          if (n) out.requests.push([group, method, cls, n]);
        });
    for (const [group, s] of latency) out.latency.push([group, s.count, s.sumMs, [...s.buckets]]);
    return out;
  }

  return {
    observe,
    snapshot,
    /** What was counted since the last take, forgotten here (a worker's report); null when nothing was. */
    take(): Traffic | null {
      if (!latency.size) return null;
      const taken = snapshot();
      requests = new Map();
      latency = new Map();
      return taken;
    },
    /** Adds counts taken in another process (the supervisor sums its workers'). */
    add(t: Traffic): void {
      for (const [group, method, cls, n] of t.requests) counts(group, method)[cls]! += n;
      for (const [group, count, sumMs, buckets] of t.latency) {
        const s = histogram(group);
        s.count += count;
        s.sumMs += sumMs;
        buckets.forEach((n, i) => (s.buckets[i]! += n));
      }
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

const labelText = (labels: Record<string, string>) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
};

export function renderMetrics(traffic: Traffic, gauges: Gauge[] = []): string {
  const out: string[] = [];
  out.push("# HELP mapstead_http_requests_total HTTP requests by route group, method and status class.");
  out.push("# TYPE mapstead_http_requests_total counter");
  const lines: [string, string][] = traffic.requests.map(([group, method, cls, n]) => [
    `${group}|${method}|${cls}xx`,
    `mapstead_http_requests_total{group="${group}",method="${method}",status="${cls}xx"} ${n}`,
  ]);
  for (const [, line] of lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out.push(line);
  out.push("# HELP mapstead_http_request_duration_seconds Time to produce a response, by route group.");
  out.push("# TYPE mapstead_http_request_duration_seconds histogram");
  for (const [group, count, sumMs, buckets] of [...traffic.latency].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    BUCKETS_MS.forEach((b, i) => out.push(`mapstead_http_request_duration_seconds_bucket{group="${group}",le="${b / 1000}"} ${buckets[i]}`));
    out.push(`mapstead_http_request_duration_seconds_bucket{group="${group}",le="+Inf"} ${count}`);
    out.push(`mapstead_http_request_duration_seconds_sum{group="${group}"} ${(sumMs / 1000).toFixed(6)}`);
    out.push(`mapstead_http_request_duration_seconds_count{group="${group}"} ${count}`);
  }
  for (const g of gauges) {
    out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
    for (const [labels, value] of g.samples) out.push(`${g.name}${labelText(labels)} ${value}`);
  }
  return out.join("\n") + "\n";
}

/** /metrics of a single process (WORKERS=1, tests): its own counts, start and memory. */
export function processFigures(metrics: Metrics, startedAt: number): ServerFigures {
  return { traffic: metrics.snapshot(), startedAt, memory: [["server", process.memoryUsage.rss()]] };
}

// GET /metrics in Prometheus text format, for loopback callers (a scraper on the host) or an admin
// session; anyone else gets the same 404 as an unknown route. With WORKERS above 1 whichever worker
// answers shows the whole server: request counts summed by the supervisor, the supervisor's uptime,
// and the memory of every process (src/cluster/counter-hub.ts).
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { NotFound } from "../../errors";
import { operatorAccess } from "../../http/operator-access";
import { renderMetrics } from "../../http/metrics-registry";
import { withRouteFacts } from "../../http/route-facts";

const METRICS_DESCRIPTION =
  "Prometheus text format: `mapstead_http_requests_total{group,method,status}` and `mapstead_http_request_duration_seconds` histograms per route group, " +
  "the job queue gauges, `mapstead_uptime_seconds` and `mapstead_process_resident_bytes{process}`. With WORKERS above 1 every worker answers for the whole server: " +
  "the counts of all HTTP workers (summed by the supervisor, other workers' at most 0.1 s behind), the supervisor's uptime, and one memory sample per process " +
  "(`supervisor`, `worker-1` ...; `server` with WORKERS=1). A worker whose supervisor does not answer within 5 s answers 503 `METRICS_UNAVAILABLE`.";

/** `metrics` is fed by the access-log hook in http/conventions.ts (see app.ts). */
export function metricsModule(services: Services) {
  const { ctx, auth } = services;
  const operator = operatorAccess(ctx.config, ctx.sqlite, auth);
  const jobsByState = ctx.sqlite.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state");
  return withRouteFacts({ cors: "none", group: "other" }, new Elysia({ name: "metrics" })
    .get(
      "/metrics",
      async ({ request, server }) => {
        if (!operator.isOperator(request, server)) throw new NotFound("No such route or resource");
        const figures = await services.serverFigures();
        const jobs = jobsByState.all();
        const jobGauge = (state: string): [Record<string, string>, number][] => [[{}, jobs.find((j) => j.state === state)?.n ?? 0]];
        const body = renderMetrics(figures.traffic, [
          { name: "mapstead_uptime_seconds", help: "Seconds since the server started.", samples: [[{}, Math.round((Date.now() - figures.startedAt) / 1000)]] },
          { name: "mapstead_jobs_queued", help: "Background jobs waiting.", samples: jobGauge("queued") },
          { name: "mapstead_jobs_running", help: "Background jobs running.", samples: jobGauge("running") },
          { name: "mapstead_jobs_failed", help: "Background jobs that failed (kept for inspection).", samples: jobGauge("failed") },
          {
            name: "mapstead_process_resident_bytes",
            help: "Resident memory of each process: supervisor and worker-N with WORKERS above 1, server with WORKERS=1.",
            samples: figures.memory.map(([process, bytes]) => [{ process }, bytes]),
          },
        ]);
        return new Response(body, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
      },
      { detail: { tags: ["Health"], summary: "Prometheus metrics (loopback callers or an admin session)", description: METRICS_DESCRIPTION } },
    ));
}

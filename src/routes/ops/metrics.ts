// GET /metrics in Prometheus text format, for loopback callers (a scraper on the host) or an admin
// session; anyone else gets the same 404 as an unknown route.
import { Elysia } from "elysia";
import type { Services } from "../../services";
import { NotFound } from "../../errors";
import { operatorAccess } from "../../http/operator-access";
import { withRouteFacts } from "../../http/route-facts";

/** `metrics` is fed by the access-log hook in http/conventions.ts (see app.ts). */
export function metricsModule(services: Services) {
  const { ctx, auth, metrics } = services;
  const operator = operatorAccess(ctx.config, ctx.sqlite, auth);
  const jobsByState = ctx.sqlite.query<{ state: string; n: number }, []>("SELECT state, COUNT(*) AS n FROM jobs GROUP BY state");
  return withRouteFacts({ cors: "none", group: "other" }, new Elysia({ name: "metrics" })
    .get(
      "/metrics",
      ({ request, server }) => {
        if (!operator.isOperator(request, server)) throw new NotFound("No such route or resource");
        const jobs = jobsByState.all();
        const jobGauge = (state: string) => jobs.find((j) => j.state === state)?.n ?? 0;
        const body = metrics.render([
          { name: "mapstead_uptime_seconds", help: "Seconds since start.", type: "gauge", value: Math.round((Date.now() - ctx.startedAt) / 1000) },
          { name: "mapstead_jobs_queued", help: "Background jobs waiting.", type: "gauge", value: jobGauge("queued") },
          { name: "mapstead_jobs_running", help: "Background jobs running.", type: "gauge", value: jobGauge("running") },
          { name: "mapstead_jobs_failed", help: "Background jobs that failed (kept for inspection).", type: "gauge", value: jobGauge("failed") },
          { name: "mapstead_process_resident_bytes", help: "Resident memory of this process.", type: "gauge", value: process.memoryUsage().rss },
        ]);
        return new Response(body, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
      },
      { detail: { tags: ["Health"], summary: "Prometheus metrics (loopback callers or an admin session)" } },
    ));
}

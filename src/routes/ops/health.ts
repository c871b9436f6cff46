import { Elysia } from "elysia";
import type { Services } from "../../services";
import { DetailedHealth, HealthOk } from "./health.model";
import { withRouteFacts } from "../../http/route-facts";
import { operatorAccess } from "../../http/operator-access";
import { withoutOperatorDetails } from "../../domain/health/public-view";

export function healthModule(services: Services) {
  const { ctx, health, auth } = services;
  const operator = operatorAccess(ctx.config, ctx.sqlite, auth);
  return withRouteFacts({ cors: "none", group: "health" }, new Elysia({ name: "health" })
    .get("/health", () => ({ status: "ok" as const }), {
      response: HealthOk,
      detail: { tags: ["Health"], summary: "Reachability check; touches no dependency" },
    })
    .get(
      "/health/detailed",
      async ({ request, server, set }) => {
        const full = await health.detailed();
        const report = operator.seesDetails(request, server) ? full : withoutOperatorDetails(full);
        set.headers["cache-control"] = "no-store";
        if (report.status === "down") set.status = 503;
        return report;
      },
      {
        response: { 200: DetailedHealth, 503: DetailedHealth },
        detail: {
          tags: ["Health"],
          summary: "Component health; 200 while the core works (optional services may be degraded), 503 when the database or storage is down",
          description:
            "Each component's `detail` and `fix` (which name internal backend addresses, paths and settings) are shown to admin sessions and loopback callers, and to anyone before the first admin exists; others get the statuses, latencies and backend kinds with a `detail` saying where the details are.",
        },
      },
    ));
}

import { Elysia } from "elysia";
import type { Services } from "../../services";
import { DetailedHealth, HealthOk } from "./health.model";
import { withRouteFacts } from "../../http/route-facts";

export function healthModule(services: Services) {
  const { health } = services;
  return withRouteFacts({ cors: "none", group: "health" }, new Elysia({ name: "health" })
    .get("/health", () => ({ status: "ok" as const }), {
      response: HealthOk,
      detail: { tags: ["Health"], summary: "Reachability check; touches no dependency" },
    })
    .get(
      "/health/detailed",
      async ({ set }) => {
        const report = await health.detailed();
        set.headers["cache-control"] = "no-store";
        if (report.status === "down") set.status = 503;
        return report;
      },
      {
        response: { 200: DetailedHealth, 503: DetailedHealth },
        detail: {
          tags: ["Health"],
          summary: "Component health; 200 while the core works (optional services may be degraded), 503 when the database or storage is down",
        },
      },
    ));
}

// GET /setup/preflight: the shared setup checks as JSON, or as a page for browsers. Before the first
// admin exists anyone may look; afterwards only an admin session or a loopback caller.
import { Elysia, t } from "elysia";
import type { Services } from "../../services";
import { NotFound } from "../../errors";
import { hasAdmin } from "../../domain/accounts/setup-token";
import { operatorAccess } from "../../http/operator-access";
import { runPreflight } from "../../domain/preflight/checks";
import { cachedProbe } from "../../backends/probe";
import { probeGeocoder } from "../../backends/geocoder/probe";
import { probeElevationBackend } from "../../backends/elevation/embedded-probe";
import { probeElevation } from "../../backends/elevation/probe";
import { probeRouter } from "../../backends/routing/probe";
import { preflightHiddenPage, preflightPage } from "../../web/preflight-page";
import { PreflightReport } from "./preflight.model";
import { ErrorEnvelope } from "../../http/error-response";
import { withRouteFacts } from "../../http/route-facts";

export function preflightModule(services: Services) {
  const { ctx, auth } = services;
  // Cached like /health/detailed's, so the page cannot be used to hammer the backends.
  const geocoder = cachedProbe(() => probeGeocoder(ctx.config, services.embeddedGazetteer()));
  const openTopoData = cachedProbe(() => probeElevation(ctx.config));
  const elevation = () => probeElevationBackend(ctx.config, ctx.sqlite, openTopoData);
  const router = cachedProbe(() => probeRouter(ctx.config));
  const operator = operatorAccess(ctx.config, ctx.sqlite, auth);
  return withRouteFacts({ cors: "none", group: "health" }, new Elysia({ name: "preflight" }).get(
    "/setup/preflight",
    async ({ request, server, set }) => {
      const html = (request.headers.get("accept") ?? "").includes("text/html");
      if (!operator.seesDetails(request, server)) {
        // A browser gets a page saying where the checks can be seen, not a bare JSON error.
        if (html) {
          set.status = 404;
          set.headers["content-type"] = "text/html; charset=utf-8";
          set.headers["cache-control"] = "no-store";
          return preflightHiddenPage(ctx.version, ctx.config.publicUrl);
        }
        throw new NotFound("Preflight is visible to admins and loopback callers once an admin exists");
      }
      const report = await runPreflight({ config: ctx.config, sqlite: ctx.sqlite, listening: true, probeGeocoder: geocoder, probeElevation: elevation, probeRouter: router });
      set.headers["cache-control"] = "no-store";
      if (html) {
        set.headers["content-type"] = "text/html; charset=utf-8";
        return preflightPage(report, ctx.version, !hasAdmin(ctx.sqlite), ctx.config.publicUrl);
      }
      return report;
    },
    {
      response: { 200: t.Union([PreflightReport, t.String({ description: "the same checks as an HTML page, for Accept: text/html" })]), 404: t.Union([ErrorEnvelope, t.String({ description: "for Accept: text/html, a page saying where the checks can be seen" })]) },
      detail: {
        tags: ["Health"],
        summary: "Setup checks (JSON, or a wizard page with Accept: text/html)",
        description: "Anyone may run it until the first admin exists; afterwards an admin session or a loopback caller. Never shows a secret.",
      },
    },
  ));
}

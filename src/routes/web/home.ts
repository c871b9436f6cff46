import { Elysia } from "elysia";
import type { Services } from "../../services";
import { hasAdmin } from "../../domain/accounts/setup-token";
import { homePage } from "../../web/home-page";
import { addressCheck } from "../../web/address-check";
import { faviconIco } from "../../web/logo";
import { withRouteFacts } from "../../http/route-facts";
import { operatorAccess } from "../../http/operator-access";
import { withoutOperatorDetails } from "../../domain/health/public-view";

export function homeModule(services: Services) {
  const { ctx, health, auth } = services;
  const operator = operatorAccess(ctx.config, ctx.sqlite, auth);
  const check = addressCheck(ctx.config.publicUrl);
  // Nothing but the page's own script runs, and no other site may frame it.
  const csp = `default-src 'none'; script-src 'sha256-${new Bun.CryptoHasher("sha256").update(check.script).digest("base64")}'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;
  return withRouteFacts({ cors: "none", group: "other" }, new Elysia({ name: "home" }).get(
    "/",
    async ({ request, server }) => {
      const full = await health.detailed();
      const report = operator.seesDetails(request, server) ? full : withoutOperatorDetails(full);
      return new Response(homePage(report, ctx.config.publicUrl, !hasAdmin(ctx.sqlite), check), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "content-security-policy": csp },
      });
    },
    { detail: { tags: ["Health"], summary: "Landing page: status and where to go next (HTML)" } },
  ).get(
    "/favicon.ico",
    async () => new Response(await faviconIco(), { headers: { "content-type": "image/x-icon", "cache-control": "public, max-age=86400" } }),
    // a browser asset, not part of the API
    { detail: { hide: true } },
  ));
}

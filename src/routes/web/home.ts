import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { healthServiceFor } from "../../domain/health/service";
import { hasAdmin } from "../../domain/accounts/setup-token";
import { homePage } from "../../web/home-page";

export function homeModule(ctx: AppContext) {
  const health = healthServiceFor(ctx);
  return new Elysia({ name: "home" }).get(
    "/",
    async () =>
      new Response(homePage(await health.detailed(), ctx.config.publicUrl, !hasAdmin(ctx.sqlite)), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      }),
    { detail: { tags: ["Health"], summary: "Landing page: status and where to go next (HTML)" } },
  );
}

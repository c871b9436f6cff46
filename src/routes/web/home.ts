import { Elysia } from "elysia";
import type { Services } from "../../services";
import { hasAdmin } from "../../domain/accounts/setup-token";
import { homePage } from "../../web/home-page";

export function homeModule(services: Services) {
  const { ctx, health } = services;
  return new Elysia({ name: "home" }).get(
    "/",
    async () =>
      new Response(homePage(await health.detailed(), ctx.config.publicUrl, !hasAdmin(ctx.sqlite)), {
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      }),
    { detail: { tags: ["Health"], summary: "Landing page: status and where to go next (HTML)" } },
  );
}

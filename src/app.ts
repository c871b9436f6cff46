// Composes the feature modules into one Elysia app. No listen, no side effects beyond what the modules
// start for themselves (workers, flushers), so tests can build as many apps as they like.
import { Elysia } from "elysia";
import type { AppContext } from "./context";
import { conventions, routeTableFrom } from "./http/conventions";
import { docsModule } from "./routes/ops/docs";
import { healthModule } from "./routes/ops/health";
import { preflightModule } from "./routes/ops/preflight";
import { authModule } from "./routes/management/auth";
import { orgsModule } from "./routes/management/orgs";
import { keysModule } from "./routes/management/keys";
import { metricsModule } from "./routes/ops/metrics";
import { createMetrics } from "./http/metrics-registry";
import { homeModule } from "./routes/web/home";
import { stylesModule } from "./routes/management/styles";
import { geocodingModule } from "./routes/services/geocoding";
import { elevationModule } from "./routes/services/elevation";
import { fontsModule } from "./routes/management/fonts";
import { tilesetsModule } from "./routes/management/tilesets";
import { tilesModule } from "./routes/public/tiles";
import { consoleModule } from "./modules/console";

export function createApp(ctx: AppContext) {
  const routes = routeTableFrom(() => app.routes);
  const metrics = createMetrics();
  const app = new Elysia({ name: "mapstead" })
    .use(conventions(ctx.config, ctx.log, routes, metrics.observe))
    .use(metricsModule(ctx, metrics))
    .use(docsModule(ctx))
    .use(healthModule(ctx))
    .use(preflightModule(ctx))
    .use(authModule(ctx))
    .use(orgsModule(ctx))
    .use(keysModule(ctx))
    .use(homeModule(ctx))
    .use(stylesModule(ctx))
    .use(geocodingModule(ctx))
    .use(elevationModule(ctx))
    .use(fontsModule(ctx))
    .use(tilesetsModule(ctx))
    .use(tilesModule(ctx))
    .use(consoleModule(ctx));
  return app;
}

export type App = ReturnType<typeof createApp>;

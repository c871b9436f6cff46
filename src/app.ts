// Composes the feature modules into one Elysia app. No listen, no side effects beyond what the modules
// start for themselves (workers, flushers), so tests can build as many apps as they like.
import { Elysia } from "elysia";
import type { AppContext } from "./context";
import { conventions, routeTableFrom } from "./http/conventions";
import { docsModule } from "./modules/docs";
import { healthModule } from "./modules/health";
import { preflightModule } from "./modules/preflight";
import { authModule } from "./modules/auth";
import { orgsModule } from "./modules/orgs";
import { keysModule } from "./modules/keys";
import { metricsModule } from "./modules/metrics";
import { createMetrics } from "./modules/metrics/registry";
import { homeModule } from "./modules/home";
import { stylesModule } from "./modules/styles";
import { geocodingModule } from "./modules/geocoding";
import { elevationModule } from "./modules/elevation";
import { fontsModule } from "./modules/fonts";
import { tilesetsModule } from "./modules/tilesets";
import { tilesModule } from "./modules/tiles";
import { consoleModule } from "./modules/console";
import { gazetteerRoutes } from "./routes/management/gazetteer";

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
    .use(gazetteerRoutes(ctx))
    .use(elevationModule(ctx))
    .use(fontsModule(ctx))
    .use(tilesetsModule(ctx))
    .use(tilesModule(ctx))
    .use(consoleModule(ctx));
  return app;
}

export type App = ReturnType<typeof createApp>;

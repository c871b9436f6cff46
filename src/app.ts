// Composes the route modules into one Elysia app over services built once by createServices. No
// listen, no side effects beyond what the modules start for themselves (workers, flushers), so tests
// can build as many apps as they like.
import { Elysia } from "elysia";
import { authPlugin } from "./http/auth";
import { conventions } from "./http/conventions";
import { routeTableFrom } from "./http/route-facts";
import { fastRoutes } from "./http/fast-routes";
import { fastReads } from "./routes/public/fast-reads";
import type { Services } from "./services";
import { stripBasePath } from "./http/base-path";
import { docsModule } from "./routes/ops/docs";
import { healthModule } from "./routes/ops/health";
import { preflightModule } from "./routes/ops/preflight";
import { metricsModule } from "./routes/ops/metrics";
import { authModule } from "./routes/management/auth";
import { orgsModule } from "./routes/management/orgs";
import { keysModule } from "./routes/management/keys";
import { stylesModule } from "./routes/management/styles";
import { fontsModule } from "./routes/management/fonts";
import { tilesetsModule } from "./routes/management/tilesets";
import { tilesModule } from "./routes/public/tiles";
import { tilequeryModule } from "./routes/public/tilequery";
import { publicStylesModule } from "./routes/public/styles";
import { publicSpritesModule } from "./routes/public/sprites";
import { publicFontsModule } from "./routes/public/fonts";
import { geocodingModule } from "./routes/services/geocoding";
import { elevationModule } from "./routes/services/elevation";
import { homeModule } from "./routes/web/home";
import { consoleModule } from "./routes/web/console";
import { routingRoutes } from "./routes/services/routing";
import { staticModule } from "./routes/services/static";
import { rasterTilesModule } from "./routes/public/raster-tiles";
import { gazetteerModule } from "./routes/management/gazetteer";
import { elevationSettingsModule } from "./routes/management/elevation-settings";

export interface AppOptions {
  /** headers every answer starts with (a cluster worker's X-Mapstead-Worker) */
  fixedHeaders?: Record<string, string>;
  /**
   * Serve the hot public reads from Bun's `routes` table when listening (src/http/fast-routes.ts);
   * off only to serve their Elysia twins over a socket (the twin test, the benches' Elysia-only figure).
   */
  fastPath?: boolean;
}

export function createApp(services: Services, opts: AppOptions = {}) {
  const { ctx } = services;
  const routes = routeTableFrom(() => app.routes);
  const callers = authPlugin(services.auth);
  const app = new Elysia({ name: "mapstead" })
    .use(conventions(ctx.config, ctx.log, routes, services.metrics.observe, opts.fixedHeaders))
    .use(metricsModule(services))
    .use(docsModule(services))
    .use(healthModule(services))
    .use(preflightModule(services))
    .use(authModule(services, callers))
    .use(orgsModule(services, callers))
    .use(keysModule(services, callers))
    .use(homeModule(services))
    .use(publicStylesModule(services))
    .use(publicSpritesModule(services))
    .use(stylesModule(services, callers))
    .use(geocodingModule(services, callers))
    .use(gazetteerModule(services, callers))
    .use(elevationModule(services, callers))
    .use(elevationSettingsModule(services, callers))
    .use(routingRoutes(services, callers))
    .use(publicFontsModule(services))
    .use(fontsModule(services, callers))
    .use(tilesetsModule(services, callers))
    .use(tilesModule(services, callers))
    .use(tilequeryModule(services, callers))
    .use(staticModule(services, callers))
    .use(rasterTilesModule(services, callers))
    .use(consoleModule(ctx));
  // Elysia's listen() puts these in Bun.serve's `routes` over its own entries for the same paths;
  // requests that go through app.handle() (most tests) take the Elysia twins.
  const base = ctx.config.basePath;
  const strip = (request: Request) => stripBasePath(request, base);
  const served: Record<string, unknown> = {};
  if (opts.fastPath !== false) {
    const fast = fastRoutes(fastReads(services), { log: ctx.log, observe: services.metrics.observe, fixedHeaders: opts.fixedHeaders, twins: app.routes, elysia: (request) => app.fetch(strip(request)) });
    Object.assign(served, fast);
    // A proxy that keeps PUBLIC_URL's path prefix gets the fast path too: Bun hands these the same params.
    if (base) for (const [path, handler] of Object.entries(fast)) served[base + path] = handler;
  }
  if (base) {
    // Everything else under the prefix is routed by Elysia as if the proxy had stripped it (base-path.ts).
    const prefixed = (request: Request) => app.fetch(strip(request));
    served[base] = prefixed;
    served[`${base}/*`] = prefixed;
    // Elysia's own routes go under the prefix too, as listen() puts them in the table unprefixed: Bun picks
    // the most specific pattern, so without them a prefixed fast route with a parameter
    // (/styles/v1/:owner/:style/:file, the sprite) would take /styles/v1/:owner/:style/wmts.xml and tiles.json.
    for (const { path } of app.routes)
      if (!path.includes("*") && !path.includes("?") && !(base + path in served)) served[base + path] = prefixed;
    const handle = app.handle;
    app.handle = (request: Request) => handle(strip(request));
  }
  if (Object.keys(served).length) app.config.serve = { ...app.config.serve, routes: served as never };
  return app;
}

export type App = ReturnType<typeof createApp>;

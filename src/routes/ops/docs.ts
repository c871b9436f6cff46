// GET /openapi.json and GET /docs. The reference UI's script is embedded in the binary and served from
// here, so the docs work on an air-gapped machine (a CDN link would leave a blank page there).
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
// The package does not export its browser bundle, so it is imported by path to embed it.
import scalarScript from "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };
import type { Services } from "../../services";
import { finishOpenApiDocument } from "./openapi-document";
import { withRouteFacts } from "../../http/route-facts";
import { staticImageWithoutOverlayDocument } from "../services/static";

const ASSET_PATH = "/docs/assets/api-reference.js";
const SPEC_PATH = "/openapi.json";

// Nothing that phones home: no telemetry, no hosted AI agent or MCP generator, no cloud toolbar.
const SCALAR_CONFIG = {
  url: SPEC_PATH,
  withDefaultFonts: false,
  hideClientButton: true,
  telemetry: false,
  showDeveloperTools: "never",
  agent: { disabled: true },
  mcp: { disabled: true },
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function docsModule({ ctx }: Services) {
  const script = Bun.file(scalarScript);
  // The page's own URLs carry PUBLIC_URL's path prefix; the routes stay where they are.
  const base = ctx.config.basePath;
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mapstead API ${escapeHtml(ctx.version)}</title><link rel="icon" href="${escapeHtml(base)}/favicon.ico"><style>body{margin:0}</style></head>
<body><script id="api-reference" data-configuration="${escapeHtml(JSON.stringify({ ...SCALAR_CONFIG, url: base + SPEC_PATH }))}"></script>
<script src="${escapeHtml(base + ASSET_PATH)}"></script></body></html>`;
  return withRouteFacts({ cors: "none", group: "docs" }, new Elysia({ name: "docs" })
    // The plugin's spec route is registered below, inside this module, so this hook reaches it.
    .onAfterHandle(({ path, response }) => {
      if (path === SPEC_PATH && response && typeof response === "object" && !(response instanceof Response)) return finishOpenApiDocument(response as Record<string, unknown>);
    })
    .get("/docs", () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } }), {
      detail: { hide: true },
    })
    .get(ASSET_PATH, () => new Response(script, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      swagger({
        // The plugin's own page (which writes the spec URL in a form Scalar reports as deprecated) moves
        // aside, hidden; /docs is served above with Scalar's current configuration.
        path: "/docs/plugin-page",
        specPath: SPEC_PATH,
        provider: "scalar",
        scalarCDN: ASSET_PATH,
        // Nothing that phones home: no telemetry, no hosted AI agent or MCP generator, no cloud toolbar.

        exclude: [ASSET_PATH],
        // Routes with a literal ".json" in the path (the raster TileJSON) are API routes, not static files.
        excludeStaticFile: false,
        documentation: {
          // 3.1: its schemas are JSON Schema 2020-12, which is what TypeBox emits (const, anyOf with null).
          openapi: "3.1.0",
          info: {
            title: "Mapstead API",
            version: ctx.version,
            description:
              "Self-hosted map publishing: styles, TileJSON, tiles, glyphs and sprites for MapLibre/Mapbox GL clients, key-protected geocoding, elevation and routing, and the management API. Errors use one JSON envelope (error.code, error.message, optional error.details); every response carries X-Request-Id.",
          },
          servers: [{ url: ctx.config.publicUrl }],
          tags: [
            { name: "Health", description: "Reachability, component health and setup checks" },
            { name: "Styles", description: "Published style JSON and sprites" },
            { name: "Tiles", description: "TileJSON and vector or raster tiles" },
            { name: "Fonts", description: "Glyph ranges for map labels" },
            { name: "Geocoding", description: "Forward, reverse, autocomplete and batch geocoding (API key with the geocoding scope)" },
            { name: "Elevation", description: "Point and along-route elevation (API key with the elevation scope)" },
            { name: "Routing", description: "Routes and travel-time matrices over OSRM or Valhalla (API key with the routing scope)" },
            { name: "Session", description: "Console login and logout" },
            { name: "Organizations", description: "Organizations and their members" },
            { name: "Keys", description: "API keys of an organization" },
            { name: "Tilesets", description: "Tileset management: uploads, versions, publishing" },
            { name: "Styles management", description: "Style drafts, sprites and publishing" },
            { name: "Fonts management", description: "Installed fonts" },
          ],
          paths: staticImageWithoutOverlayDocument(),
          components: {
            securitySchemes: {
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
              accessToken: { type: "apiKey", in: "query", name: "access_token", description: "The API key as a query parameter, only where a route says so (static images, raster tiles, tilequery)" },
              session: { type: "apiKey", in: "cookie", name: "mapstead_session" },
            },
          },
        },
      }),
    ));
}

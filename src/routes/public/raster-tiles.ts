// Raster tiles of any published style, public like the style itself (CONTRACT.md):
//   GET /styles/v1/{owner}/{style}[@{version}]/tiles/{256|512}/{z}/{x}/{y}[@2x][.png|.jpg|.webp]   (no extension: PNG, as Mapbox's Static Tiles API)
//   GET /styles/v1/{owner}/{style}[@{version}]/tiles.json[?tile_size=256|512]   raster TileJSON
//   GET /styles/v1/{owner}/{style}[@{version}]/wmts.xml[?tile_size=256|512]     WMTS capabilities
// Versioned URLs are immutable; stable ones max-age=60; private styles, and public ones drawing a private
// tileset, `private`. Strong ETag, 304.
// A key may come in `access_token` (route facts), since tile URL templates cannot always send headers.
import { Elysia, t } from "elysia";
import { withRouteFacts } from "../../http/route-facts";
import type { Services } from "../../services";
import type { AuthPlugin } from "../../http/auth";
import { ErrorEnvelope } from "../../http/error-response";
import { parseTileSize } from "../../read/render/render-service";
import { parseRasterTile } from "../../read/render/tile-request";
import { send } from "../services/static";
import { REPEATED_PARAMETER_RULE, singleQueryOf } from "../../http/query-params";
import { clientIp, clientNetwork, isLoopbackIp, isOnServerItself, type ServerLike } from "../../http/client-ip";

const TAGS = ["Raster tiles"];
const envelope = (description: string) => ({ description, content: { "application/json": { schema: ErrorEnvelope } } });
const CACHING =
  "Cache-Control: public, max-age=31536000, immutable for {style}@{version}; public, max-age=60 for the stable {style}; private for private styles, and for a public style drawing a private tileset (or a version never published) of its organization (drawn for members and maps:read keys only, so no shared cache may keep the answer). Strong ETag (different for what different callers see), If-None-Match gives 304.";
const PRIVATE =
  "Anonymous for a public style; a private style needs a key of its organization with maps:read, in X-API-Key or in the `access_token` query parameter (for clients that cannot send headers), or a member session.";
const SECURITY: Record<string, string[]>[] = [{}, { apiKey: [] }, { accessToken: [] }, { session: [] }];
const accessToken = t.Optional(t.String({ description: "An API key with maps:read, for a private style (when the X-API-Key header cannot be sent)" }));

export function rasterTilesModule(services: Services, authPlugin: AuthPlugin) {
  const { config, log } = services.ctx;
  let warnedRelayed = false;
  /**
   * The network whose render budget an anonymous tile draws from. Relayed by a proxy on this machine
   * without TRUST_PROXY, every visitor is 127.0.0.1 and shares one budget: the log says so, once.
   */
  const anonymousClient = (request: Request, server: ServerLike): string => {
    const ip = clientIp(request, server, config);
    if (!warnedRelayed && isLoopbackIp(ip) && !isOnServerItself(request, server, config)) {
      warnedRelayed = true;
      log.warn("raster tiles arrive through a proxy on this machine but TRUST_PROXY is off: every visitor without a key shares one render budget (ANONYMOUS_RENDERS_PER_MINUTE)", {
        fix: "Set TRUST_PROXY=true when Mapstead is reachable only through that proxy (which must set X-Forwarded-For)",
      });
    }
    return clientNetwork(ip);
  };
  const render = services.render;
  return withRouteFacts({ cors: "public", group: "raster_tiles", accessToken: true }, new Elysia({ name: "raster-tiles" })
    .use(authPlugin)
    .get(
      "/styles/v1/:owner/:style/tiles.json",
      // The raw query string, not Elysia's `query` (which keeps the last of a repeated key): a repeat is a 400.
      async ({ params, request, set, viewer }) =>
        send(set, await render.rasterTileJson(params.owner, params.style, parseTileSize(singleQueryOf(request).get("tile_size") ?? undefined, "tile_size"), viewer, request)),
      {
        viewer: true,
        params: t.Object({ owner: t.String(), style: t.String({ description: "{style} or {style}@{version}" }) }),
        query: t.Object({
          tile_size: t.Optional(t.String({ description: "256 (default) or 512" })),
          access_token: accessToken,
        }),
        detail: {
          tags: TAGS,
          summary: "Raster TileJSON 3.0.0 of a published style, for Leaflet, OpenLayers and QGIS (tiles at the stable or versioned URLs, as asked)",
          description: `${CACHING} ${PRIVATE} Asked for with an accepted access_token, the TileJSON repeats it in its tiles template (as Mapbox's does), so a client given only this URL loads the tiles with the key; it is then Cache-Control: private. ${REPEATED_PARAMETER_RULE}`,
          security: SECURITY,
          responses: {
            200: { description: "TileJSON", content: { "application/json": { schema: { type: "object" } } } },
            304: { description: "Not modified" },
            400: envelope("BAD_REQUEST: tile_size is not 256 or 512, or a query parameter is given more than once (details.parameter)"),
            404: envelope("STYLE_NOT_FOUND"),
          },
        },
      },
    )
    .get(
      "/styles/v1/:owner/:style/wmts.xml",
      async ({ params, request, set, viewer }) =>
        send(set, await render.wmts(params.owner, params.style, parseTileSize(singleQueryOf(request).get("tile_size") ?? undefined, "tile_size"), viewer, request)),
      {
        viewer: true,
        params: t.Object({ owner: t.String(), style: t.String({ description: "{style} or {style}@{version}" }) }),
        query: t.Object({
          tile_size: t.Optional(t.String({ description: "256 (default: the GoogleMapsCompatible tile matrix set) or 512 (GoogleMapsCompatible512)" })),
          access_token: accessToken,
        }),
        detail: {
          tags: TAGS,
          summary: "OGC WMTS 1.0.0 capabilities (RESTful) of a published style's raster tiles, for QGIS, ArcGIS and OpenLayers' WMTS source",
          description: `One layer (identifier: the style as the URL names it, {style} or {style}@{version}), PNG, in EPSG:3857: the well-known GoogleMapsCompatible tile matrix set of 256 px tiles, zoom 0-22, or with tile_size=512 its 512 px twin, whose tiles at a zoom cover what 256 px tiles cover at that zoom. Its ResourceURL is the raster tile route, stable or versioned as asked. ${CACHING} ${PRIVATE} Asked for with an accepted access_token, the document repeats it in its tile template and is then Cache-Control: private. ${REPEATED_PARAMETER_RULE}`,
          security: SECURITY,
          responses: {
            200: { description: "WMTS capabilities", content: { "application/xml": { schema: { type: "string" } } } },
            304: { description: "Not modified" },
            400: envelope("BAD_REQUEST: tile_size is not 256 or 512, or a query parameter is given more than once (details.parameter)"),
            404: envelope("STYLE_NOT_FOUND"),
          },
        },
      },
    )
    .get(
      "/styles/v1/:owner/:style/tiles/:size/:z/:x/:y",
      async ({ params, request, set, viewer, server }) => {
        singleQueryOf(request);
        // A caller without a key or session draws from its address's budget (ANONYMOUS_RENDERS_PER_MINUTE).
        const budget = viewer.authenticated ? undefined : () => services.auth.anonymousRender(anonymousClient(request, server));
        return send(set, await render.rasterTile(parseRasterTile(params), viewer, request, budget));
      },
      {
        viewer: true,
        params: t.Object({ owner: t.String(), style: t.String({ description: "{style} or {style}@{version}" }), size: t.String({ description: "256 or 512" }), z: t.String(), x: t.String(), y: t.String({ description: "{y}[@2x][.png|.jpg|.jpeg|.webp]: .png, .jpg (quality 85, transparent parts on white) or .webp (quality 80), as static images; no extension is PNG (Mapbox's Static Tiles form {y}{@2x})" }) }),
        query: t.Object({ access_token: accessToken }),
        detail: {
          tags: TAGS,
          summary: "One raster tile of a published style, drawn on the server (256 or 512 px, @2x for high-DPI screens; PNG, JPEG or WebP)",
          description: `A 512 tile at z shows what MapLibre shows at zoom z; a 256 tile at z what it shows at zoom z-1 (the numbering of Leaflet, OpenLayers and QGIS). Zoom 0-22. The extension picks the format as for static images: .png, .jpg (or .jpeg), .webp; without one the tile is a PNG, so Mapbox's Static Tiles URLs (/styles/v1/{owner}/{style}/tiles/{tilesize}/{z}/{x}/{y}{@2x}) work as they are; another extension is a 400 naming it. ${CACHING} ${PRIVATE} 503 RENDER_BUSY (Retry-After) when the render queue is full. A caller without a key or session may have ANONYMOUS_RENDERS_PER_MINUTE tiles drawn per minute from one address (default 600; tiles answered from the render caches do not count), then 429 RATE_LIMITED with Retry-After. ${REPEATED_PARAMETER_RULE}`,
          security: SECURITY,
          responses: {
            200: { description: "The tile in the format of its extension (PNG without one)", content: { "image/png": { schema: { type: "string", format: "binary" } }, "image/jpeg": { schema: { type: "string", format: "binary" } }, "image/webp": { schema: { type: "string", format: "binary" } } } },
            304: { description: "Not modified" },
            400: envelope("BAD_REQUEST: malformed z, x, y or size, an extension other than .png, .jpg, .jpeg or .webp, or a query parameter given more than once (details.parameter)"),
            404: envelope("STYLE_NOT_FOUND, or TILE_NOT_FOUND for an address outside the world or above zoom 22"),
            429: envelope("RATE_LIMITED: a caller without a key or session had ANONYMOUS_RENDERS_PER_MINUTE tiles drawn in the last minute (Retry-After)"),
            503: envelope("RENDER_BUSY or RENDER_TIMEOUT, with Retry-After"),
          },
        },
      },
    ));
}
